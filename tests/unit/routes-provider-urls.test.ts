// URLs a provider hands back (polling, status, results, redirects) cannot be turned against us: each provider route,
// in process against the loopback fakes, refuses them before connecting and the chain moves on.
import assert from "node:assert/strict";
import dc from "node:diagnostics_channel";
import { after, before, beforeEach, describe, it, type TestContext } from "node:test";
import { MODELS, type ModelName } from "@/lib/catalog/models";
import { applyStyle } from "@/lib/catalog/styles";
import { parseConfig } from "@/lib/config";
import { buildEngine } from "@/lib/engines";
import { ProviderError } from "@/lib/engines/failures";
import { createProviderCall } from "@/lib/engines/providers";
import type { GenerateJob, ImageEngine } from "@/lib/engines/types";
import { ChainExhausted } from "@/lib/errors";
import { type Fakes, startAllFakes } from "../fakes";
import { type Fake, startFake } from "../fakes/fake-server";
import { FAL_KEY } from "../fakes/fal";

let fakes: Fakes;
/** A second loopback server: what a hostile polling, result or redirect URL would point at. */
let elsewhere: Fake;
let engines: Record<ModelName, ImageEngine>;
const TIMEOUT_MS = 1500;

before(async () => {
  [fakes, elsewhere] = await Promise.all([
    startAllFakes(),
    startFake("elsewhere", () => ({ status: 404, json: { detail: "Not found." } })),
  ]);
  const config = parseConfig({ NODE_ENV: "test", ...fakes.env, GENERATION_TIMEOUT_MS: String(TIMEOUT_MS) });
  engines = {
    "alpha-pro": buildEngine("alpha-pro", config),
    "beta-3": buildEngine("beta-3", config),
    "gamma-xl-1024-v1-0": buildEngine("gamma-xl-1024-v1-0", config),
    "alpha-schnell": buildEngine("alpha-schnell", config),
  };
});
after(async () => {
  await Promise.all([fakes.closeAll(), elsewhere.close()]);
});
beforeEach(() => {
  fakes.resetAll();
  elsewhere.reset();
});

function jobFor(model: ModelName): GenerateJob {
  const { width, height } = MODELS[model].sizes["1:1"];
  return {
    prompt: "a lighthouse at dusk",
    styledPrompt: applyStyle("Cinematic", "a lighthouse at dusk"),
    model,
    style: "Cinematic",
    ratio: "1:1",
    width,
    height,
    requestId: "req_urls",
    signal: new AbortController().signal,
  };
}

/** Captures the chain's log lines for the test; returns the "provider route failed" entry of a route. */
function captureRouteFailures(t: TestContext) {
  const logged = t.mock.method(console, "log", () => undefined);
  return (route: string) => {
    const lines = logged.mock.calls.map((c) => JSON.parse(String(c.arguments[0])) as Record<string, unknown>);
    const entry = lines.find((l) => l.msg === "provider route failed" && l.route === route);
    assert.ok(entry, `a failure of ${route} was logged`);
    return entry as { kind: string; detail: string };
  };
}

function assertNothingReachedElsewhere() {
  assert.equal(elsewhere.requests.length, 0, "the other origin was never contacted");
}

