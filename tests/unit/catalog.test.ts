// Every place that lists models or enhance modes lists exactly the catalogue's entries, so a name spelled by hand
// somewhere fails here as soon as the catalogue changes.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import StudioPage from "@/app/page";
import { EnhanceModesTable, ModelsTable } from "@/components/docs/catalog-tables";
import { EnhanceOptions } from "@/components/enhance/enhance-options";
import { modeOptions } from "@/components/enhance/mode-picker";
import {
  ALL_ENHANCE_MODE_NAMES,
  DEFAULT_ENHANCE_MODE,
  ENHANCE_MODE_NAMES,
  ENHANCE_MODES,
  ENHANCE_PACKAGES,
  type EnhanceModeName,
  IN_PROCESS_MODES,
  joinWithOr,
  toNpmName,
  unconfiguredModeMessage,
} from "@/lib/catalog/enhance-modes";
import { DEFAULT_MODEL, MODEL_CATALOG, MODEL_NAMES, MODELS } from "@/lib/catalog/models";
import { PROVIDER_ENV } from "@/lib/catalog/providers";
import { ConfigError, parseConfig } from "@/lib/config";
import { createEngines } from "@/lib/engines";
import { defaultChain, parseChain } from "@/lib/engines/routes";
import { chooseModel } from "@/lib/enhance/neural-engine";
import { validateGenerate } from "@/lib/features/generate/parse";
import { buildOpenApi, ENDPOINTS } from "@/lib/openapi";
import {
  enhanceRequestSchema,
  enhanceResponseSchema,
  INVALID_ENHANCE_MODE_MESSAGE,
  modelFieldSchema,
} from "@/lib/schemas/enhance";
import { ENHANCE_SCALES } from "@/lib/schemas/enhance-rules";
import { generateRequestSchema, generateResponseSchema } from "@/lib/schemas/generate";
import { type StatusResponse, statusResponseSchema } from "@/lib/schemas/status";

const ROOT = path.resolve(__dirname, "../..");
type Json = Record<string, unknown>;

const doc = buildOpenApi("http://localhost:3000") as {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
};
const schemas = doc.components.schemas;
const propsOf = (id: string) => (schemas[id].properties ?? {}) as Record<string, Json>;
const statusProps = propsOf("StatusResponse");

/** The values of every `name="…" value="…"` radio in rendered markup. */
function radioValues(html: string, group: string): string[] {
  return [...html.matchAll(/<input[^>]*>/g)]
    .map((m) => m[0])
    .filter((tag) => tag.includes('type="radio"') && tag.includes(`name="${group}"`))
    .map((tag) => /value="([^"]*)"/.exec(tag)?.[1] ?? "");
}

/** The rows of a rendered SimpleTable: each row's cells as text. */
function tableRows(html: string): string[][] {
  const body = /<tbody[^>]*>([\s\S]*)<\/tbody>/.exec(html)?.[1] ?? "";
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cell[1].replace(/<[^>]+>/g, " ").trim()),
  );
}

