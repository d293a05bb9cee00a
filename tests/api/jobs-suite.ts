// Async jobs on either store: the life cycle, the event stream, cancel with its quota effects, idempotency, and
// the jobs of an instance that died.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { type Fakes, startAllFakes } from "../fakes";
import { type App, createKey, runScript, startApp, tempDataDir } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { BROWSER, call, generate, type Reply } from "../helpers/http";
import { readEvents } from "../helpers/sse";

const ASYNC = { Prefer: "respond-async" };

export function runJobsSuite(backend: Backend) {
  let app: App;
  let fakes: Fakes;
  let backends: Backends | undefined;
  let octet = 10;
  const nextIp = () => `127.0.11.${octet++}`;

  before(async () => {
    fakes = await startAllFakes();
    backends = backend === "embedded" ? undefined : await startBackends(backend);
    app = await startApp({
      name: `jobs-${backend}`,
      env: {
        ...fakes.env,
        ...backends?.env,
        GENERATE_CONCURRENCY: "1",
        // Long enough for the steps of a test to fit while a job holds the only slot, on a loaded machine.
        GENERATION_TIMEOUT_MS: "90000",
        WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
      },
    });
  });
  after(async () => {
    await app?.stop();
    await fakes?.closeAll();
    await backends?.close();
  });
  beforeEach(() => fakes.resetAll());

  const usageOf = async (from: string) =>
    (await call(app.url, "/api/status", { headers: BROWSER, from })).json.usage_today as number;
  const job = (url: string, from: string, method = "GET") => call(url, "", { method, headers: BROWSER, from });

  /** Polls a job as a client would: well inside the 120-reads-a-minute guard. */
  async function until(from: string, url: string, done: (r: Reply) => boolean, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await job(url, from);
      if (done(r)) return r;
      if (Date.now() > deadline || r.status !== 200) throw new Error(`gave up: ${r.status} ${r.text}`);
      await new Promise((res) => setTimeout(res, 600));
    }
  }

  describe("async jobs", () => {
    it("accepts with 202, runs, and keeps the result the synchronous call would give", async () => {
      const from = nextIp();
      const accepted = await generate(
        app.url,
        { prompt: "a lighthouse", model: "alpha-schnell" },
        {
          from,
          headers: ASYNC,
        },
      );
      assert.equal(accepted.status, 202, accepted.text);
      assert.equal(accepted.headers["preference-applied"], "respond-async");
      assert.match(accepted.json.id, /^job_[a-f0-9]{32}$/);
      assert.equal(accepted.headers.location, `/api/jobs/${accepted.json.id}`);
      assert.equal(accepted.json.status, "queued");
      assert.equal(accepted.json.status_url, `${app.url}/api/jobs/${accepted.json.id}`);
      assert.equal(accepted.json.events_url, `${app.url}/api/jobs/${accepted.json.id}/events`);
      assert.equal(accepted.headers["x-ratelimit-remaining"], "4", "the unit is taken at acceptance");

      const done = await until(from, accepted.json.status_url, (r) => r.json.status === "succeeded");
      assert.equal(done.json.kind, "generate");
      for (const field of ["created_at", "started_at", "finished_at"]) assert.ok(Date.parse(done.json[field]) > 0);
      assert.equal(done.json.result.success, true);
      assert.equal(done.json.result.model, "alpha-schnell");
      assert.equal(done.json.result.usage, 1);
      assert.equal(done.json.result.remaining, 4);
      assert.equal(done.json.internal, undefined, "nothing internal is shown");
      assert.equal(done.json.owner, undefined, "nor the owner's address or key");
      assert.equal((await call(done.json.result.url, "")).headers["content-type"], "image/png");
      assert.equal(await usageOf(from), 1);
    });

    it("shows a job only to the caller that created it", async () => {
      const from = nextIp();
      const accepted = await generate(app.url, { prompt: "mine" }, { from, headers: ASYNC });
      const elsewhere = await job(accepted.json.status_url, nextIp());
      assert.equal(elsewhere.status, 404);
      assert.equal(elsewhere.json.error.code, "not_found");
      const { key } = await createKey(app, "jobs-other");
      const withKey = await call(accepted.json.status_url, "", { headers: { Authorization: `Bearer ${key}` } });
      assert.equal(withKey.status, 404);
      assert.equal((await job(`${app.url}/api/jobs/job_${"0".repeat(32)}`, from)).status, 404);
      assert.equal((await job(`${app.url}/api/jobs/nonsense`, from)).status, 404);
      await until(from, accepted.json.status_url, (r) => r.json.status === "succeeded");
    });

    it("streams progress with the provider's state, then exactly one terminal event", async () => {
      const from = nextIp();
      fakes.bfl.pendingPolls = 4;
      const accepted = await generate(app.url, { prompt: "a red fox" }, { from, headers: ASYNC });
      const stream = await readEvents(accepted.json.events_url, { headers: BROWSER, from });
      assert.equal(stream.status, 200);
      assert.match(String(stream.headers["content-type"]), /^text\/event-stream/);
      const names = stream.events.map((e) => e.event);
      assert.equal(names[0], "progress", "the current state comes first");
      assert.deepEqual(
        names.filter((n) => n !== "progress"),
        ["succeeded"],
      );
      assert.equal(names.at(-1), "succeeded");
      const progress = stream.events.filter((e) => e.event === "progress").map((e) => e.data as { status: string });
      assert.ok(
        progress.some((p) => p.status === "running"),
        JSON.stringify(progress),
      );
      const last = stream.events.at(-1);
      assert.equal((last?.data as { model?: string } | undefined)?.model, "alpha-pro");
    });

    it("cancels a queued job with its unit given back, and a running one keeping its unit", async () => {
      fakes.bfl.mode = "hang";
      const runningFrom = nextIp();
      const queuedFrom = nextIp();
      const running = await generate(app.url, { prompt: "slow one" }, { from: runningFrom, headers: ASYNC });
      await until(runningFrom, running.json.status_url, (r) => r.json.status === "running");
      // One generation runs at a time here, so the next one waits.
      const queued = await generate(app.url, { prompt: "waiting" }, { from: queuedFrom, headers: ASYNC });
      const waiting = await until(queuedFrom, queued.json.status_url, (r) => r.json.progress.queue_position === 1);
      assert.equal(waiting.json.status, "queued");

      const dropped = await job(queued.json.status_url, queuedFrom, "DELETE");
      assert.equal(dropped.status, 200, dropped.text);
      assert.equal(dropped.json.status, "canceled");
      assert.equal(await usageOf(queuedFrom), 0, "a queued job that is cancelled gives its unit back");

      const stopped = await job(running.json.status_url, runningFrom, "DELETE");
      assert.equal(stopped.json.status, "canceled");
      assert.equal(await usageOf(runningFrom), 1, "a running job that is cancelled keeps its unit");
      const polls = fakes.bfl.polls;
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(fakes.bfl.polls <= polls + 1, "polling stopped with the cancel");

      const again = await job(running.json.status_url, runningFrom, "DELETE");
      assert.equal(again.status, 409);
      assert.equal(again.json.error.code, "job_finished");
      const events = await readEvents(queued.json.events_url, { headers: BROWSER, from: queuedFrom });
      assert.deepEqual(
        events.events.map((e) => e.event),
        ["progress", "canceled"],
      );
    });
    it("stops a Pro key's waiting job when the key is revoked: it never reaches the provider", async () => {
      // The key is made first: the CLI is slow to start on a loaded machine, and everything from the first job's
      // start to the revoke must fit in its generation deadline, or its slot frees before the key is revoked.
      const { key, id } = await createKey(app, "revoked while waiting");
      fakes.bfl.mode = "hang";
      const runningFrom = nextIp();
      const running = await generate(app.url, { prompt: "holds the only slot" }, { from: runningFrom, headers: ASYNC });
      await until(runningFrom, running.json.status_url, (r) => r.json.status === "running");
      const auth = { ...ASYNC, Authorization: `Bearer ${key}` };
      const queued = await generate(app.url, { prompt: "never sent anywhere" }, { headers: auth, from: nextIp() });
      assert.equal(queued.status, 202, queued.text);
      const read = () => call(queued.json.status_url, "", { headers: { Authorization: `Bearer ${key}` } });
      const deadline = Date.now() + 60_000;
      while ((await read()).json.progress?.queue_position !== 1) {
        assert.ok(Date.now() < deadline, "the job never waited first in line");
        await new Promise((r) => setTimeout(r, 600));
      }
      const revoked = await runScript(app, "keys", ["revoke", id]);
      assert.equal(revoked.code, 0, revoked.stderr);

      // The slot frees; the waiting job leaves the queue, finds its key revoked and fails without calling BFL.
      await job(running.json.status_url, runningFrom, "DELETE");
      await new Promise((r) => setTimeout(r, 2000));
      const prompts = fakes.bfl.requests.map((r) => JSON.stringify(r.body ?? ""));
      assert.ok(prompts.some((p) => p.includes("holds the only slot")));
      assert.ok(!prompts.some((p) => p.includes("never sent anywhere")), "the revoked key's job reached the provider");
      assert.equal((await read()).status, 401, "the revoked key reads nothing");
    });
  });

  describe("Idempotency-Key", () => {
    it("replays the first answer without using quota, and refuses a different request", async () => {
      const from = nextIp();
      const headers = { "Idempotency-Key": "order-42" };
      const first = await generate(app.url, { prompt: "a teapot" }, { from, headers });
      assert.equal(first.status, 200, first.text);
      const again = await generate(app.url, { prompt: "a teapot" }, { from, headers });
      assert.equal(again.status, 200);
      assert.equal(again.headers["idempotent-replayed"], "true");
      assert.deepEqual(again.json, first.json);
      assert.equal(await usageOf(from), 1);
      const other = await generate(app.url, { prompt: "a kettle" }, { from, headers });
      assert.equal(other.status, 422);
      assert.equal(other.json.error.code, "idempotency_mismatch");
      const asyncFirst = await generate(
        app.url,
        { prompt: "async teapot" },
        {
          from,
          headers: { ...ASYNC, "Idempotency-Key": "order-43" },
        },
      );
      const asyncAgain = await generate(
        app.url,
        { prompt: "async teapot" },
        {
          from,
          headers: { ...ASYNC, "Idempotency-Key": "order-43" },
        },
      );
      assert.equal(asyncAgain.status, 202);
      assert.equal(asyncAgain.json.id, asyncFirst.json.id);
      assert.equal(asyncAgain.headers["idempotent-replayed"], "true");
      const bad = await generate(app.url, { prompt: "x" }, { from, headers: { "Idempotency-Key": "" } });
      assert.equal(bad.status, 400);
    });

    it("gives one success and one 409 for two parallel requests with one key, using one unit", async () => {
      const from = nextIp();
      fakes.bfl.pendingPolls = 3;
      const headers = { "Idempotency-Key": "parallel-1" };
      const replies = await Promise.all([
        generate(app.url, { prompt: "twins" }, { from, headers }),
        new Promise((r) => setTimeout(r, 150)).then(() => generate(app.url, { prompt: "twins" }, { from, headers })),
      ]);
      assert.deepEqual(
        replies.map((r) => r.status),
        [200, 409],
        replies.map((r) => r.text).join("\n"),
      );
      assert.equal(replies[1].json.error.code, "idempotency_in_progress");
      assert.equal(await usageOf(from), 1);
    });

    it("does not keep error answers, so a failed request can be retried with the same key", async () => {
      const from = nextIp();
      fakes.bfl.mode = "error";
      fakes.fal.mode = "error";
      fakes.replicate.mode = "error";
      fakes.together.mode = "error";
      const headers = { "Idempotency-Key": "retry-me" };
      assert.equal((await generate(app.url, { prompt: "flaky" }, { from, headers })).status, 500);
      fakes.resetAll();
      const retried = await generate(app.url, { prompt: "flaky" }, { from, headers });
      assert.equal(retried.status, 200, retried.text);
      assert.equal(retried.headers["idempotent-replayed"], undefined);
    });
  });

  describe("webhooks", () => {
    /** A local receiver that answers the given statuses in turn, then 200, keeping what it got. */
    async function startReceiver(statuses: number[]) {
      const got: { headers: http.IncomingHttpHeaders; body: string; at: number }[] = [];
      const server = http.createServer((req, res) => {
        let body = "";
        req.on("data", (c) => (body += c));
        req.on("end", () => {
          got.push({ headers: req.headers, body, at: Date.now() });
          res.statusCode = statuses.shift() ?? 200;
          res.end("ok");
        });
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const { port } = server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}/hooks/darkroom`, got, close: () => server.close() };
    }

    /** The signing secret as the key's holder reads it. */
    async function secretOf(key: string): Promise<string> {
      const account = await call(app.url, "/api/account", { headers: { Authorization: `Bearer ${key}` } });
      assert.equal(account.status, 200, account.text);
      assert.match(account.json.webhook_secret, /^whsec_/);
      return account.json.webhook_secret;
    }

    it("refuses webhook_url without a Pro key, over http, or on a private address", async () => {
      const { key } = await createKey(app, "hooks-refused");
      const pro = { Authorization: `Bearer ${key}` };
      const cases: [Record<string, string>, string][] = [
        [BROWSER, "https://hooks.example.com/x"],
        [pro, "http://hooks.example.com/x"],
        [pro, "https://10.0.0.7/x"],
        [pro, "https://[::1]/x"],
        [pro, "https://169.254.169.254/latest"],
        [pro, "not a url"],
      ];
      for (const [headers, webhook_url] of cases) {
        const r = await generate(app.url, { prompt: "a hook", webhook_url }, { headers, from: nextIp() });
        assert.equal(r.status, 400, `${webhook_url}: ${r.text}`);
        assert.equal(r.json.error.code, "invalid_webhook_url");
      }
    });

    it("signs the terminal event as Standard Webhooks specifies, retrying a failing receiver", async () => {
      const receiver = await startReceiver([500, 503]);
      try {
        const { key } = await createKey(app, "hooks");
        const accepted = await generate(
          app.url,
          { prompt: "a hooked fish", model: "alpha-schnell", webhook_url: receiver.url },
          { headers: { Authorization: `Bearer ${key}` } },
        );
        assert.equal(accepted.status, 202, accepted.text);
        const deadline = Date.now() + 60_000;
        while (receiver.got.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
        assert.equal(receiver.got.length, 3, "two failures, then delivered");
        const verifier = new Webhook(await secretOf(key));
        const ids = new Set<string>();
        for (const hit of receiver.got) {
          const payload = verifier.verify(hit.body, {
            "webhook-id": String(hit.headers["webhook-id"]),
            "webhook-timestamp": String(hit.headers["webhook-timestamp"]),
            "webhook-signature": String(hit.headers["webhook-signature"]),
          }) as { type: string; data: { id: string; status: string; result: { url: string } } };
          assert.equal(payload.type, "job.succeeded");
          assert.equal(payload.data.id, accepted.json.id);
          assert.match(payload.data.result.url, /^https?:\/\/.+\.png$/);
          ids.add(String(hit.headers["webhook-id"]));
        }
        assert.equal(ids.size, 1, "one webhook-id across retries");
        assert.ok(receiver.got[1].at - receiver.got[0].at >= 4000, "retried after about 5 s");
        const record = await call(accepted.json.status_url, "", { headers: { Authorization: `Bearer ${key}` } });
        assert.equal(record.json.webhook.attempts, 3);
        assert.equal(record.json.webhook.last_status, 200);
        assert.ok(Date.parse(record.json.webhook.delivered_at) > 0);
      } finally {
        receiver.close();
      }
    });
  });

  describe("instances that die", () => {
    it("fails and refunds a dead instance's jobs from a live one", async () => {
      const dataDir = backends ? undefined : tempDataDir(`jobs-crash-${backend}`);
      const env = { ...fakes.env, ...backends?.env, JOB_LEASE_MS: "3000" };
      const doomed = await startApp({ name: `jobs-doomed-${backend}`, dataDir, env });
      const survivor = await startApp({ name: `jobs-survivor-${backend}`, dataDir: doomed.dataDir, env });
      try {
        fakes.bfl.mode = "hang";
        const from = nextIp();
        const accepted = await generate(doomed.url, { prompt: "lost" }, { from, headers: ASYNC });
        assert.equal(accepted.status, 202);
        const url = `${survivor.url}/api/jobs/${accepted.json.id}`;
        await until(from, url, (r) => r.json.status === "running");
        doomed.kill();
        const failed = await until(from, url, (r) => r.json.status === "failed", 30_000);
        assert.equal(failed.json.error.code, "server_error");
        const usage = await call(survivor.url, "/api/status", { headers: BROWSER, from });
        assert.equal(usage.json.usage_today, 0, "the unit was given back");
      } finally {
        await doomed.stop();
        await survivor.stop();
      }
    });
  });
}
