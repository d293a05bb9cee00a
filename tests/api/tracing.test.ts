// Traces: with OTEL_EXPORTER_OTLP_ENDPOINT set, the built app (under server.ts) exports over OTLP/HTTP to a loopback
// receiver, in the default http/protobuf encoding: one generate request is one trace, with a span per route attempt
// and spans for the quota take and the storage write.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Fakes, startAllFakes } from "../fakes";
import { type App, startApp } from "../helpers/app";
import { enhance, generate } from "../helpers/http";
import { pngOf } from "../helpers/images";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../helpers/otlp-receiver";

let fakes: Fakes;
let receiver: OtlpReceiver;
let app: App;

before(async () => {
  fakes = await startAllFakes();
  receiver = await startOtlpReceiver();
  app = await startApp({
    name: "tracing",
    env: {
      ...fakes.env,
      MODEL_ALPHA_PRO: "bfl:flux-pro-1.1,fal:fal-ai/flux-pro/v1.1",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "darkroom-test",
      // Export each batch quickly rather than after the default 5 s.
      OTEL_BSP_SCHEDULE_DELAY: "200",
    },
  });
});
after(async () => {
  await app?.stop();
  await receiver?.close();
  await fakes?.closeAll();
});

/** Asserts every span of a trace reaches its one root, a server span named `rootName`; returns the trace. */
function traceOf(traceId: string, rootName: RegExp): ReceivedSpan[] {
  const trace = receiver.spans.filter((s) => s.traceId === traceId);
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  const roots = trace.filter((s) => s.parentSpanId === "");
  assert.equal(roots.length, 1, `roots: ${roots.map((s) => s.name).join(", ")}`);
  assert.match(roots[0].name, rootName);
  for (const s of trace) {
    let at: ReceivedSpan | undefined = s;
    for (let hops = 0; at && at.parentSpanId !== ""; hops++) {
      assert.ok(hops < 50);
      at = byId.get(at.parentSpanId);
    }
    assert.equal(at, roots[0], `${s.name} reaches the root`);
  }
  return trace;
}

async function spansUntil(done: (spans: ReceivedSpan[]) => boolean, ms = 20_000): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + ms;
  while (!done(receiver.spans)) {
    if (Date.now() > deadline) {
      throw new Error(`spans so far: ${receiver.spans.map((s) => s.name).join(", ")}\n${app.logs()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return receiver.spans;
}

describe("traces over OTLP", () => {
  it("one generate request is one trace with a span per route attempt, the quota take and the storage write", async () => {
    fakes.bfl.mode = "error"; // the first route fails, the second serves the image
    const res = await generate(app.url, { prompt: "a lighthouse at dusk", model: "alpha-pro" }, { from: "127.0.5.1" });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.engine, "fal:fal-ai/flux-pro/v1.1");

    const spans = await spansUntil((all) => all.filter((s) => s.name === "darkroom.route_attempt").length >= 2);
    assert.ok(
      receiver.contentTypes.every((t) => t === "application/x-protobuf"),
      receiver.contentTypes.join(),
    );
    const attempts = spans.filter((s) => s.name === "darkroom.route_attempt");
    assert.equal(attempts.length, 2);
    const traceId = attempts[0].traceId;
    assert.equal(attempts[1].traceId, traceId, "both attempts belong to one trace");
    assert.deepEqual(
      attempts.map((s) => [s.attributes["darkroom.route"], s.attributes["darkroom.outcome"]]),
      [
        ["bfl:flux-pro-1.1", "failed"],
        ["fal:fal-ai/flux-pro/v1.1", "ok"],
      ],
    );
    await spansUntil((all) => all.some((s) => s.traceId === traceId && s.parentSpanId === ""));
    // The root is the server span of the request, which Next names after the route.
    const trace = traceOf(traceId, /^POST \/api\/generate/);
    assert.equal(trace.find((s) => s.parentSpanId === "")?.service, "darkroom-test");
    for (const name of ["darkroom.quota_take", "darkroom.storage_write"]) {
      assert.equal(trace.filter((s) => s.name === name).length, 1, `one ${name} span`);
    }
    // No other trace holds any of this request's work.
    const others = receiver.spans.filter((s) => s.traceId !== traceId && s.name.startsWith("darkroom."));
    assert.deepEqual(
      others.map((s) => s.name),
      [],
    );
    // The prompt is not recorded anywhere.
    assert.ok(!JSON.stringify(trace).includes("lighthouse"));
  });

  it("an enhance request's trace holds a span per tile and the storage write", async () => {
    const before = new Set(receiver.spans.map((s) => s.traceId));
    const res = await enhance(
      app.url,
      { image: { data: await pngOf(300, 120), type: "image/png" } },
      { from: "127.0.5.2" },
    );
    assert.equal(res.status, 200, res.text);
    const spans = await spansUntil((all) =>
      all.some((s) => s.parentSpanId === "" && !before.has(s.traceId) && /\/api\/enhance/.test(s.name)),
    );
    const root = spans.find((s) => s.parentSpanId === "" && !before.has(s.traceId) && /\/api\/enhance/.test(s.name));
    const trace = traceOf(root?.traceId ?? "", /^POST \/api\/enhance/);
    const tiles = trace.filter((s) => s.name === "darkroom.enhance_tile");
    assert.ok(tiles.length >= 2, `${tiles.length} tile spans`);
    assert.deepEqual(
      tiles.map((s) => Number(s.attributes.index)).sort((a, b) => a - b),
      tiles.map((_, i) => i),
    );
    assert.equal(trace.filter((s) => s.name === "darkroom.storage_write").length, 1);
  });
});
