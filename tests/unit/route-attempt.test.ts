// The one attempt helper of generation's and enhancement's chains (lib/engines/attempt.ts): the route's deadline
// (also for a call that ignores its signal), the caller's cancel, the failure classes, the health record, the
// /metrics route attempt and the darkroom.route_attempt span with its outcome; and what an exhausted chain throws.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Span, type Tracer, type TracerProvider, trace } from "@opentelemetry/api";
import { type AttemptSpec, attemptRoute, exhaustedError } from "@/lib/engines/attempt";
import { ModerationError, ProviderError } from "@/lib/engines/failures";
import { createHealthBook, type HealthBook } from "@/lib/engines/health";
import { ChainExhausted } from "@/lib/errors";
import { getMetrics } from "@/lib/metrics";
import { enableTracing } from "@/lib/metrics/trace";
import { toApiError } from "@/lib/schemas/api-error";

/** Spans as the helper opens them, through the OpenTelemetry API's own provider hook (no exporter needed). */
type Recorded = { name: string; attributes: Record<string, unknown>; ended: boolean };
const spans: Recorded[] = [];

function recordingProvider(): TracerProvider {
  const tracer = {
    startActiveSpan(name: string, options: { attributes?: Record<string, unknown> }, fn: (span: Span) => unknown) {
      const rec: Recorded = { name, attributes: { ...options.attributes }, ended: false };
      spans.push(rec);
      const span = {
        setAttribute(key: string, value: unknown) {
          rec.attributes[key] = value;
          return span;
        },
        setStatus: () => span,
        end() {
          rec.ended = true;
        },
      };
      return fn(span as unknown as Span);
    },
  };
  return { getTracer: () => tracer as unknown as Tracer };
}

before(() => {
  trace.setGlobalTracerProvider(recordingProvider());
  enableTracing();
});
after(() => trace.disable());

async function attempts(route: string, outcome: string): Promise<number> {
  const { values } = await getMetrics().routeAttempts.get();
  return values.find((v) => v.labels.route === route && v.labels.outcome === outcome)?.value ?? 0;
}

let n = 0;
function specFor(health: HealthBook, extra: Partial<AttemptSpec> = {}): AttemptSpec {
  return {
    route: `fal:test-${++n}`,
    labels: { mode: "faces" },
    requestId: `req-${n}`,
    signal: new AbortController().signal,
    timeoutMs: 2_000,
    health,
    ...extra,
  };
}

