// Real generation end to end: one app with all four models' chains pointed at loopback fakes, through the public API.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import sharp from "sharp";
import { MODELS, type ModelName, type Ratio } from "@/lib/catalog/models";
import { CHAINS, type Fakes, startAllFakes } from "../fakes";
import type { Fake } from "../fakes/fake-server";
import { type App, startApp } from "../helpers/app";
import { BROWSER, call, generate, type Reply } from "../helpers/http";

const TIMEOUT_MS = 2500;
let app: App;
let fakes: Fakes;
let lastOctet = 20;
/** A fresh loopback address: a distinct Free client with an untouched bucket of 5. */
const nextIp = () => `127.0.0.${lastOctet++}`;

const MODEL_OF: Record<string, ModelName> = {
  MODEL_ALPHA_PRO: "alpha-pro",
  MODEL_BETA_3: "beta-3",
  MODEL_GAMMA_XL_1024_V1_0: "gamma-xl-1024-v1-0",
  MODEL_ALPHA_SCHNELL: "alpha-schnell",
};
const PROVIDER_TEXT =
  /safety system|Insufficient credits|Internal server error|overloaded|NSFW|Moderat|throttled|CONTENT_FILTERED/i;

before(async () => {
  fakes = await startAllFakes();
  app = await startApp({ name: "providers", env: { ...fakes.env, GENERATION_TIMEOUT_MS: String(TIMEOUT_MS) } });
});
after(async () => {
  await app?.stop();
  await fakes?.closeAll();
});
beforeEach(() => fakes.resetAll());

const fakeOf = (route: string): Fake => fakes[route.split(":")[0] as "bfl"];

function assertNoViolations() {
  for (const f of fakes.all) assert.deepEqual(f.violations, [], `${f.name} saw a malformed request`);
}