describe("polling URLs", () => {
  it("refuses BFL's polling_url on another origin: the key never leaves and the chain moves on", async (t) => {
    fakes.bfl.foreign.polling = elsewhere.url;
    const failureOf = captureRouteFailures(t);
    const image = await engines["alpha-pro"].generate(jobFor("alpha-pro"));
    assert.equal(image.engine, "fal:fal-ai/flux-pro/v1.1");
    assert.ok(!elsewhere.requests.some((r) => r.headers["x-key"] !== undefined), "x-key never reached it");
    assertNothingReachedElsewhere();
    assert.equal(fakes.bfl.requests.length, 1, "BFL took the submit only");
    const failure = failureOf("bfl:flux-pro-1.1");
    assert.equal(failure.kind, "malformed");
    // Logs may scrub addresses in text down to their network, so only the address's prefix is pinned.
    assert.match(failure.detail, /^refused http:\/\/127\.0\.0\.\S+: 127\.0\.0\.\S+ is not one of bfl's hosts$/);
  });

  it("refuses Replicate's urls.get on another origin", async (t) => {
    for (const f of [fakes.together, fakes.fal]) f.mode = "error";
    fakes.replicate.pendingPolls = 1;
    fakes.replicate.foreign.polling = elsewhere.url;
    const failureOf = captureRouteFailures(t);
    await assert.rejects(engines["alpha-schnell"].generate(jobFor("alpha-schnell")), ChainExhausted);
    assertNothingReachedElsewhere();
    assert.match(failureOf("replicate:black-forest-labs/flux-schnell").detail, /is not one of replicate's hosts/);
  });
});

describe("result URLs outside the provider's hosts", () => {
  // localhost is another origin than the configured 127.0.0.1 base URL, and no provider's host.
  const elsewhereByName = () => elsewhere.url.replace("127.0.0.1", "localhost");
  // [what, model, set-up, the route that must refuse, the provider that must answer instead ("" = none left)]
  const cases: [string, ModelName, () => void, string, string][] = [
    ["BFL result.sample", "alpha-pro", () => (fakes.bfl.foreign.result = elsewhereByName()), "bfl:flux-pro-1.1", "fal"],
    [
      "fal images[].url",
      "alpha-schnell",
      () => {
        fakes.together.mode = "error";
        fakes.fal.foreign.result = elsewhereByName();
      },
      "fal:fal-ai/flux/schnell",
      "replicate",
    ],
    [
      "Replicate output",
      "gamma-xl-1024-v1-0",
      () => {
        fakes.stability.mode = "error";
        fakes.fal.mode = "error";
        fakes.replicate.foreign.result = elsewhereByName();
      },
      "replicate:stability-ai/sdxl",
      "",
    ],
  ];
  for (const [name, model, setUp, route, next] of cases) {
    it(`refuses ${name} and falls through`, async (t) => {
      setUp();
      const failureOf = captureRouteFailures(t);
      const work = engines[model].generate(jobFor(model));
      if (next) assert.match((await work).engine ?? "", new RegExp(`^${next}:`));
      else await assert.rejects(work, ChainExhausted);
      assertNothingReachedElsewhere();
      const failure = failureOf(route);
      assert.equal(failure.kind, "malformed");
      const provider = route.split(":")[0];
      assert.match(
        failure.detail,
        new RegExp(`^refused http://localhost:\\d+: localhost is not one of ${provider}'s hosts$`),
      );
    });
  }
});

describe("result URLs on a private address", () => {
  it("refuses a provider host that resolves to 10.0.0.1, before any connection to it", async () => {
    // fal's real image host, resolved by a stub: the guard must check the answer and never connect.
    fakes.fal.foreign.result = "https://v3.fal.media";
    let socketsOpened = 0;
    let socketsAtResolve = -1;
    const countSocket = () => socketsOpened++;
    dc.subscribe("net.client.socket", countSocket);
    const asked: string[] = [];
    const call = createProviderCall("fal", "fal-ai/flux/schnell", {
      apiKey: FAL_KEY,
      baseUrl: fakes.fal.url,
      resolve: async (hostname) => {
        asked.push(hostname);
        socketsAtResolve = socketsOpened;
        return [{ address: "10.0.0.1", family: 4 }];
      },
    });
    const job = jobFor("alpha-schnell");
    try {
      await assert.rejects(
        call({ job, signal: job.signal, timeoutMs: TIMEOUT_MS }),
        (err: unknown) =>
          err instanceof ProviderError &&
          err.kind === "malformed" &&
          err.message === "refused https://v3.fal.media: v3.fal.media is at 10.0.0.1, a private address",
      );
    } finally {
      dc.unsubscribe("net.client.socket", countSocket);
    }
    assert.deepEqual(asked, ["v3.fal.media"], "the configured 127.0.0.1 base needed no lookup");
    assert.equal(socketsOpened, socketsAtResolve, "no connection was attempted after the lookup");
    assert.equal(fakes.fal.requests.length, 1, "the fal API itself was called");
  });
});

describe("redirects", () => {
  it("never carries BFL's x-key to another origin a redirect names", async (t) => {
    fakes.bfl.redirectTo = elsewhere.url;
    const failureOf = captureRouteFailures(t);
    const image = await engines["alpha-pro"].generate(jobFor("alpha-pro"));
    assert.equal(image.engine, "fal:fal-ai/flux-pro/v1.1");
    assert.ok(!elsewhere.requests.some((r) => r.headers["x-key"] !== undefined), "x-key never reached it");
    assertNothingReachedElsewhere();
    assert.match(failureOf("bfl:flux-pro-1.1").detail, /is not one of bfl's hosts/);
  });

  it("never carries Replicate's token to another origin a redirect names", async () => {
    for (const f of [fakes.together, fakes.fal]) f.mode = "error";
    fakes.replicate.redirectTo = elsewhere.url;
    await assert.rejects(engines["alpha-schnell"].generate(jobFor("alpha-schnell")), ChainExhausted);
    assert.ok(!elsewhere.requests.some((r) => r.headers.authorization !== undefined), "no Authorization reached it");
    assertNothingReachedElsewhere();
  });
});