describe("attemptRoute", () => {
  it("returns the checked answer, and records the call as healthy, in the metric and in an ended span", async () => {
    const health = createHealthBook();
    const spec = specFor(health);
    const outcome = await attemptRoute(
      spec,
      async () => "answer",
      async (answer) => `${answer} checked`,
    );
    assert.deepEqual(outcome, { ok: true, value: "answer checked" });
    assert.deepEqual([health.of(spec.route).calls, health.of(spec.route).failures], [1, 0]);
    assert.equal(await attempts(spec.route, "ok"), 1);
    const span = spans.find((s) => s.attributes["darkroom.route"] === spec.route);
    assert.deepEqual(span, {
      name: "darkroom.route_attempt",
      attributes: { "darkroom.route": spec.route, mode: "faces", "darkroom.outcome": "ok" },
      ended: true,
    });
  });

  it("fails at the route's deadline as a timeout even when the call ignores its signal, and aborts that signal", async () => {
    const health = createHealthBook();
    const spec = specFor(health, { timeoutMs: 150 });
    let seen: AbortSignal | undefined;
    const started = performance.now();
    const outcome = await attemptRoute(
      spec,
      (signal) => {
        seen = signal;
        return new Promise<string>(() => undefined);
      },
      async (answer) => answer,
    );
    assert.ok(performance.now() - started < 10_000, "it settles at the deadline");
    assert.equal(outcome.ok, false);
    assert.equal(!outcome.ok && outcome.failure.kind, "timeout");
    assert.equal(seen?.aborted, true, "the route's signal aborts at the deadline");
    assert.deepEqual([health.of(spec.route).failures, health.isFailing(spec.route)], [1, false]);
    assert.equal(await attempts(spec.route, "failed"), 1);
  });

  it("classifies a failed check as the route's failure (a malformed answer), and three of them make it failing", async () => {
    const health = createHealthBook();
    const spec = specFor(health);
    for (let i = 0; i < 3; i++) {
      const outcome = await attemptRoute(
        spec,
        async () => Buffer.from("not an image"),
        async () => {
          throw new ProviderError("malformed", "the answer is not an image");
        },
      );
      assert.equal(!outcome.ok && outcome.failure.kind, "malformed");
    }
    assert.equal(health.isFailing(spec.route), true);
    assert.equal(await attempts(spec.route, "failed"), 3);
    const span = spans.findLast((s) => s.attributes["darkroom.route"] === spec.route);
    assert.equal(span?.attributes["darkroom.outcome"], "failed");
  });

  it("counts a safety refusal as moderated and healthy, and a caller's cancel as cancelled and not recorded", async () => {
    const health = createHealthBook();
    const moderated = specFor(health);
    const refused = await attemptRoute(
      moderated,
      async () => {
        throw new ModerationError("flagged");
      },
      async (a) => a,
    );
    assert.equal(!refused.ok && refused.failure.kind, "moderation");
    assert.deepEqual([health.of(moderated.route).calls, health.of(moderated.route).failures], [1, 0]);
    assert.equal(await attempts(moderated.route, "moderated"), 1);

    const caller = new AbortController();
    const cancelled = specFor(health, { signal: caller.signal });
    setTimeout(() => caller.abort(), 20);
    const outcome = await attemptRoute(
      cancelled,
      () => new Promise<string>(() => undefined),
      async (a) => a,
    );
    assert.equal(!outcome.ok && outcome.failure.kind, "cancelled");
    assert.equal(health.of(cancelled.route).calls, 0);
    assert.equal(await attempts(cancelled.route, "cancelled"), 1);
  });

  it("keeps a provider's capacity answer with its Retry-After", async () => {
    const spec = specFor(createHealthBook());
    const outcome = await attemptRoute(
      spec,
      async () => {
        throw new ProviderError("capacity", "429", 429, 12);
      },
      async (a) => a,
    );
    assert.deepEqual(!outcome.ok && [outcome.failure.kind, outcome.failure.retryAfter], ["capacity", 12]);
  });
});

describe("exhaustedError", () => {
  const capacity = (retryAfter?: number) => ({ kind: "capacity" as const, detail: "429", retryAfter });
  const http = { kind: "http" as const, detail: "500", status: 500 };

  it("answers busy with the longest Retry-After only when every route was at capacity", () => {
    const busy = exhaustedError("enhance", [capacity(4), capacity(), capacity(9)], { mode: "faces" });
    assert.deepEqual([busy.allAtCapacity, busy.retryAfterS, busy.work], [true, 30, "enhance"]);
    const api = toApiError(busy, "req");
    assert.deepEqual([api.status, api.code, api.retryAfter], [503, "busy", 30]);
  });

  it("answers generation_failed otherwise, suggesting another mode for enhancement and another model for generation", () => {
    const enhance = toApiError(exhaustedError("enhance", [capacity(4), http], { mode: "faces" }), "req");
    assert.deepEqual([enhance.status, enhance.code], [500, "generation_failed"]);
    assert.match(enhance.message, /retry with the same or another mode/);
    const generation = toApiError(exhaustedError("generation", [http], { model: "alpha-pro" }), "req");
    assert.deepEqual([generation.status, generation.code], [500, "generation_failed"]);
    assert.match(generation.message, /same or a different model/);
    assert.ok(exhaustedError("generation", [], {}) instanceof ChainExhausted);
  });
});
