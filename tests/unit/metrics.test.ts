// The metrics module: route patterns from a real build manifest's shape, the exposition of each family with
// bounded labels, and tracing's off path (no span, the work just runs).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { getMetrics, observeJob, observeRequest, renderMetrics, trackQueue } from "@/lib/metrics";
import { OTHER_ROUTE, routeMatcherOf } from "@/lib/metrics/routes";
import { tracingEnabled, withSpan } from "@/lib/metrics/trace";

// The shape Next writes to <distDir>/routes-manifest.json (fields we read; regexes as Next generates them).
const MANIFEST = {
  staticRoutes: [
    { page: "/", regex: "^/(?:/)?$" },
    { page: "/api/generate", regex: "^/api/generate(?:/)?$" },
    { page: "/metrics", regex: "^/metrics(?:/)?$" },
  ],
  dynamicRoutes: [
    { page: "/api/jobs/[id]", regex: "^/api/jobs/([^/]+?)(?:/)?$" },
    { page: "/api/jobs/[id]/events", regex: "^/api/jobs/([^/]+?)/events(?:/)?$" },
    { page: "/api/[...path]", regex: "^/api/(.+?)(?:/)?$" },
  ],
};

describe("route patterns", () => {
  const routeOf = routeMatcherOf(MANIFEST);
  const cases: [string, string][] = [
    ["/", "/"],
    ["/api/generate", "/api/generate"],
    ["/api/generate/", "/api/generate"],
    ["/api/jobs/job_0123abcd", "/api/jobs/[id]"],
    ["/api/jobs/job_0123abcd/events", "/api/jobs/[id]/events"],
    ["/api/no/such/thing", "/api/[...path]"],
    ["/cdn/0123456789abcdef0123456789abcdef.png", "/cdn/[file]"],
    ["/_next/static/chunks/main.js", "/_next"],
    ["/wp-login.php", OTHER_ROUTE],
    ["/prompt: a secret cat", OTHER_ROUTE],
  ];
  for (const [path, route] of cases) it(`labels ${path} as ${route}`, () => assert.equal(routeOf(path), route));
});

describe("exposition", () => {
  it("renders requests, jobs and queue gauges with only the labels given", async () => {
    getMetrics().requests.reset();
    observeRequest("GET", "/api/status", 200, 0.012);
    observeRequest("GET", "/api/status", 200, 0.02);
    observeRequest("POST", "/api/generate", 429, 0.003);
    observeJob({ kind: "generate", model: "alpha-pro", engine: "bfl:flux-pro-1.1", outcome: "succeeded" }, 1.5);
    trackQueue({ name: "unit-queue", concurrency: 3, maxQueued: 7, stats: { running: 2, queued: 5 } });
    const { contentType, body } = await renderMetrics({
      routes: [{ model: "alpha-pro", route: "bfl:flux-pro-1.1", failing: true }],
      pools: [{ kind: "comfyui", servers: [{ server: 2, health: "out", in_flight: 1 }] }],
    });
    assert.match(contentType, /^text\/plain; version=0\.0\.4/);
    const lines = body.split("\n");
    const has = (line: string) => assert.ok(lines.includes(line), `missing: ${line}`);
    has('darkroom_http_requests_total{method="GET",route="/api/status",status="200"} 2');
    has('darkroom_http_requests_total{method="POST",route="/api/generate",status="429"} 1');
    has('darkroom_http_request_duration_seconds_bucket{le="0.025",method="GET",route="/api/status",status="200"} 2');
    has('darkroom_jobs_total{kind="generate",model="alpha-pro",engine="bfl:flux-pro-1.1",outcome="succeeded"} 1');
    has('darkroom_job_duration_seconds_bucket{le="2.5",kind="generate",model="alpha-pro",outcome="succeeded"} 1');
    has('darkroom_queue_waiting{queue="unit-queue"} 5');
    has('darkroom_queue_running{queue="unit-queue"} 2');
    has('darkroom_queue_waiting_limit{queue="unit-queue"} 7');
    has('darkroom_route_up{model="alpha-pro",route="bfl:flux-pro-1.1"} 0');
    has('darkroom_gpu_server_state{pool="comfyui",server="2",state="out"} 1');
    has('darkroom_gpu_server_state{pool="comfyui",server="2",state="ok"} 0');
    has('darkroom_gpu_server_in_flight{pool="comfyui",server="2"} 1');
    // The default process metrics come along.
    assert.ok(lines.some((l) => l.startsWith("process_cpu_user_seconds_total ")));
  });

  it("is one registry per process, however often the module is reached", async () => {
    const again = await import("@/lib/metrics");
    assert.equal(again.getMetrics(), getMetrics());
  });
});

describe("tracing when off", () => {
  it("runs the work without a span and passes its result and errors through", async () => {
    assert.equal(tracingEnabled(), false);
    let noted = 0;
    const result = await withSpan("darkroom.test", { a: 1 }, async (span) => {
      span.set("x", 1);
      noted++;
      return 42;
    });
    assert.equal(result, 42);
    assert.equal(noted, 1);
    await assert.rejects(
      withSpan("darkroom.test", {}, async () => {
        throw new Error("boom");
      }),
      /boom/,
    );
  });
});
