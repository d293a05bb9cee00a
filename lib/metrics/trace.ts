// Spans around the work that matters. Tracing is on only when instrumentation.ts registered an exporter
// (OTEL_EXPORTER_OTLP_ENDPOINT set); otherwise withSpan just calls the work: no span object, no context switch.
import { type Attributes, SpanStatusCode, trace } from "@opentelemetry/api";
import { processSingleton } from "@/lib/singleton";

const state = () => processSingleton("tracing", () => ({ on: false }));

/** Called once by instrumentation.ts after it registered the OpenTelemetry SDK. */
export function enableTracing(): void {
  state().on = true;
}

export function tracingEnabled(): boolean {
  return state().on;
}

/** What work may add to its span: attributes learned while it runs (an outcome, a size). */
export type SpanNote = { set(name: string, value: string | number | boolean): void };
const NO_SPAN: SpanNote = { set() {} };

/** Runs `work` inside a child span of the current one; a throw marks the span as an error and is rethrown. */
export async function withSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: SpanNote) => Promise<T>,
): Promise<T> {
  if (!state().on) return work(NO_SPAN);
  return trace.getTracer("darkroom").startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work({ set: (key, value) => span.setAttribute(key, value) });
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : "error" });
      throw err;
    } finally {
      span.end();
    }
  });
}
