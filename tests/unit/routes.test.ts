// MODEL_* route parsing, defaults and start-time config errors, plus the size/crop rules every provider output obeys.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import sharp from "sharp";
import { MODEL_NAMES, MODELS, RATIOS } from "@/lib/catalog/models";
import { ConfigError, parseConfig } from "@/lib/config";
import { normalizeImage } from "@/lib/engines/normalize";
import { OPENAI_SIZES } from "@/lib/engines/providers/openai";
import { defaultChain, type ProviderRouteEnv, parseChain } from "@/lib/engines/routes";
import { imageOf, NOT_AN_IMAGE } from "../fakes/fake-server";

const ALL_KEYS: ProviderRouteEnv = {
  credentials: { bfl: "k", openai: "k", stability: "k", fal: "k", replicate: "k", together: "k" },
  baseUrls: {},
};
/** Next's typings require NODE_ENV in any ProcessEnv. */
const envOf = (vars: Record<string, string>): NodeJS.ProcessEnv => ({ NODE_ENV: "test", ...vars });
const ids = (chain: { id: string }[]) => chain.map((r) => r.id);

describe("route parser", () => {
  it("accepts every documented route, and chains of them in order", () => {
    const chain = parseChain(
      "alpha-pro",
      "bfl:flux-pro-1.1, fal:fal-ai/flux-pro/v1.1,replicate:black-forest-labs/flux-1.1-pro,together:black-forest-labs/FLUX.1.1-pro,preview",
      ALL_KEYS,
    );
    assert.deepEqual(chain.errors, []);
    assert.deepEqual(ids(chain.routes), [
      "bfl:flux-pro-1.1",
      "fal:fal-ai/flux-pro/v1.1",
      "replicate:black-forest-labs/flux-1.1-pro",
      "together:black-forest-labs/FLUX.1.1-pro",
      "preview",
    ]);
    for (const [model, value] of [
      ["beta-3", "openai:gpt-image-1"],
      [
        "gamma-xl-1024-v1-0",
        "stability:stable-diffusion-xl-1024-v1-0,fal:fal-ai/fast-sdxl,replicate:stability-ai/sdxl",
      ],
      [
        "alpha-schnell",
        "together:black-forest-labs/FLUX.1-schnell,fal:fal-ai/flux/schnell,replicate:black-forest-labs/flux-schnell",
      ],
    ] as const) {
      assert.deepEqual(parseChain(model, value, ALL_KEYS).errors, [], value);
    }
  });

  it("names what is wrong with a malformed value", () => {
    const cases: [string, RegExp][] = [
      ["flux", /not of the form provider:model-id/],
      ["midjourney:v6", /unknown provider "midjourney"/],
      ["bfl:flux-dev", /not a route for alpha-pro/],
      ["openai:gpt-image-1", /not a route for alpha-pro/],
      ["bfl:flux-pro-1.1,,fal:fal-ai/flux-pro/v1.1", /empty entry/],
      ["bfl:flux-pro-1.1,bfl:flux-pro-1.1", /listed twice/],
      ["preview,bfl:flux-pro-1.1", /preview never fails/],
      ["replicate:black-forest-labs/flux-1.1-pro:notahash", /not a route/],
    ];
    for (const [value, message] of cases) {
      const { errors } = parseChain("alpha-pro", value, ALL_KEYS);
      assert.ok(
        errors.some((e) => message.test(e)),
        `${value} → ${errors.join("; ")}`,
      );
    }
  });

  it("refuses a route whose credential is not set", () => {
    const { errors } = parseChain("alpha-pro", "bfl:flux-pro-1.1", { credentials: {}, baseUrls: {} });
    assert.match(errors[0], /needs BFL_API_KEY/);
  });

  it("allows any model id for openai only behind an OpenAI-compatible base URL", () => {
    assert.match(parseChain("beta-3", "openai:stablediffusion", ALL_KEYS).errors[0], /not a route for beta-3/);
    const compatible = { ...ALL_KEYS, baseUrls: { openai: "http://localai:8080/v1" } };
    assert.deepEqual(ids(parseChain("beta-3", "openai:stablediffusion", compatible).routes), [
      "openai:stablediffusion",
    ]);
  });

  it("accepts a pinned Replicate version", () => {
    const value = `replicate:stability-ai/sdxl:${"a".repeat(64)}`;
    assert.deepEqual(parseChain("gamma-xl-1024-v1-0", value, ALL_KEYS).errors, []);
  });

  it("defaults to the first listed route with credentials, else preview", () => {
    assert.deepEqual(ids(defaultChain("alpha-pro", { credentials: {}, baseUrls: {} })), ["preview"]);
    assert.deepEqual(ids(defaultChain("alpha-pro", { credentials: { replicate: "r", together: "t" }, baseUrls: {} })), [
      "replicate:black-forest-labs/flux-1.1-pro",
    ]);
    assert.deepEqual(ids(defaultChain("alpha-schnell", { credentials: { fal: "f", replicate: "r" }, baseUrls: {} })), [
      "fal:fal-ai/flux/schnell",
    ]);
    assert.deepEqual(ids(defaultChain("beta-3", { credentials: { fal: "f" }, baseUrls: {} })), ["preview"]);
  });
});

