// ENHANCE_<MODE> parsed into chains at start (contract 1.3): the defaults, the route kinds, and a clear message for
// each bad route, naming the variable, so a wrong chain stops the server instead of failing requests.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { licenceLines, parseEnhanceChains } from "@/lib/catalog/enhance-routes";
import { ConfigError, parseConfig } from "@/lib/config";

const keys =
  (...have: string[]) =>
  (provider: string) =>
    have.includes(provider);

describe("ENHANCE_<MODE>", () => {
  it("defaults fast and quality to the in-process networks, and faces and creative to nothing", () => {
    const { chains, issues } = parseEnhanceChains({}, keys());
    assert.deepEqual(issues, []);
    assert.deepEqual(
      Object.fromEntries(Object.entries(chains).map(([mode, routes]) => [mode, routes.map((r) => r.id)])),
      { fast: ["onnx:esrgan-slim"], quality: ["onnx:esrgan-medium"], faces: [], creative: [] },
    );
  });

  it("reads each mode's routes in order, the route being everything after the first colon", () => {
    const { chains, issues } = parseEnhanceChains(
      { ENHANCE_FACES: " replicate:sczhou/codeformer:cc49 , fal:fal-ai/codeformer", ENHANCE_FAST: "stability:fast" },
      keys("replicate", "fal", "stability"),
    );
    assert.deepEqual(issues, []);
    assert.deepEqual(chains.faces, [
      { kind: "replicate", target: "sczhou/codeformer:cc49", id: "replicate:sczhou/codeformer:cc49" },
      { kind: "fal", target: "fal-ai/codeformer", id: "fal:fal-ai/codeformer" },
    ]);
    assert.deepEqual(
      chains.fast.map((r) => r.id),
      ["stability:fast"],
    );
  });

  it("names the variable and the problem of each bad route", () => {
    const { issues } = parseEnhanceChains(
      {
        ENHANCE_FAST: "onnx:esrgan-thick",
        ENHANCE_QUALITY: "stability:sharpest",
        ENHANCE_FACES: "fal:fal-ai/codeformer",
        ENHANCE_CREATIVE: "magic:wand,a1111:R-ESRGAN 4x+",
      },
      keys("stability"),
    );
    assert.deepEqual(
      issues.map((i) => i.variable),
      ["ENHANCE_FAST", "ENHANCE_QUALITY", "ENHANCE_FACES", "ENHANCE_CREATIVE", "ENHANCE_CREATIVE"],
    );
    assert.match(issues[0].message, /esrgan-slim and esrgan-medium/);
    assert.match(issues[1].message, /fast, conservative, creative/);
    assert.match(issues[2].message, /set FAL_KEY/);
    assert.match(issues[3].message, /kind:name/);
    assert.match(issues[4].message, /set A1111_URLS/);
  });

  it("takes a1111:<upscaler> routes where A1111_URLS is set, the upscaler's name whole", () => {
    const { chains, issues } = parseEnhanceChains({ ENHANCE_FACES: "a1111:R-ESRGAN 4x+" }, keys("a1111"));
    assert.deepEqual(chains.faces, [{ kind: "a1111", target: "R-ESRGAN 4x+", id: "a1111:R-ESRGAN 4x+" }]);
    assert.deepEqual(issues, []);
    assert.throws(
      () => parseConfig({ ENHANCE_FAST: "a1111:4x-UltraSharp" }),
      (err) => err instanceof ConfigError && /ENHANCE_FAST/.test(err.message) && /A1111_URLS/.test(err.message),
    );
    const config = parseConfig({ ENHANCE_FAST: "a1111:4x-UltraSharp", A1111_URLS: "http://127.0.0.1:7860" });
    assert.deepEqual(
      config.enhance.chains.fast.map((r) => r.id),
      ["a1111:4x-UltraSharp"],
    );
  });

  it("takes comfyui:<model file> routes where COMFYUI_URLS is set, and comfyui:workflow:<name> for a set workflow", () => {
    const { chains, issues } = parseEnhanceChains(
      {
        ENHANCE_QUALITY: "comfyui:4x-UltraSharp.pth,comfyui:sub dir/4x_NMKD+Siax.safetensors",
        ENHANCE_CREATIVE: "comfyui:workflow:supir",
        ENHANCE_FACES: "comfyui:workflow:missing",
      },
      keys("comfyui"),
      ["supir"],
    );
    assert.deepEqual(
      chains.quality.map((r) => [r.kind, r.target]),
      [
        ["comfyui", "4x-UltraSharp.pth"],
        ["comfyui", "sub dir/4x_NMKD+Siax.safetensors"],
      ],
    );
    assert.deepEqual(chains.creative, [{ kind: "comfyui", target: "workflow:supir", id: "comfyui:workflow:supir" }]);
    assert.deepEqual(
      issues.map((i) => [i.variable, i.message]),
      [
        [
          "ENHANCE_FACES",
          'comfyui:workflow:missing: no enhance workflow "missing": set COMFYUI_WORKFLOW_ENHANCE_MISSING to its API-format JSON file',
        ],
      ],
    );
    assert.throws(
      () => parseConfig({ ENHANCE_FAST: "comfyui:4x-UltraSharp.pth" }),
      (err) =>
        err instanceof ConfigError &&
        /ENHANCE_FAST: comfyui:4x-UltraSharp.pth: set COMFYUI_URLS to the servers to use it/.test(err.message),
    );
    const config = parseConfig({ ENHANCE_FAST: "comfyui:4x-UltraSharp.pth", COMFYUI_URLS: "http://127.0.0.1:8188" });
    assert.deepEqual(
      config.enhance.chains.fast.map((r) => r.id),
      ["comfyui:4x-UltraSharp.pth"],
    );
  });

  it("stops the server's configuration on a bad chain", () => {
    assert.throws(
      () => parseConfig({ ENHANCE_FACES: "replicate:sczhou/codeformer" }),
      (err) =>
        err instanceof ConfigError && /ENHANCE_FACES/.test(err.message) && /REPLICATE_API_TOKEN/.test(err.message),
    );
    const config = parseConfig({ ENHANCE_FACES: "replicate:sczhou/codeformer", REPLICATE_API_TOKEN: "r8_test" });
    assert.deepEqual(
      config.enhance.chains.faces.map((r) => r.id),
      ["replicate:sczhou/codeformer"],
    );
    assert.equal(config.enhance.faceRestorer, "gfpgan");
  });

  it("gives a start line with the licence terms for each mode whose routes use a face model", () => {
    const { chains } = parseEnhanceChains(
      { ENHANCE_FACES: "a1111:R-ESRGAN 4x+", ENHANCE_CREATIVE: "fal:fal-ai/codeformer" },
      keys("a1111", "fal"),
    );
    // The a1111 route restores faces with ENHANCE_FACE_RESTORER, which its name does not show.
    assert.deepEqual(licenceLines(chains, "gfpgan"), [
      "enhance mode faces: GFPGAN includes parts under non-commercial terms (see its licence).",
      "enhance mode creative: CodeFormer is under the S-Lab License 1.0: non-commercial use only.",
    ]);
    assert.match(licenceLines(chains, "codeformer")[0], /^enhance mode faces: CodeFormer/);
    assert.deepEqual(licenceLines(parseEnhanceChains({}, keys()).chains, "gfpgan"), []);
  });
});
