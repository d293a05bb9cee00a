// GET /metrics scraped by a real Prometheus: after a known number of requests, PromQL through Prometheus's HTTP API
// returns exactly that count. The endpoint needs METRICS_TOKEN as a Bearer, and no label carries a key, an IP or a
// prompt.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type App, createKey, startApp } from "../helpers/app";
import { BROWSER, call, generate } from "../helpers/http";
import { hasPrometheus, type Prometheus, startPrometheus } from "../helpers/prometheus";

const TOKEN = "metrics-token-for-the-test-0123456789";
let app: App;
let prometheus: Prometheus;

before(async () => {
  assert.ok(hasPrometheus(), "Debian's prometheus package is needed (apt-get install prometheus)");
  app = await startApp({
    name: "metrics",
    env: {
      METRICS_TOKEN: TOKEN,
      FREE_GENERATIONS_PER_DAY: "2",
      ADMIN_TOKEN: "admin-token-for-the-metrics-test-0123456789",
    },
  });
  prometheus = await startPrometheus({ port: app.port, token: TOKEN });
});
after(async () => {
  await prometheus?.stop();
  await app?.stop();
});

/** Polls an instant query until `want(value)` holds for the first series (or there is none and want(0) holds). */
async function eventually(promql: string, want: number, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  let last: number | undefined;
  for (;;) {
    const result = await prometheus.query(promql);
    last = result.length === 0 ? 0 : result[0].value;
    if (result.length <= 1 && last === want) return;
    if (Date.now() > deadline) throw new Error(`${promql} = ${JSON.stringify(result)}, wanted ${want}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("GET /metrics", () => {
  it("answers 401 without the token or with a wrong one", async () => {
    const none = await call(app.url, "/metrics");
    assert.equal(none.status, 401);
    assert.match(String(none.headers["www-authenticate"]), /^Bearer/);
    const wrong = await call(app.url, "/metrics", { headers: { Authorization: `Bearer ${TOKEN}x` } });
    assert.equal(wrong.status, 401);
    assert.ok(!wrong.text.includes("darkroom_"));
  });

  it("counts wrong operator tokens, by credential and answer", async () => {
    const from = "127.0.23.40";
    for (let i = 0; i < 2; i++) {
      const wrong = await call(app.url, "/metrics", { headers: { Authorization: `Bearer wrong-${i}-${TOKEN}` }, from });
      assert.equal(wrong.status, 401);
    }
    for (let i = 0; i < 11; i++) {
      const admin = await call(app.url, "/api/admin/keys", {
        headers: { Authorization: `Bearer wrong-admin-token-${i}-${"z".repeat(32)}` },
        from,
      });
      assert.equal(admin.status, i < 10 ? 401 : 429, admin.text);
    }
    const scrape = await call(app.url, "/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } });
    const counted = (labels: string) =>
      Number(new RegExp(`^darkroom_wrong_token_attempts_total\\{${labels}\\} (\\d+)$`, "m").exec(scrape.text)?.[1]);
    // The scrape before (the 401 test) presented one wrong token too.
    assert.equal(counted('credential="metrics",answer="refused"'), 3);
    assert.equal(counted('credential="admin",answer="refused"'), 10);
    assert.equal(counted('credential="admin",answer="rate_limited"'), 1);
  });

  it("is scraped by Prometheus, and PromQL counts exactly the requests made", async () => {
    await eventually('up{job="darkroom"}', 1);
    const { key } = await createKey(app, "metrics");
    const statusCalls = 7;
    for (let i = 0; i < statusCalls; i++) {
      const res = await call(app.url, "/api/status", { headers: BROWSER, from: `127.0.6.${i + 1}` });
      assert.equal(res.status, 200);
    }
    // Two free generations from one address, the third refused for quota; one Pro generation.
    const from = "127.0.6.50";
    const prompt = "a very secret prompt about otters";
    for (let i = 0; i < 2; i++) assert.equal((await generate(app.url, { prompt }, { from })).status, 200);
    assert.equal((await generate(app.url, { prompt }, { from })).status, 429);
    const pro = await generate(app.url, { prompt }, { headers: { Authorization: `Bearer ${key}` } });
    assert.equal(pro.status, 200, pro.text);
    const jobId = "job_0123456789abcdef0123456789abcdef";
    assert.equal((await call(app.url, `/api/jobs/${jobId}`, { headers: BROWSER, from })).status, 404);

    await eventually('darkroom_http_requests_total{job="darkroom",method="GET",route="/api/status",status="200"}', 7);
    await eventually('darkroom_http_requests_total{method="POST",route="/api/generate",status="200"}', 3);
    await eventually('darkroom_http_requests_total{method="POST",route="/api/generate",status="429"}', 1);
    await eventually('darkroom_http_requests_total{route="/api/jobs/[id]",status="404"}', 1);
    await eventually('darkroom_jobs_total{kind="generate",engine="preview",outcome="succeeded"}', 3);
    await eventually('darkroom_jobs_total{kind="generate",outcome="refused"}', 1);
    await eventually('sum(darkroom_quota_refusals_total{plan="free",endpoint="generate"})', 1);
    await eventually('sum(darkroom_quota_refusals_total{plan="pro"})', 0);
    await eventually('darkroom_images_stored_total{kind="generate"}', 3);
    await eventually('darkroom_job_duration_seconds_count{kind="generate",outcome="succeeded"}', 3);
    await eventually('darkroom_queue_waiting_limit{queue="generate"}', 64);
    await eventually('darkroom_route_up{model="alpha-pro",route="preview"}', 1);
    // Default process metrics come along.
    assert.ok((await prometheus.query("process_resident_memory_bytes")).length === 1);

    // Bounded labels: the scrape holds no address, key, prompt or raw id.
    const scrape = await call(app.url, "/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(scrape.status, 200);
    assert.match(String(scrape.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
    for (const secret of ["127.0.6.", key, "otters", jobId]) assert.ok(!scrape.text.includes(secret), secret);
  });
});
