// Every provider adapter and the fallback chain, in process against the loopback fakes (fast, no app build).
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import sharp from "sharp";
import { MODELS, type ModelName, type Ratio } from "@/lib/catalog/models";
import { applyStyle, type StyleName } from "@/lib/catalog/styles";
import { parseConfig } from "@/lib/config";
import { buildEngine, createEngineShared } from "@/lib/engines";
import type { GenerateJob, ImageEngine, WorkProgress } from "@/lib/engines/types";
import { ChainExhausted, Moderated, WorkAborted } from "@/lib/errors";
import { CHAINS, type Fakes, startAllFakes } from "../fakes";
import type { Fake } from "../fakes/fake-server";

let fakes: Fakes;
let engines: Record<ModelName, ImageEngine>;
const shared = createEngineShared();
const TIMEOUT_MS = 1500;

before(async () => {
  fakes = await startAllFakes();
  const config = parseConfig({ NODE_ENV: "test", ...fakes.env, GENERATION_TIMEOUT_MS: String(TIMEOUT_MS) });
  engines = {
    "alpha-pro": buildEngine("alpha-pro", config, shared),
    "beta-3": buildEngine("beta-3", config, shared),
    "gamma-xl-1024-v1-0": buildEngine("gamma-xl-1024-v1-0", config, shared),
    "alpha-schnell": buildEngine("alpha-schnell", config, shared),
  };
});
after(() => fakes.closeAll());
beforeEach(() => fakes.resetAll());

function jobFor(model: ModelName, ratio: Ratio, extra: Partial<GenerateJob> = {}): GenerateJob {
  const style: StyleName = extra.style ?? "Cinematic";
  const { width, height } = MODELS[model].sizes[ratio];
  return {
    prompt: "a lighthouse at dusk",
    styledPrompt: applyStyle(style, "a lighthouse at dusk"),
    model,
    style,
    ratio,
    width,
    height,
    requestId: "req_unit",
    signal: new AbortController().signal,
    ...extra,
  };
}

function assertNoViolations() {
  for (const f of fakes.all) assert.deepEqual(f.violations, [], `${f.name} saw a malformed request`);
}

async function assertPng(png: Buffer, width: number, height: number) {
  const meta = await sharp(png).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ["png", width, height]);
}

const fakeOf = (route: string): Fake => fakes[route.split(":")[0] as "bfl"];

describe("each route of each model", () => {
  const ratios: Ratio[] = ["1:1", "16:9", "9:16"];
  for (const [variable, chain] of Object.entries(CHAINS)) {
    const model = variable.replace("MODEL_", "").toLowerCase().replace(/_/g, "-") as ModelName;
    chain.forEach((route, index) => {
      it(`${model} → ${route} (after ${index} failed route${index === 1 ? "" : "s"})`, async () => {
        for (const earlier of chain.slice(0, index)) {
          const fake = fakeOf(earlier);
          if (earlier === "openai:gpt-image-1") fake.variant = "gpt-image-down";
          else fake.mode = "error";
        }
        const ratio = ratios[index % 3];
        const job = jobFor(model, ratio, { seed: 77, negativePrompt: "blurry" });
        const image = await engines[model].generate(job);
        assert.equal(image.engine, route);
        assert.equal(image.ai, true);
        await assertPng(image.png, job.width, job.height);
        if (!route.startsWith("openai:")) assert.equal(image.seed, 77);
        assertNoViolations();
      });
    });
  }
});

