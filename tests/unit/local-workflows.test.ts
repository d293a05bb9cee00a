// ComfyUI workflow templates, the local route kinds and their start-time checks (no servers needed).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import type { MODEL_NAMES } from "@/lib/catalog/models";
import { ConfigError, parseConfig } from "@/lib/config";
import { fillWorkflow, parseWorkflow, type WorkflowGraph } from "@/lib/engines/local/workflow";
import { redactText } from "@/lib/log";

const envOf = (vars: Record<string, string>): NodeJS.ProcessEnv => ({ NODE_ENV: "test", ...vars });
const COMFY = { COMFYUI_URLS: "http://127.0.0.1:8188" };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-workflows-"));
const fileWith = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

const MINIMAL = {
  "1": { class_type: "CheckpointLoaderSimple", inputs: { ckpt_name: "juggernaut.safetensors" } },
  "2": { class_type: "CLIPTextEncode", inputs: { text: "{{prompt}}, masterpiece", clip: ["1", 1] } },
  "3": { class_type: "EmptyLatentImage", inputs: { width: "{{width}}", height: "{{height}}", batch_size: 1 } },
  "4": {
    class_type: "KSampler",
    inputs: {
      seed: "{{seed}}",
      steps: "{{steps}}",
      cfg: 5,
      model: ["1", 0],
      positive: ["2", 0],
      latent_image: ["3", 0],
    },
  },
  "5": { class_type: "VAEDecode", inputs: { samples: ["4", 0], vae: ["1", 2] } },
  "6": { class_type: "SaveImage", inputs: { images: ["5", 0], filename_prefix: "mine" } },
};