describe("provider config at start", () => {
  it("resolves chains, credentials, base URLs and the timeout", () => {
    const config = parseConfig(
      envOf({
        MODEL_ALPHA_PRO: "bfl:flux-pro-1.1,preview",
        BFL_API_KEY: "key",
        BFL_BASE_URL: "http://127.0.0.1:9/v1",
        FAL_KEY: "fal",
        GENERATION_TIMEOUT_MS: "1500",
      }),
    );
    assert.deepEqual(ids(config.generation.chains["alpha-pro"]), ["bfl:flux-pro-1.1", "preview"]);
    assert.deepEqual(ids(config.generation.chains["alpha-schnell"]), ["fal:fal-ai/flux/schnell"]);
    assert.deepEqual(ids(config.generation.chains["beta-3"]), ["preview"]);
    assert.equal(config.generation.providers.baseUrls.bfl, "http://127.0.0.1:9/v1");
    assert.equal(config.generation.timeoutMs, 1500);
    assert.equal(parseConfig(envOf({})).generation.timeoutMs, 60_000);
  });

  it("fails with a message naming the variable and the problem", () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ MODEL_ALPHA_PRO: "nope:thing" }, /MODEL_ALPHA_PRO: "nope:thing": unknown provider/],
      [{ MODEL_BETA_3: "openai:gpt-image-1" }, /MODEL_BETA_3: .*needs OPENAI_API_KEY/],
      [
        { MODEL_GAMMA_XL_1024_V1_0: "stability:stable-diffusion-v1-6", STABILITY_API_KEY: "k" },
        /MODEL_GAMMA_XL_1024_V1_0: .*not a route/,
      ],
      [{ FAL_BASE_URL: "ftp://example.com" }, /FAL_BASE_URL/],
      [{ GENERATION_TIMEOUT_MS: "fast" }, /GENERATION_TIMEOUT_MS/],
    ];
    for (const [env, message] of bad) {
      assert.throws(
        () => parseConfig(envOf(env)),
        (err: unknown) => err instanceof ConfigError && message.test(err.message),
        JSON.stringify(env),
      );
    }
  });
});

describe("sizes per model and ratio", () => {
  const SDXL_V1 = [
    "1024x1024",
    "1152x896",
    "1216x832",
    "1344x768",
    "1536x640",
    "640x1536",
    "768x1344",
    "832x1216",
    "896x1152",
  ];
  const TARGET: Record<string, number> = { "1:1": 1, "16:9": 16 / 9, "9:16": 9 / 16 };

  it("matches the ratio within 3 % with a short side of at least 512", () => {
    for (const model of MODEL_NAMES) {
      for (const ratio of RATIOS) {
        const { width, height } = MODELS[model].sizes[ratio];
        assert.ok(Math.abs(width / height / TARGET[ratio] - 1) <= 0.03, `${model} ${ratio}`);
        assert.ok(Math.min(width, height) >= 512, `${model} ${ratio}`);
      }
    }
  });

  it("keeps FLUX sizes to multiples of 32 in 256–1440 and SDXL to its nine sizes", () => {
    for (const model of ["alpha-pro", "alpha-schnell"] as const) {
      for (const { width, height } of Object.values(MODELS[model].sizes)) {
        for (const n of [width, height]) assert.ok(n % 32 === 0 && n >= 256 && n <= 1440, `${model} ${n}`);
      }
    }
    for (const { width, height } of Object.values(MODELS["gamma-xl-1024-v1-0"].sizes))
      assert.ok(SDXL_V1.includes(`${width}x${height}`));
  });

  it("asks gpt-image-1 for 1536×1024 and centre-crops it to 1536×864 for 16:9", async () => {
    assert.equal(OPENAI_SIZES["16:9"], "1536x1024");
    assert.deepEqual(MODELS["beta-3"].sizes["16:9"], { width: 1536, height: 864 });
    const png = await normalizeImage(await imageOf(1536, 1024), 1536, 864);
    const meta = await sharp(png).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ["png", 1536, 864]);
    // Centre crop: the top 80 rows are cut, so the first row is the source's row 80 (green ≈ 80·255/1024).
    const { data } = await sharp(png)
      .extract({ left: 0, top: 0, width: 1, height: 1 })
      .raw()
      .toBuffer({ resolveWithObject: true });
    assert.ok(Math.abs(data[1] - (80 * 255) / 1024) <= 2, `green ${data[1]}`);
  });

  it("re-encodes JPEG and near-size outputs to the exact PNG size, and rejects undecodable bytes", async () => {
    const png = await normalizeImage(await imageOf(1344, 768, "jpeg"), 1376, 768);
    const meta = await sharp(png).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ["png", 1376, 768]);
    await assert.rejects(normalizeImage(NOT_AN_IMAGE, 1024, 1024), { name: "ProviderError", kind: "malformed" });
  });
});