describe("request details", () => {
  it("uses Stability's native style_preset with the raw prompt, and sends the negative prompt", async () => {
    await engines["gamma-xl-1024-v1-0"].generate(
      jobFor("gamma-xl-1024-v1-0", "16:9", { negativePrompt: "text, watermark", seed: 5 }),
    );
    const body = fakes.stability.requests[0].body as {
      text_prompts: { text: string; weight: number }[];
      style_preset: string;
      width: number;
      height: number;
      seed: number;
    };
    assert.equal(body.style_preset, "cinematic");
    assert.deepEqual(body.text_prompts, [
      { text: "a lighthouse at dusk", weight: 1 },
      { text: "text, watermark", weight: -1 },
    ]);
    assert.deepEqual([body.width, body.height, body.seed], [1344, 768, 5]);
  });

  it("asks OpenAI for n images in one call, and routes with a seed per call for one", async () => {
    const job = jobFor("beta-3", "1:1", { count: 4 });
    assert.equal(engines["beta-3"].batchSize?.(job), 4);
    const image = await engines["beta-3"].generate(job);
    assert.equal(fakes.openai.requests.length, 1, "one /v1/images/generations call");
    assert.equal((fakes.openai.requests[0].body as { n: number }).n, 4);
    assert.equal(image.more?.length, 3);
    for (const made of [image, ...(image.more ?? [])]) {
      await assertPng(made.png, job.width, job.height);
      assert.equal(made.engine, "openai:gpt-image-1");
    }
    // BFL takes one seed per call: four images would be four calls, so its chain does not batch.
    assert.equal(engines["alpha-pro"].batchSize?.(jobFor("alpha-pro", "1:1", { count: 4 })), 1);
    assertNoViolations();
  });

  it("sends the styled prompt where there is no native preset", async () => {
    await engines["gamma-xl-1024-v1-0"].generate(jobFor("gamma-xl-1024-v1-0", "1:1", { style: "Watercolor" }));
    const body = fakes.stability.requests[0].body as { text_prompts: { text: string }[]; style_preset?: string };
    assert.equal(body.style_preset, undefined);
    assert.match(body.text_prompts[0].text, /^watercolor painting of a lighthouse at dusk/);
  });

  it("asks BFL for exact FLUX dimensions and follows the returned polling URL", async () => {
    const image = await engines["alpha-pro"].generate(jobFor("alpha-pro", "9:16"));
    const submit = fakes.bfl.requests[0].body as { width: number; height: number };
    assert.deepEqual([submit.width, submit.height], [768, 1376]);
    assert.ok(fakes.bfl.polls >= 2, "polled past Pending");
    assert.equal(image.seed, 1234, "seed reported by BFL");
  });

  it("reports each route it sends to and the provider's state while polling (BFL and Replicate)", async () => {
    const seen: WorkProgress[] = [];
    // One "Pending" answer, then "Ready": within this suite's short route deadline.
    fakes.bfl.pendingPolls = 1;
    await engines["alpha-pro"].generate(jobFor("alpha-pro", "1:1", { onProgress: (p) => seen.push(p) }));
    assert.deepEqual(seen[0], { fraction: null, stage: "sent to bfl:flux-pro-1.1" });
    assert.ok(
      seen.some((p) => p.stage === "bfl: pending" && p.fraction === 0.4),
      JSON.stringify(seen),
    );
    assert.ok(
      seen.some((p) => p.stage === "bfl: ready"),
      JSON.stringify(seen),
    );

    const fromReplicate: WorkProgress[] = [];
    fakes.bfl.mode = "error";
    fakes.fal.mode = "error";
    fakes.replicate.pendingPolls = 1;
    await engines["alpha-pro"].generate(jobFor("alpha-pro", "1:1", { onProgress: (p) => fromReplicate.push(p) }));
    assert.ok(
      fromReplicate.some((p) => /^replicate: (starting|processing)$/.test(p.stage)),
      JSON.stringify(fromReplicate),
    );
  });

  it("polls Replicate when Prefer: wait runs out", async () => {
    fakes.bfl.mode = "error";
    fakes.fal.mode = "error";
    fakes.replicate.pendingPolls = 1;
    const image = await engines["alpha-pro"].generate(jobFor("alpha-pro", "1:1"));
    assert.equal(image.engine, "replicate:black-forest-labs/flux-1.1-pro");
    assert.ok(fakes.replicate.polls >= 1);
  });
});