function failureOf(env: Record<string, string>): string {
  try {
    parseConfig(envOf(env));
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
  assert.fail("expected a ConfigError");
}

describe("shipped workflows", () => {
  const config = parseConfig(envOf({ ...COMFY, COMFYUI_SDXL_CHECKPOINT: "my-sdxl.safetensors" }));
  const workflows = config.generation.local.comfyui?.workflows ?? {};
  const sampler = (graph: WorkflowGraph) => Object.values(graph).find((n) => n.class_type === "KSampler")?.inputs;
  const loader = (graph: WorkflowGraph) =>
    Object.values(graph).find((n) => n.class_type === "CheckpointLoaderSimple")?.inputs;

  it("SDXL base 1.0: dpmpp_2m karras at CFG 7, steps, seed, size and both prompts from placeholders", () => {
    const sdxl = workflows.sdxl;
    assert.deepEqual([...sdxl.uses].sort(), ["height", "negative_prompt", "prompt", "seed", "steps", "width"]);
    assert.deepEqual(
      { ...sampler(sdxl.graph), model: undefined, positive: undefined, negative: undefined, latent_image: undefined },
      {
        seed: "{{seed}}",
        steps: "{{steps}}",
        cfg: 7,
        sampler_name: "dpmpp_2m",
        scheduler: "karras",
        denoise: 1,
        model: undefined,
        positive: undefined,
        negative: undefined,
        latent_image: undefined,
      },
    );
    assert.equal(loader(sdxl.graph)?.ckpt_name, "my-sdxl.safetensors", "COMFYUI_SDXL_CHECKPOINT is used");
  });

  it("FLUX.1 schnell: the single-file fp8 checkpoint by default, euler simple at CFG 1", () => {
    const flux = workflows["flux-schnell"];
    assert.equal(loader(flux.graph)?.ckpt_name, "flux1-schnell-fp8.safetensors");
    const s = sampler(flux.graph);
    assert.deepEqual([s?.sampler_name, s?.scheduler, s?.cfg, s?.steps], ["euler", "simple", 1, "{{steps}}"]);
    assert.ok(!flux.uses.has("negative_prompt"), "FLUX has no negative prompt at CFG 1");
  });
});

describe("workflow files", () => {
  it("fills whole-string placeholders with their values and embedded ones as text, never re-reading a value", () => {
    const template = parseWorkflow(JSON.stringify(MINIMAL));
    assert.ok(typeof template !== "string", String(template));
    const filled = fillWorkflow(template.graph, {
      prompt: "a {{seed}} sign",
      negative_prompt: "",
      seed: 42,
      width: 1024,
      height: 768,
      steps: 30,
    });
    assert.equal(filled["2"].inputs.text, "a {{seed}} sign, masterpiece");
    assert.equal(filled["4"].inputs.seed, 42);
    assert.equal(filled["4"].inputs.steps, 30);
    assert.deepEqual([filled["3"].inputs.width, filled["3"].inputs.height], [1024, 768]);
    assert.equal(template.graph["4"].inputs.seed, "{{seed}}", "the template itself is untouched");
  });

  const bad: [string, string, RegExp][] = [
    ["not JSON", "{ nope", /is not valid JSON/],
    ["an array", "[1, 2]", /not a ComfyUI API-format workflow/],
    ["a UI workflow", JSON.stringify({ nodes: [], links: [], version: 0.4 }), /UI workflow.*Export \(API\)/],
    ["a node without class_type", JSON.stringify({ ...MINIMAL, "7": { inputs: {} } }), /node "7" is not of the form/],
    [
      "no output node",
      JSON.stringify(Object.fromEntries(Object.entries(MINIMAL).filter(([id]) => id !== "6"))),
      /no image output node: add a SaveImage/,
    ],
    [
      "only a websocket output",
      JSON.stringify({ ...MINIMAL, "6": { class_type: "SaveImageWebsocket", inputs: { images: ["5", 0] } } }),
      /no image output node/,
    ],
    [
      "an unknown placeholder",
      JSON.stringify({ ...MINIMAL, "1": { class_type: "CheckpointLoaderSimple", inputs: { ckpt_name: "{{model}}" } } }),
      /unknown placeholder \{\{model\}\} \(known: \{\{prompt\}\}/,
    ],
    [
      "no {{prompt}}",
      JSON.stringify({ ...MINIMAL, "2": { class_type: "CLIPTextEncode", inputs: { text: "a cat", clip: ["1", 1] } } }),
      /never uses \{\{prompt\}\}/,
    ],
  ];
  for (const [what, text, message] of bad) {
    it(`stops start on ${what}, naming the variable and the file`, () => {
      const file = fileWith(`${what.replace(/\W+/g, "-")}.json`, text);
      const failure = failureOf({ ...COMFY, COMFYUI_WORKFLOW_MINE: file });
      assert.match(failure, new RegExp(`COMFYUI_WORKFLOW_MINE: ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} `));
      assert.match(failure, message);
    });
  }

  it("stops start on a missing file or a bad workflow name", () => {
    assert.match(
      failureOf({ ...COMFY, COMFYUI_WORKFLOW_GONE: "/nonexistent/wf.json" }),
      /COMFYUI_WORKFLOW_GONE: cannot read.*ENOENT/,
    );
    const file = fileWith("ok.json", JSON.stringify(MINIMAL));
    assert.match(failureOf({ ...COMFY, COMFYUI_WORKFLOW_Bad__name: file }), /only A–Z, 0–9 and single _/);
  });

  it("adds an operator workflow as comfyui:<name>, and replaces a shipped one by its name", () => {
    const file = fileWith("mine.json", JSON.stringify(MINIMAL));
    const config = parseConfig(
      envOf({
        ...COMFY,
        COMFYUI_WORKFLOW_JUGGERNAUT_XL: file,
        COMFYUI_WORKFLOW_SDXL: file,
        MODEL_ALPHA_PRO: "comfyui:juggernaut-xl",
      }),
    );
    assert.deepEqual(
      config.generation.chains["alpha-pro"].map((r) => r.id),
      ["comfyui:juggernaut-xl"],
    );
    const workflows = config.generation.local.comfyui?.workflows ?? {};
    assert.equal(workflows.sdxl.graph["1"].inputs.ckpt_name, "juggernaut.safetensors", "the file replaced sdxl");
  });
});

describe("local routes", () => {
  it("lets any model take either kind of route, in a chain with cloud routes and preview", () => {
    const config = parseConfig(
      envOf({
        ...COMFY,
        A1111_URLS: "http://127.0.0.1:7860",
        FAL_KEY: "k",
        MODEL_ALPHA_PRO: "comfyui:flux-schnell,a1111:flux1-dev-fp8.safetensors,preview",
        MODEL_BETA_3: "a1111:sd_xl_base_1.0.safetensors [31e35c80fc]",
        MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl,fal:fal-ai/fast-sdxl",
        MODEL_ALPHA_SCHNELL: "comfyui:sdxl",
      }),
    );
    const ids = (m: (typeof MODEL_NAMES)[number]) => config.generation.chains[m].map((r) => r.id);
    assert.deepEqual(ids("alpha-pro"), ["comfyui:flux-schnell", "a1111:flux1-dev-fp8.safetensors", "preview"]);
    assert.deepEqual(ids("beta-3"), ["a1111:sd_xl_base_1.0.safetensors [31e35c80fc]"]);
    assert.deepEqual(ids("gamma-xl-1024-v1-0"), ["comfyui:sdxl", "fal:fal-ai/fast-sdxl"]);
    assert.deepEqual(ids("alpha-schnell"), ["comfyui:sdxl"]);
  });

  it("defaults SDXL and FLUX.1 schnell to the shipped workflows once COMFYUI_URLS is set", () => {
    const chains = parseConfig(envOf({ ...COMFY, FAL_KEY: "k" })).generation.chains;
    assert.deepEqual(
      chains["gamma-xl-1024-v1-0"].map((r) => r.id),
      ["comfyui:sdxl"],
    );
    assert.deepEqual(
      chains["alpha-schnell"].map((r) => r.id),
      ["comfyui:flux-schnell"],
    );
    assert.deepEqual(
      chains["alpha-pro"].map((r) => r.id),
      ["fal:fal-ai/flux-pro/v1.1"],
    );
    const cloudOnly = parseConfig(envOf({ FAL_KEY: "k" })).generation.chains;
    assert.deepEqual(
      cloudOnly["gamma-xl-1024-v1-0"].map((r) => r.id),
      ["fal:fal-ai/fast-sdxl"],
    );
  });

  const bad: [Record<string, string>, RegExp][] = [
    [{ MODEL_BETA_3: "comfyui:sdxl" }, /MODEL_BETA_3: "comfyui:sdxl" needs COMFYUI_URLS to be set/],
    [{ MODEL_BETA_3: "a1111:x.safetensors" }, /MODEL_BETA_3: "a1111:x.safetensors" needs A1111_URLS to be set/],
    [{ ...COMFY, MODEL_BETA_3: "comfyui:anime" }, /unknown ComfyUI workflow "anime" .*COMFYUI_WORKFLOW_ANIME=<file>/],
    [{ COMFYUI_URLS: "http://a:1,,http://b:2" }, /COMFYUI_URLS: has an empty entry/],
    [{ COMFYUI_URLS: "ftp://gpu:21" }, /COMFYUI_URLS: "ftp:\/\/gpu:21" must be http/],
    [{ COMFYUI_URLS: "http://u:p@gpu:8188" }, /must not carry credentials/],
    [{ COMFYUI_URLS: "http://gpu:8188/,http://gpu:8188" }, /is listed twice/],
    [{ A1111_URLS: "gpu:7860" }, /A1111_URLS: "gpu:7860" must be http/],
    [{ ...COMFY, COMFYUI_AUTH_HEADER: "Bearer abc" }, /COMFYUI_AUTH_HEADER: must be "Header-Name: value"/],
    [{ A1111_URLS: "http://gpu:7860", A1111_AUTH: "nopassword" }, /A1111_AUTH: must be user:password/],
  ];
  for (const [env, message] of bad) {
    it(`refuses ${JSON.stringify(env)}`, () => assert.match(failureOf(env), message));
  }

  it("keeps the GPU servers' credentials out of logs", () => {
    const env = { A1111_AUTH: "admin:hunter2-long-secret", COMFYUI_AUTH_HEADER: "X-Api-Key: abcdef0123456789" };
    const line = redactText("sent admin:hunter2-long-secret and X-Api-Key abcdef0123456789", env);
    assert.doesNotMatch(line, /hunter2|abcdef0123456789/);
  });
});