describe("the model catalogue", () => {
  it("has unique names and variables, a default among them, and routes for every model", () => {
    assert.equal(new Set(MODEL_NAMES).size, MODEL_CATALOG.length);
    const envs = MODEL_CATALOG.map((m) => m.env);
    assert.equal(new Set(envs).size, envs.length);
    const otherVars = Object.values(PROVIDER_ENV).flatMap((v) => [v.key, v.baseUrl]);
    for (const m of MODEL_CATALOG) {
      assert.match(m.env, /^MODEL_[A-Z0-9_]+$/);
      assert.ok(!otherVars.includes(m.env), `${m.env} clashes with a provider variable`);
      assert.ok(m.routes.length > 0, `${m.name} has routes`);
      assert.equal(MODELS[m.name], m);
    }
    assert.ok(MODEL_NAMES.includes(DEFAULT_MODEL));
  });

  it("is what the generate schemas accept and return", () => {
    assert.deepEqual(generateRequestSchema.shape.model.unwrap().options, MODEL_NAMES);
    assert.deepEqual(generateResponseSchema.shape.model.options, MODEL_NAMES);
    assert.deepEqual(
      statusResponseSchema.shape.models.element.shape.name.options,
      MODEL_NAMES,
      "status lists the catalogue's names",
    );
  });

  it("is what OpenAPI documents, with the default model in the example", () => {
    assert.deepEqual(propsOf("GenerateRequest").model.enum, MODEL_NAMES);
    assert.equal(propsOf("GenerateRequest").model.default, DEFAULT_MODEL);
    assert.deepEqual(propsOf("GenerateResponse").model.enum, MODEL_NAMES);
    const statusModel = (statusProps.models.items as Json).properties as Record<string, Json>;
    assert.deepEqual(statusModel.name.enum, MODEL_NAMES);
    const example = ENDPOINTS.find((e) => e.path === "/api/generate")?.request?.example as Json | undefined;
    assert.equal(example?.model, DEFAULT_MODEL);
    for (const m of MODEL_CATALOG) assert.ok(String(propsOf("GenerateRequest").model.description).includes(m.family));
  });

  it("is what the invalid_model message offers", () => {
    assert.throws(
      () => validateGenerate({ prompt: "a cat", model: "dall-e-3" }),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, "invalid_model");
        const offered = /Use one of: (.*)\.$/.exec(err.message)?.[1].split(", ");
        assert.deepEqual(offered, MODEL_NAMES, err.message);
        return true;
      },
    );
  });

  it("is what the studio offers before /api/status answers", () => {
    const page = StudioPage() as ReactElement<{ fallbackModels: { name: string; family: string }[] }>;
    assert.deepEqual(
      page.props.fallbackModels.map((m) => [m.name, m.family]),
      MODEL_CATALOG.map((m) => [m.name, m.family]),
    );
  });

  it("is what the docs page's models table lists, with each variable and route", () => {
    const rows = tableRows(renderToStaticMarkup(ModelsTable()));
    assert.deepEqual(
      rows.map((r) => r[0].split(/\s+/)[0]),
      MODEL_NAMES,
    );
    for (const [i, m] of MODEL_CATALOG.entries()) {
      for (const text of [m.env, ...m.routes]) assert.ok(rows[i][3].includes(text), `${m.name}: ${text}`);
    }
  });

  it("is what config reads: one variable per model, each checked at start", () => {
    assert.deepEqual(Object.keys(parseConfig({}).generation.chains), MODEL_NAMES);
    for (const m of MODEL_CATALOG) {
      assert.throws(
        () => parseConfig({ [m.env]: "nope:nothing" }),
        (err: unknown) => err instanceof ConfigError && err.message.includes(`${m.env}:`),
        m.env,
      );
      const chains = parseConfig({ [m.env]: "preview" }).generation.chains;
      assert.deepEqual(chains[m.name], [{ id: "preview", provider: "preview", modelId: "" }]);
    }
  });

  it("gives each model its routes, the first one by default, and nothing else", () => {
    const everyKey = {
      credentials: Object.fromEntries(Object.keys(PROVIDER_ENV).map((p) => [p, "k"])),
      baseUrls: {},
    };
    for (const m of MODEL_CATALOG) {
      assert.deepEqual(parseChain(m.name, m.routes.join(","), everyKey).errors, [], m.name);
      assert.equal(defaultChain(m.name, everyKey)[0].id, m.routes[0]);
      for (const other of MODEL_CATALOG.filter((o) => o !== m)) {
        const own: readonly string[] = m.routes;
        for (const route of other.routes.filter((r) => !own.includes(r))) {
          assert.match(parseChain(m.name, route, everyKey).errors[0] ?? "", /is not a route for/, `${m.name} ${route}`);
        }
      }
    }
  });

  it("is what GET /api/status describes", () => {
    assert.deepEqual(
      createEngines(parseConfig({}).generation)
        .describe()
        .map((e) => e.name),
      MODEL_NAMES,
    );
  });
});

