// OpenTelemetry traces, registered by Next at start (also under server.ts: Next's prepare() runs this hook).
// Nothing is loaded unless an OTLP endpoint is set, so tracing costs nothing when it is off.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return;
  if (process.env.OTEL_SDK_DISABLED === "true") return;
  const [{ registerOTel }, { enableTracing }] = await Promise.all([
    import("@vercel/otel"),
    import("@/lib/metrics/trace"),
  ]);
  registerOTel({ serviceName: process.env.OTEL_SERVICE_NAME || "darkroom" });
  enableTracing();
}