describe("failures", () => {
  // [name, model, set-up, fakes that must not be called after the moderating provider]
  const moderation: [string, ModelName, () => void, () => Fake[]][] = [
    [
      "BFL Request Moderated",
      "alpha-pro",
      () => (fakes.bfl.mode = "moderate"),
      () => [fakes.fal, fakes.replicate, fakes.together],
    ],
    [
      "BFL Content Moderated",
      "alpha-pro",
      () => {
        fakes.bfl.mode = "moderate";
        fakes.bfl.variant = "content";
      },
      () => [fakes.fal, fakes.replicate, fakes.together],
    ],
    [
      "fal has_nsfw_concepts",
      "alpha-schnell",
      () => {
        fakes.together.mode = "error";
        fakes.fal.mode = "moderate";
      },
      () => [fakes.replicate],
    ],
    ["OpenAI content_policy_violation", "beta-3", () => (fakes.openai.mode = "moderate"), () => []],
    [
      "OpenAI moderation_blocked",
      "beta-3",
      () => {
        fakes.openai.mode = "moderate";
        fakes.openai.variant = "blocked";
      },
      () => [],
    ],
    [
      "Stability CONTENT_FILTERED on HTTP 200",
      "gamma-xl-1024-v1-0",
      () => (fakes.stability.mode = "moderate"),
      () => [fakes.fal, fakes.replicate],
    ],
    [
      "Replicate NSFW failure",
      "gamma-xl-1024-v1-0",
      () => {
        fakes.stability.mode = "error";
        fakes.fal.mode = "error";
        fakes.replicate.mode = "moderate";
      },
      () => [],
    ],
  ];
  for (const [name, model, setUp, untouched] of moderation) {
    it(`maps ${name} to content_filtered without trying the next route`, async () => {
      setUp();
      await assert.rejects(engines[model].generate(jobFor(model, "1:1")), (err: unknown) => err instanceof Moderated);
      for (const f of untouched()) assert.equal(f.requests.length, 0, `${f.name} was called after moderation`);
      if (model === "beta-3") assert.equal(fakes.openai.requests.length, 1, "the compatible route was not tried");
    });
  }

  it("falls through on 5xx, malformed answers, undecodable images and timeouts", async () => {
    fakes.bfl.mode = "hang";
    fakes.fal.mode = "malformed";
    fakes.replicate.mode = "error";
    const started = Date.now();
    const image = await engines["alpha-pro"].generate(jobFor("alpha-pro", "1:1"));
    assert.equal(image.engine, "together:black-forest-labs/FLUX.1.1-pro");
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= TIMEOUT_MS && elapsed < TIMEOUT_MS + 3000, `took ${elapsed} ms`);
    // BFL polling stopped at the deadline.
    const polls = fakes.bfl.polls;
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(fakes.bfl.polls, polls, "no polling after the deadline");
  });

  it("answers generation_failed when the chain is exhausted", async () => {
    for (const f of [fakes.together, fakes.fal]) f.mode = "error";
    fakes.replicate.mode = "hang";
    await assert.rejects(
      engines["alpha-schnell"].generate(jobFor("alpha-schnell", "1:1")),
      (err: unknown) => err instanceof ChainExhausted && !err.allAtCapacity,
    );
  });

  it("answers busy with Retry-After when every route is at capacity (429/402)", async () => {
    fakes.bfl.mode = "capacity";
    fakes.bfl.variant = "402";
    for (const f of [fakes.fal, fakes.replicate, fakes.together]) f.mode = "capacity";
    await assert.rejects(
      engines["alpha-pro"].generate(jobFor("alpha-pro", "1:1")),
      (err: unknown) => err instanceof ChainExhausted && err.allAtCapacity && (err.retryAfterS ?? 0) >= 1,
    );
  });

  it("answers generation_failed when capacity and other failures mix", async () => {
    for (const f of [fakes.together, fakes.fal]) f.mode = "capacity";
    fakes.replicate.mode = "error";
    await assert.rejects(
      engines["alpha-schnell"].generate(jobFor("alpha-schnell", "1:1")),
      (err: unknown) => err instanceof ChainExhausted && !err.allAtCapacity,
    );
  });

  it("marks a route failing after its last 3 calls failed, and healthy again after a success", async () => {
    fakes.openai.variant = "gpt-image-down";
    for (let i = 0; i < 3; i++) await engines["beta-3"].generate(jobFor("beta-3", "1:1"));
    assert.equal(shared.health.isFailing("openai:gpt-image-1"), true);
    fakes.openai.variant = "";
    await engines["beta-3"].generate(jobFor("beta-3", "1:1"));
    assert.equal(shared.health.isFailing("openai:gpt-image-1"), false);
  });

  it("stops at once when the client goes away", async () => {
    fakes.bfl.mode = "hang";
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    await assert.rejects(
      engines["alpha-pro"].generate(jobFor("alpha-pro", "1:1", { signal: controller.signal })),
      WorkAborted,
    );
    assert.ok(Date.now() - started < 1000);
    assert.equal(fakes.fal.requests.length, 0, "no further routes after a disconnect");
  });
});