describe("the enhance modes", () => {
  it("have unique names, a default among them, and packages this project depends on", () => {
    assert.equal(new Set(ALL_ENHANCE_MODE_NAMES).size, ENHANCE_MODES.length);
    assert.equal(new Set(ENHANCE_MODE_NAMES).size, IN_PROCESS_MODES.length);
    assert.ok(ENHANCE_MODE_NAMES.includes(DEFAULT_ENHANCE_MODE));
    const deps = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { dependencies: Json })
      .dependencies;
    for (const pkg of ENHANCE_PACKAGES) assert.ok(deps[toNpmName(pkg)], `${toNpmName(pkg)} is a dependency`);
  });

  it("are what the enhance schemas accept and return: every mode of 1.3 (a route decides which are served)", () => {
    assert.deepEqual(modelFieldSchema.options, ALL_ENHANCE_MODE_NAMES);
    assert.deepEqual(enhanceRequestSchema.shape.model.unwrap().unwrap().options, ALL_ENHANCE_MODE_NAMES);
    assert.deepEqual(enhanceResponseSchema.shape.model.options, ALL_ENHANCE_MODE_NAMES);
    assert.deepEqual(
      Object.keys(statusResponseSchema.shape.enhance_engine.shape.models.shape),
      ENHANCE_MODE_NAMES,
      "status has one engine name per mode",
    );
  });

  it("are what OpenAPI documents", () => {
    assert.deepEqual(propsOf("EnhanceRequest").model.enum, ALL_ENHANCE_MODE_NAMES);
    assert.equal(propsOf("EnhanceRequest").model.default, DEFAULT_ENHANCE_MODE);
    assert.deepEqual(propsOf("EnhanceResponse").model.enum, ALL_ENHANCE_MODE_NAMES);
    const engine = statusProps.enhance_engine as Json & { properties: { models: Json } };
    assert.deepEqual(engine.properties.models.required, ENHANCE_MODE_NAMES);
    assert.deepEqual(Object.keys(engine.properties.models.properties as Json), ENHANCE_MODE_NAMES);
    const described = String(doc.paths["/api/enhance"].post.description);
    for (const m of IN_PROCESS_MODES) {
      assert.ok(described.includes(`${m.name} (`), `the /api/enhance description names ${m.name}`);
      assert.ok(String(propsOf("EnhanceRequest").model.description).includes(m.network));
    }
  });

  it("are what the invalid_model message for /api/enhance offers", () => {
    const parsed = modelFieldSchema.safeParse("ultra");
    assert.equal(parsed.success, false);
    assert.equal(parsed.error?.issues[0].message, INVALID_ENHANCE_MODE_MESSAGE);
    const offered = /^Model must be (.*)\.$/.exec(INVALID_ENHANCE_MODE_MESSAGE)?.[1];
    assert.equal(offered, joinWithOr(ENHANCE_MODE_NAMES));
    assert.deepEqual(offered?.split(/, | or /), ENHANCE_MODE_NAMES);
  });

  it("list faces and creative in 1.3, refused with a message that names the available modes", () => {
    assert.deepEqual(ALL_ENHANCE_MODE_NAMES, ["fast", "quality", "faces", "creative"]);
    assert.deepEqual(
      ENHANCE_MODES.filter((m) => m.inProcess !== null).map((m) => m.name),
      ENHANCE_MODE_NAMES,
    );
    assert.equal(
      unconfiguredModeMessage("faces", ENHANCE_MODE_NAMES),
      `The faces mode has no engine on this server (ENHANCE_FACES is not set); the modes available are ${joinWithOr(ENHANCE_MODE_NAMES)}.`,
    );
    assert.match(unconfiguredModeMessage("creative", ENHANCE_MODE_NAMES) ?? "", /^The creative mode has no engine/);
    assert.equal(unconfiguredModeMessage("fast", ENHANCE_MODE_NAMES), undefined);
    assert.equal(unconfiguredModeMessage("best", ENHANCE_MODE_NAMES), undefined);
    assert.equal(unconfiguredModeMessage("faces", ["fast", "faces"]), undefined, "a mode with a route is served");
    assert.deepEqual(
      ENHANCE_MODES.filter((m) => m.generative).map((m) => m.name),
      ["creative"],
    );
    assert.deepEqual(
      ENHANCE_MODES.filter((m) => m.strength === "blend").map((m) => m.name),
      ["fast", "quality"],
      "strength blends over the base in the faithful modes and is the engine's in faces and creative",
    );
  });

  it("are the enhance page's choices: every mode with its engine here, or greyed out with the reason", () => {
    const status = {
      enhance_modes: [
        { name: "fast", label: "Fast", available: true, engines: ["onnx:esrgan-slim"], ai: true, generative: false },
        {
          name: "quality",
          label: "Quality",
          available: true,
          engines: ["onnx:esrgan-medium"],
          ai: true,
          generative: false,
        },
        {
          name: "faces",
          label: "Faces",
          available: true,
          engines: ["replicate:sczhou/codeformer", "fal:fal-ai/codeformer"],
          ai: true,
          generative: false,
          licence_notes: "CodeFormer: S-Lab License 1.0 (non-commercial).",
        },
        { name: "creative", label: "Creative", available: false, engines: [], ai: false, generative: true },
      ],
    } as unknown as StatusResponse;
    const render = (model: EnhanceModeName) =>
      renderToStaticMarkup(
        EnhanceOptions({
          value: { strength: 0.5, scale: 2, model, prompt: "" },
          onChange: () => {},
          modes: modeOptions(status),
        }),
      );
    const html = render("faces");
    assert.deepEqual(radioValues(html, "model"), ALL_ENHANCE_MODE_NAMES);
    assert.deepEqual(radioValues(html, "scale"), ENHANCE_SCALES.map(String));
    for (const m of ENHANCE_MODES) assert.ok(html.includes(`>${m.label}`), m.name);
    assert.ok(html.includes("replicate:sczhou/codeformer") && html.includes("then 1 fallback"));
    assert.ok(html.includes("S-Lab"), "the chosen face mode shows its licence");
    assert.ok(html.includes(ENHANCE_MODES[2].summary), "faces explains what it does");
    const creativeRadio = [...html.matchAll(/<input[^>]*>/g)]
      .map((m) => m[0])
      .find((t) => t.includes('value="creative"'));
    assert.match(creativeRadio ?? "", /disabled/);
    assert.ok(html.includes("Unavailable: no engine on this server (the operator sets ENHANCE_CREATIVE)"));
    assert.ok(!html.includes('id="enhance-prompt"'), "the prompt field belongs to creative");
    // Chosen (when a route serves it), creative says it invents detail and shows the prompt field.
    const creative = render("creative");
    assert.ok(creative.includes("invents detail") && creative.includes('id="enhance-prompt"'));
  });

  it("are what the docs page's enhance modes table lists", () => {
    const rows = tableRows(renderToStaticMarkup(EnhanceModesTable()));
    assert.deepEqual(
      rows.map((r) => r[0].split(/\s+/)[0]),
      ENHANCE_MODE_NAMES,
    );
    for (const [i, m] of IN_PROCESS_MODES.entries()) assert.ok(rows[i][2].includes(toNpmName(m.package)), m.name);
  });

  it("each run their own package in the engine", () => {
    for (const m of IN_PROCESS_MODES) {
      for (const scale of ENHANCE_SCALES)
        assert.deepEqual(chooseModel(m.name, scale), { kind: "package", pkg: m.package, scale, precision: "fp32" });
    }
  });

  it("are what scripts/convert-models.ts converts: every package at every scale", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-convert-"));
    try {
      // fp32 only: the int8 variants' calibration is covered by tests/unit/neural-int8.test.ts.
      const res = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/convert-models.ts"), dir], {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, ENHANCE_PRECISION: "fp32" },
      });
      assert.equal(res.status, 0, res.stderr);
      const converted = fs
        .readdirSync(dir)
        .map((f) => /^(.+)-\d+\.\d+\.\d+-x(\d)-v\d+\.onnx$/.exec(f)?.slice(1).join(" x"))
        .sort();
      const expected = ENHANCE_PACKAGES.flatMap((pkg) => ENHANCE_SCALES.map((s) => `${pkg} x${s}`)).sort();
      assert.deepEqual(converted, expected);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
