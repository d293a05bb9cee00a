// The comfyui enhance route against the loopback ComfyUI fake: a server without facerestore_cf's nodes (or without a
// model for the restorer) puts the route out for faces only, a legacy server's bare paths, CodeFormer's model file and
// fidelity; and COMFYUI_WORKFLOW_ENHANCE_<NAME>: checked at start, filled per request, labelled by what it runs.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import sharp from "sharp";
import { ConfigError, parseConfig } from "@/lib/config";
import { ProviderError } from "@/lib/engines/failures";
import { ServerPool } from "@/lib/engines/local/pool";
import type { ComfyUiSettings } from "@/lib/engines/local/settings";
import { createComfyUiEnhanceRoute, fidelityOf } from "@/lib/enhance/local/comfyui";
import { type ComfyFake, startComfyFake } from "../fakes/comfyui";
import { imageOf } from "../fakes/fake-server";
import { enhanceRouteJob } from "../helpers/enhance-route-job";

const WIDTH = 48;
const HEIGHT = 32;
let comfy: ComfyFake;
let legacy: ComfyFake;
let input: Buffer;

before(async () => {
  [comfy, legacy] = await Promise.all([startComfyFake(), startComfyFake({ legacy: true })]);
  input = await imageOf(WIDTH, HEIGHT);
});
after(async () => {
  await comfy?.close();
  await legacy?.close();
});
beforeEach(() => {
  comfy.reset();
  legacy.reset();
});

const jobOf = (overrides: Parameters<typeof enhanceRouteJob>[1] = {}) =>
  enhanceRouteJob({ image: input, width: WIDTH, height: HEIGHT, requestId: "req-comfy" }, overrides);

function routeOf(target: string, url: string, enhanceWorkflows: ComfyUiSettings["enhanceWorkflows"] = {}) {
  return createComfyUiEnhanceRoute(target, {
    settings: { urls: [url], workflows: {}, enhanceWorkflows },
    pool: new ServerPool("comfyui", [url]),
    timeoutMs: 120_000,
  });
}

const sizeOf = async (image: Buffer) => {
  const meta = await sharp(image).metadata();
  return `${meta.width}x${meta.height}`;
};
const nodesOf = (fake: ComfyFake) => Object.values(fake.prompts.at(-1)?.prompt ?? {});

describe("comfyui:<model file> enhance route", () => {
  it("is out for faces alone on a server without facerestore_cf's nodes, and still upscales", async () => {
    comfy.faceNodes = false;
    const route = routeOf("4x-UltraSharp.pth", comfy.url);
    await assert.rejects(
      route.run(jobOf({ mode: "faces" })),
      (err) =>
        err instanceof ProviderError && /cannot restore faces: it lacks FaceRestoreModelLoader/.test(err.message),
    );
    assert.equal(comfy.prompts.length, 0, "nothing was sent for faces");
    assert.match(String(route.outReason?.("faces")), /server 1 cannot restore faces/);
    assert.equal(route.outReason?.("quality"), null);
    const { image } = await route.run(jobOf({ mode: "quality", scale: 4 }));
    assert.equal(await sizeOf(image), `${WIDTH * 4}x${HEIGHT * 4}`);
    await assert.rejects(route.run(jobOf({ mode: "faces" })), /ejected for faces/);
    assert.deepEqual(comfy.violations, []);
  });

  it("is out for faces when no face model file is the restorer's", async () => {
    comfy.faceModels = ["GFPGANv1.4.pth"];
    const route = routeOf("4x-UltraSharp.pth", comfy.url);
    await assert.rejects(
      route.run(jobOf({ mode: "faces", faceRestorer: "codeformer" })),
      /no codeformer model among its face models \(it lists GFPGANv1\.4\.pth\)/,
    );
  });

  it("names at most a dozen of a big server's face models in the reason, then how many more", async () => {
    comfy.faceModels = Array.from({ length: 40 }, (_, i) => `GFPGAN-variant-${i}.pth`);
    const route = routeOf("4x-UltraSharp.pth", comfy.url);
    await assert.rejects(
      route.run(jobOf({ mode: "faces", faceRestorer: "codeformer" })),
      /\(it lists GFPGAN-variant-0\.pth, .*GFPGAN-variant-11\.pth, and 28 more\)/,
    );
    assert.doesNotMatch(String(route.outReason?.("faces")), /GFPGAN-variant-12\.pth/);
  });

  it("loads CodeFormer's file with the fidelity on a legacy server's bare paths", async () => {
    const route = routeOf("RealESRGAN_x2plus.pth", legacy.url);
    const { image } = await route.run(jobOf({ mode: "faces", faceRestorer: "codeformer", strength: 0.25 }));
    assert.equal(await sizeOf(image), `${WIDTH * 2}x${HEIGHT * 2}`);
    const restore = nodesOf(legacy).find((n) => n.class_type === "FaceRestoreCFWithModel");
    const loader = nodesOf(legacy).find((n) => n.class_type === "FaceRestoreModelLoader");
    assert.equal(loader?.inputs.model_name, "codeformer.pth");
    assert.equal(restore?.inputs.codeformer_fidelity, 0.75);
    assert.ok(legacy.requests.some((r) => r.path === "/object_info/UpscaleModelLoader"));
    assert.deepEqual(legacy.violations, []);
    assert.deepEqual([fidelityOf(1), fidelityOf(0), fidelityOf(2)], [0, 1, 0]);
  });

  it("reports the upscaler's tiles as progress", async () => {
    comfy.stepDelayMs = 100;
    const job = jobOf({ mode: "fast" });
    await routeOf("4x-UltraSharp.pth", comfy.url).run(job);
    // Frames that come before POST /prompt answers keep only the latest progress, so the first tiles may merge.
    const tiles = job.progress.filter((p) => /^upscaling tile \d\/4$/.test(p.stage));
    assert.ok(tiles.length >= 1, JSON.stringify(job.progress));
    assert.deepEqual(tiles.at(-1), { fraction: 1, stage: "upscaling tile 4/4" });
    const fractions = tiles.map((t) => t.fraction as number);
    assert.deepEqual(
      fractions,
      [...fractions].sort((a, b) => a - b),
      "progress never goes back",
    );
  });
});