function assertFailure(res: Reply, status: number, code: string) {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status} ${res.text}`);
  assert.equal(res.json.error.code, code);
  assert.doesNotMatch(res.json.error.message, PROVIDER_TEXT, "no provider text reaches the caller");
  assert.equal(Number(res.headers["x-ratelimit-remaining"]), 5, "the unit was refunded");
}

async function usageOf(from: string): Promise<number> {
  const res = await call(app.url, "/api/status", { headers: BROWSER, from });
  return res.json.usage_today;
}

async function statusRecord() {
  return (await call(app.url, "/api/status", { headers: BROWSER, from: nextIp() })).json;
}

describe("status", () => {
  it("lists each model's active route and full chain, configured", async () => {
    const s = await statusRecord();
    for (const [variable, chain] of Object.entries(CHAINS)) {
      const m = s.models.find((x: { name: string }) => x.name === MODEL_OF[variable]);
      assert.equal(m.engine, chain[0]);
      assert.equal(m.configured, true);
      assert.equal(m.ai, true);
      assert.deepEqual(
        m.routes.map((r: { route: string }) => r.route),
        chain,
      );
    }
  });
});

describe("each model through each of its routes", () => {
  const ratios: Ratio[] = ["16:9", "1:1", "9:16"];
  for (const [variable, chain] of Object.entries(CHAINS)) {
    const model = MODEL_OF[variable];
    chain.forEach((route, index) => {
      it(`${model} → ${route}`, async () => {
        for (const earlier of chain.slice(0, index)) {
          if (earlier === "openai:gpt-image-1") fakeOf(earlier).variant = "gpt-image-down";
          else fakeOf(earlier).mode = "error";
        }
        const ratio = ratios[index % 3];
        const from = nextIp();
        const res = await generate(
          app.url,
          { prompt: "a lighthouse at dusk", model, ratio, style: "Anime", seed: 4242, negative_prompt: "blurry" },
          { from },
        );
        assert.equal(res.status, 200, res.text);
        const { width, height } = MODELS[model].sizes[ratio];
        assert.equal(res.json.engine, route);
        assert.equal(res.json.ai, true);
        assert.deepEqual([res.json.width, res.json.height], [width, height]);
        if (!route.startsWith("openai:")) assert.equal(res.json.seed, 4242);
        assert.equal(Number(res.headers["x-ratelimit-remaining"]), 4);

        const img = await call(app.url, new URL(res.json.url).pathname);
        assert.equal(img.status, 200);
        const meta = await sharp(img.body).metadata();
        assert.deepEqual(
          [meta.format, meta.width, meta.height],
          ["png", width, height],
          "stored PNG at the model's size",
        );
        assert.ok(fakeOf(route).requests.length > 0, "the fake for the route was called");
        assertNoViolations();
      });
    });
  }
});

describe("moderation maps to content_filtered, with the quota intact", () => {
  const cases: [string, ModelName, () => void][] = [
    ["OpenAI content_policy_violation", "beta-3", () => (fakes.openai.mode = "moderate")],
    ["Stability CONTENT_FILTERED on HTTP 200", "gamma-xl-1024-v1-0", () => (fakes.stability.mode = "moderate")],
    ["BFL Request Moderated", "alpha-pro", () => (fakes.bfl.mode = "moderate")],
    [
      "BFL Content Moderated",
      "alpha-pro",
      () => {
        fakes.bfl.mode = "moderate";
        fakes.bfl.variant = "content";
      },
    ],
    [
      "fal has_nsfw_concepts",
      "alpha-schnell",
      () => {
        fakes.together.mode = "error";
        fakes.fal.mode = "moderate";
      },
    ],
  ];
  for (const [name, model, setUp] of cases) {
    it(name, async () => {
      setUp();
      const from = nextIp();
      const res = await generate(app.url, { prompt: "a lighthouse", model }, { from });
      assertFailure(res, 422, "content_filtered");
      assert.equal(await usageOf(from), 0);
      // Not retried on another provider.
      assert.equal(fakes.replicate.requests.length, 0);
    });
  }
});

describe("failures fall through the chain, then answer the contract's error", () => {
  it("falls back past a 5xx and an undecodable image", async () => {
    fakes.stability.mode = "error";
    fakes.fal.mode = "malformed";
    const res = await generate(app.url, { prompt: "a castle", model: "gamma-xl-1024-v1-0" }, { from: nextIp() });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.engine, "replicate:stability-ai/sdxl");
  });

  it("answers generation_failed when every route fails, refunds, and logs each failure with the request id", async () => {
    for (const f of [fakes.together, fakes.fal, fakes.replicate]) f.mode = "error";
    const from = nextIp();
    const res = await generate(app.url, { prompt: "a castle", model: "alpha-schnell" }, { from });
    assertFailure(res, 500, "generation_failed");
    assert.match(res.json.error.message, /retry/i);
    assert.equal(await usageOf(from), 0);
    const id = res.json.error.request_id;
    const lines = app
      .logs()
      .split("\n")
      .filter((l) => l.includes(id));
    for (const route of CHAINS.MODEL_ALPHA_SCHNELL)
      assert.ok(
        lines.some((l) => l.includes(`"route":"${route}"`)),
        `logged ${route}`,
      );
  });

  it("times out a hanging provider, stops BFL polling at the deadline, and moves on", async () => {
    fakes.bfl.mode = "hang";
    const started = Date.now();
    const res = await generate(app.url, { prompt: "a castle", model: "alpha-pro" }, { from: nextIp() });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.engine, "fal:fal-ai/flux-pro/v1.1");
    assert.ok(Date.now() - started >= TIMEOUT_MS);
    const polls = fakes.bfl.polls;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(fakes.bfl.polls, polls, "no BFL polls after the deadline");
  });

  it("answers generation_failed when every route times out", async () => {
    fakes.openai.mode = "hang";
    const from = nextIp();
    const res = await generate(app.url, { prompt: "a castle", model: "beta-3" }, { from });
    assertFailure(res, 500, "generation_failed");
    assert.equal(fakes.openai.requests.length, 2, "both routes were tried");
  });

  it("answers busy with Retry-After when every route is at capacity (429/402), never 200", async () => {
    fakes.bfl.mode = "capacity";
    fakes.bfl.variant = "402";
    for (const f of [fakes.fal, fakes.replicate, fakes.together]) f.mode = "capacity";
    const from = nextIp();
    const res = await generate(app.url, { prompt: "a castle", model: "alpha-pro" }, { from });
    assertFailure(res, 503, "busy");
    assert.ok(Number(res.headers["retry-after"]) >= 1);
    assert.equal(await usageOf(from), 0);
  });

  it("answers generation_failed when capacity and other failures mix", async () => {
    fakes.together.mode = "capacity";
    fakes.fal.mode = "error";
    fakes.replicate.mode = "capacity";
    const res = await generate(app.url, { prompt: "a castle", model: "alpha-schnell" }, { from: nextIp() });
    assertFailure(res, 500, "generation_failed");
  });

  it("reports degraded while a configured route's last 3 calls failed", async () => {
    fakes.stability.mode = "error";
    for (let i = 0; i < 3; i++) {
      const res = await generate(app.url, { prompt: "a castle", model: "gamma-xl-1024-v1-0" }, { from: nextIp() });
      assert.equal(res.json.engine, "fal:fal-ai/fast-sdxl");
    }
    let s = await statusRecord();
    assert.equal(s.status, "degraded");
    const route = () => s.models.find((m: { name: string }) => m.name === "gamma-xl-1024-v1-0").routes[0];
    assert.equal(route().failing, true);
    fakes.stability.mode = "ok";
    await generate(app.url, { prompt: "a castle", model: "gamma-xl-1024-v1-0" }, { from: nextIp() });
    s = await statusRecord();
    assert.equal(route().failing, false);
  });
});

describe("configuration", () => {
  it("refuses to start with a malformed route, naming the variable", async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ MODEL_ALPHA_PRO: "dalle:flux" }, /MODEL_ALPHA_PRO: "dalle:flux": unknown provider/],
      [{ MODEL_BETA_3: "openai:gpt-image-1", OPENAI_API_KEY: "" }, /MODEL_BETA_3: .*needs OPENAI_API_KEY/],
    ];
    for (const [env, message] of cases) {
      await assert.rejects(
        startApp({ name: "bad-route", env }),
        (err: Error) => /exited early \(1\)/.test(err.message) && message.test(err.message),
      );
    }
  });
});