describe("COMFYUI_WORKFLOW_ENHANCE_<NAME>", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-enhance-wf-"));
  const fileWith = (name: string, graph: unknown) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, JSON.stringify(graph));
    return file;
  };
  const OWN = {
    "1": { class_type: "LoadImage", inputs: { image: "{{image}}" } },
    "2": { class_type: "UpscaleModelLoader", inputs: { model_name: "4x-UltraSharp.pth" } },
    "3": { class_type: "ImageUpscaleWithModel", inputs: { upscale_model: ["2", 0], image: ["1", 0] } },
    "4": {
      class_type: "ImageScale",
      inputs: {
        image: ["3", 0],
        upscale_method: "bicubic",
        width: "{{width}}",
        height: "{{height}}",
        crop: "disabled",
      },
    },
    "5": { class_type: "SaveImage", inputs: { filename_prefix: "mine", images: ["4", 0] } },
  };
  const COMFY = { COMFYUI_URLS: "http://127.0.0.1:8188" };

  it("is an enhance workflow, named by comfyui:workflow:<name>, filled per request and labelled faithful", async () => {
    const config = parseConfig({
      ...COMFY,
      COMFYUI_WORKFLOW_ENHANCE_MY_UPSCALE: fileWith("own.json", OWN),
      ENHANCE_QUALITY: "comfyui:workflow:my-upscale",
    });
    const comfyui = config.generation.local.comfyui;
    assert.ok(comfyui?.enhanceWorkflows["my-upscale"]);
    assert.equal(comfyui.workflows["enhance-my-upscale"], undefined, "not a generation workflow");
    const route = routeOf("workflow:my-upscale", comfy.url, comfyui.enhanceWorkflows);
    assert.deepEqual([route.id, route.ai, route.generative], ["comfyui:workflow:my-upscale", true, false]);
    const { image } = await route.run(jobOf({ mode: "quality", scale: 4 }));
    assert.equal(await sizeOf(image), `${WIDTH * 4}x${HEIGHT * 4}`);
    const scale = nodesOf(comfy).find((n) => n.class_type === "ImageScale");
    assert.deepEqual([scale?.inputs.width, scale?.inputs.height], [WIDTH * 4, HEIGHT * 4]);
    assert.deepEqual(comfy.violations, []);
    const sampled = { ...OWN, "6": { class_type: "KSampler", inputs: { seed: 1, steps: 1 } } };
    const generative = routeOf("workflow:x", comfy.url, { x: sampled });
    assert.equal(generative.generative, true, "a workflow with a sampler invents detail");
  });

  it("stops start on an enhance workflow without {{image}} or with a generation placeholder", () => {
    const noImage = { ...OWN, "1": { class_type: "LoadImage", inputs: { image: "photo.png" } } };
    const seeded = { ...OWN, "2": { class_type: "UpscaleModelLoader", inputs: { model_name: "{{seed}}" } } };
    for (const [graph, message] of [
      [noImage, /COMFYUI_WORKFLOW_ENHANCE_BAD: .* never uses \{\{image\}\}/],
      [seeded, /COMFYUI_WORKFLOW_ENHANCE_BAD: .* uses unknown placeholder \{\{seed\}\}/],
    ] as const) {
      assert.throws(
        () => parseConfig({ ...COMFY, COMFYUI_WORKFLOW_ENHANCE_BAD: fileWith("bad.json", graph) }),
        (err) => err instanceof ConfigError && message.test(err.message),
      );
    }
  });
});
