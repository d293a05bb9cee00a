// Restarts and crashes in the middle of a sync request with an Idempotency-Key, on either store: a crash (SIGKILL)
// leaves a claim whose lease lapses, so the key is free again and the unit back well within 2 minutes; SIGTERM
// drains (the running request finishes, requests on open connections get 503 busy with Retry-After and, on the API,
// the caller's rate-limit headers; exit 0); work still running when the grace is over is stopped through its normal
// path (503, unit back, key released).
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, beforeEach, describe, it } from "node:test";
import { type Fakes, startAllFakes } from "../fakes";
import { type App, createKey, startApp, tempDataDir } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { BROWSER, call, generate, type Reply } from "../helpers/http";

const LEASE_MS = 3000;
/** The contract's rate-limit headers, and OpenAI's that /v1 adds beside them (whose reset counts down from now). */
const LIMITS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"];
const OPENAI_LIMITS = ["x-ratelimit-limit-requests", "x-ratelimit-remaining-requests"];
const limitsOf = (res: Reply, names = LIMITS) => names.map((name) => [name, res.headers[name]]);

export function runRestartsSuite(backend: Backend) {
  let fakes: Fakes;
  let backends: Backends | undefined;
  let octet = 10;
  const nextIp = () => `127.0.19.${octet++}`;

  before(async () => {
    fakes = await startAllFakes();
    backends = backend === "embedded" ? undefined : await startBackends(backend);
  });
  after(async () => {
    await fakes?.closeAll();
    await backends?.close();
  });
  beforeEach(() => fakes.resetAll());

  const launch = (name: string, env: Record<string, string> = {}) =>
    startApp({
      name: `restarts-${name}-${backend}`,
      direct: true,
      dataDir: tempDataDir(`restarts-${backend}`),
      env: { ...fakes.env, ...backends?.env, IDEMPOTENCY_LEASE_MS: String(LEASE_MS), ...env },
    });
  const usageOf = async (app: App, from: string) =>
    (await call(app.url, "/api/status", { headers: BROWSER, from })).json.usage_today as number;
  const withKey = (key: string) => ({ "Idempotency-Key": key });

  /** Waits until `check` holds, polling as a client would. */
  async function until<T>(what: string, read: () => Promise<T>, check: (v: T) => boolean, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (check(value)) return value;
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}: ${JSON.stringify(value)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Starts a sync generation that hangs at the provider, and waits until its unit is taken. */
  async function hangingRequest(app: App, from: string, key: string) {
    fakes.bfl.mode = "hang";
    const reply = generate(app.url, { prompt: "a lighthouse at dusk" }, { from, headers: withKey(key) });
    reply.catch(() => undefined);
    await until(
      "the unit to be taken",
      () => usageOf(app, from),
      (used) => used === 1,
    );
    await until(
      "the provider call",
      async () => fakes.bfl.requests.length,
      (n) => n > 0,
    );
    return { reply };
  }

  describe("a crash during a sync request with an Idempotency-Key", () => {
    it("gives the unit back and frees the key once the lease lapses, without any retry; the retry then runs once", async () => {
      const app = await launch("crash");
      try {
        const from = nextIp();
        const key = `crash-${crypto.randomUUID()}`;
        const { reply: first } = await hangingRequest(app, from, key);
        const killedAt = Date.now();
        app.kill();
        await assert.rejects(first, "the crashed request gets no answer");
        await app.restart();
        fakes.bfl.mode = "ok";
        // Any live instance's sweep gives the unit back: no client has to come back for it.
        await until(
          "the unit to come back",
          () => usageOf(app, from),
          (used) => used === 0,
          60_000,
        );
        assert.ok(Date.now() - killedAt < 120_000, "within the contract's 2 minutes");
        const retry = await generate(app.url, { prompt: "a lighthouse at dusk" }, { from, headers: withKey(key) });
        assert.equal(retry.status, 200, retry.text);
        assert.equal(retry.headers["idempotent-replayed"], undefined, "the retry ran");
        assert.equal(retry.json.usage, 1, "one unit in all: the crashed request's came back");
        const replay = await generate(app.url, { prompt: "a lighthouse at dusk" }, { from, headers: withKey(key) });
        assert.equal(replay.status, 200);
        assert.equal(replay.headers["idempotent-replayed"], "true");
        assert.equal(await usageOf(app, from), 1, "a replay uses nothing");
      } finally {
        await app.stop();
      }
    });

    it("answers 409 while the dead request's lease holds, then lets the retry through with one unit in all", async () => {
      const lease = 15_000;
      const app = await launch("takeover", { IDEMPOTENCY_LEASE_MS: String(lease) });
      try {
        const from = nextIp();
        const key = `takeover-${crypto.randomUUID()}`;
        const { reply: first } = await hangingRequest(app, from, key);
        const killedAt = Date.now();
        app.kill();
        await assert.rejects(first);
        await app.restart();
        fakes.bfl.mode = "ok";
        const retryOnce = () => generate(app.url, { prompt: "a lighthouse at dusk" }, { from, headers: withKey(key) });
        if (Date.now() - killedAt < lease - 3000) {
          const early = await retryOnce();
          assert.equal(early.status, 409, "the first request might still be running elsewhere");
          assert.equal(early.json.error.code, "idempotency_in_progress");
        }
        const retry = await until("the key to be free", retryOnce, (r: Reply) => r.status !== 409, 60_000);
        assert.ok(Date.now() - killedAt < 120_000, "within the contract's 2 minutes");
        assert.equal(retry.status, 200, retry.text);
        assert.equal(retry.json.usage, 1, "the retry's own unit only");
        assert.equal(await usageOf(app, from), 1);
      } finally {
        await app.stop();
      }
    });
  });

  describe("SIGTERM", () => {
    it("lets a running sync request finish, turns new requests away with 503 busy, and exits 0", async () => {
      const app = await launch("drain", { SHUTDOWN_GRACE_MS: "60000" });
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const from = nextIp();
        const pro = { Authorization: `Bearer ${(await createKey(app, "drain")).key}` };
        const proModels = await call(app.url, "/v1/models", { headers: pro, from });
        assert.equal(proModels.status, 200, proModels.text);
        const { reply: running } = await hangingRequest(app, from, `drain-${crypto.randomUUID()}`);
        // A connection opened before the signal, kept alive: the next request on it arrives while draining.
        const opened = await get(app.url, "/api/status", agent, from);
        assert.equal(opened.status, 200);
        assert.equal(opened.headers["x-ratelimit-remaining"], "4", "the free generation bucket, one unit in use");
        const exited = app.terminate();
        await until(
          "the drain to start",
          async () => app.logs(),
          (logs) => /SIGTERM: draining/.test(logs),
        );
        const turnedAway = await get(app.url, "/api/status", agent, from);
        assert.equal(turnedAway.status, 503, turnedAway.text);
        assert.deepEqual(Object.keys(turnedAway.json), ["success", "error"]);
        assert.deepEqual(Object.keys(turnedAway.json.error), ["code", "message", "request_id"]);
        assert.equal(turnedAway.json.success, false);
        assert.equal(turnedAway.json.error.code, "busy");
        assert.match(turnedAway.json.error.message, /restart/i);
        assert.match(turnedAway.json.error.request_id, /^req_[0-9a-f]{32}$/);
        assert.equal(turnedAway.headers["x-request-id"], turnedAway.json.error.request_id);
        assert.match(String(turnedAway.headers["content-type"]), /^application\/json/);
        assert.ok(Number(turnedAway.headers["retry-after"]) >= 1, "Retry-After");
        assert.equal(turnedAway.headers.connection, "close");
        // Like every answer of the three endpoints, it describes the caller's bucket.
        assert.deepEqual(limitsOf(turnedAway), limitsOf(opened));
        // A new connection gets the same answer, and no work starts: the drain ends when the running request does.
        const fresh = await call(app.url, "/api/status", { headers: BROWSER, from });
        assert.equal(fresh.status, 503, fresh.text);
        assert.equal(fresh.json.error.code, "busy");
        assert.ok(Number(fresh.headers["retry-after"]) >= 1);
        assert.deepEqual(limitsOf(fresh), limitsOf(opened));
        const refused = await generate(app.url, { prompt: "too late" }, { from });
        assert.equal(refused.status, 503, refused.text);
        assert.equal(refused.json.error.code, "busy");
        assert.ok(Number(refused.headers["retry-after"]) >= 1);
        assert.deepEqual(limitsOf(refused), limitsOf(opened));
        // The OpenAI-compatible paths answer in OpenAI's error body, as the SDKs read it, with both sets of headers.
        const openai = await call(app.url, "/v1/images/generations", {
          method: "POST",
          headers: { ...pro, "Content-Type": "application/json" },
          body: JSON.stringify({ prompt: "too late" }),
          from,
        });
        assert.equal(openai.status, 503, openai.text);
        assert.deepEqual(Object.keys(openai.json), ["error"]);
        assert.equal(openai.json.error.type, "server_error");
        assert.equal(openai.json.error.code, "busy");
        assert.ok(Number(openai.headers["retry-after"]) >= 1);
        assert.ok(openai.headers["x-request-id"]);
        assert.deepEqual(limitsOf(openai), limitsOf(proModels));
        assert.deepEqual(limitsOf(openai, OPENAI_LIMITS), limitsOf(proModels, OPENAI_LIMITS));
        assert.equal(openai.headers["x-ratelimit-limit-requests"], "1000");
        assert.match(String(openai.headers["x-ratelimit-reset-requests"]), /^\d+[hms]/);
        // Paths outside the API are turned away by the server itself: readiness fails, so balancers move on.
        const ready = await call(app.url, "/api/ready", { from });
        assert.equal(ready.status, 503, ready.text);
        assert.equal(ready.json.error.code, "busy");
        const submitted = fakes.bfl.requests.filter((r) => r.method === "POST");
        assert.equal(submitted.length, 1, "the refused request reached no provider");
        fakes.bfl.mode = "ok";
        const finished = await running;
        assert.equal(finished.status, 200, finished.text);
        assert.equal(finished.json.success, true);
        const how = await exited;
        assert.deepEqual(how, { code: 0, signal: null }, app.logs());
        assert.match(app.logs(), /drained; exiting/);
      } finally {
        agent.destroy();
        await app.stop();
      }
    });

    it("stops what still runs after the grace: 503 busy, the unit back, the key free", async () => {
      const app = await launch("grace", { SHUTDOWN_GRACE_MS: "1500" });
      try {
        const from = nextIp();
        const key = `grace-${crypto.randomUUID()}`;
        const { reply: running } = await hangingRequest(app, from, key);
        const exited = app.terminate();
        const stopped = await running;
        assert.equal(stopped.status, 503, stopped.text);
        assert.equal(stopped.json.error.code, "busy");
        assert.ok(Number(stopped.headers["retry-after"]) >= 1);
        assert.deepEqual(await exited, { code: 0, signal: null }, app.logs());
        await app.restart();
        assert.equal(await usageOf(app, from), 0, "the unit came back");
        fakes.bfl.mode = "ok";
        const retry = await generate(app.url, { prompt: "a lighthouse at dusk" }, { from, headers: withKey(key) });
        assert.equal(retry.status, 200, `released at once, no lease to wait for: ${retry.text}`);
        assert.equal(await usageOf(app, from), 1);
      } finally {
        await app.stop();
      }
    });

    // A /v1 stream is a request in flight like any other, whatever the client's Accept header says: the drain waits
    // for it, and what the grace cuts short ends with an error event and its unit back (the SDKs send that header).
    it("waits for a /v1 stream, and ends one still running after the grace with an error event and the unit back", async () => {
      const app = await launch("stream", { SHUTDOWN_GRACE_MS: "1500" });
      try {
        const from = nextIp();
        const pro = { Authorization: `Bearer ${(await createKey(app, "stream")).key}` };
        const used = async () => (await call(app.url, "/api/status", { headers: pro, from })).json.usage_today;
        fakes.bfl.mode = "hang";
        const streaming = call(app.url, "/v1/images/generations", {
          method: "POST",
          headers: { ...pro, "Content-Type": "application/json", Accept: "text/event-stream" },
          body: JSON.stringify({ prompt: "a lighthouse at dusk", stream: true }),
          from,
        }).catch((err: Error) => err);
        await until(
          "the provider call",
          async () => fakes.bfl.requests.length,
          (n) => n > 0,
        );
        assert.equal(await used(), 1);
        const exited = app.terminate();
        const stream = await streaming;
        assert.ok(!(stream instanceof Error), `the stream was cut: ${stream instanceof Error ? stream.message : ""}`);
        assert.equal(stream.status, 200, stream.text);
        assert.match(String(stream.headers["content-type"]), /^text\/event-stream/);
        const error = /event: error\ndata: (.*)\n\n$/.exec(stream.text);
        assert.ok(error, `the stream ends with an error event: ${stream.text}`);
        // The engine's call is stopped by the shutdown: OpenAI's error body, as any other failed stream ends.
        assert.equal(JSON.parse(error[1]).error.type, "server_error");
        assert.deepEqual(await exited, { code: 0, signal: null }, app.logs());
        await app.restart();
        assert.equal(await used(), 0, "the stream's unit came back");
      } finally {
        await app.stop();
      }
    });

    it("fails an async job still running after the grace and gives its unit back; its key still replays the 202", async () => {
      const app = await launch("job", { SHUTDOWN_GRACE_MS: "1500" });
      try {
        const from = nextIp();
        const key = `job-${crypto.randomUUID()}`;
        const submit = () =>
          generate(
            app.url,
            { prompt: "a lighthouse at dusk" },
            { from, headers: { ...withKey(key), Prefer: "respond-async" } },
          );
        fakes.bfl.mode = "hang";
        const accepted = await submit();
        assert.equal(accepted.status, 202, accepted.text);
        await until(
          "the provider call",
          async () => fakes.bfl.requests.length,
          (n) => n > 0,
        );
        assert.deepEqual(await app.terminate(), { code: 0, signal: null }, app.logs());
        await app.restart();
        const job = await call(app.url, `/api/jobs/${accepted.json.id}`, { headers: BROWSER, from });
        assert.equal(job.json.status, "failed", job.text);
        assert.equal(job.json.error.code, "busy");
        assert.equal(await usageOf(app, from), 0, "the job's unit came back");
        const replay = await submit();
        assert.equal(replay.status, 202);
        assert.equal(replay.headers["idempotent-replayed"], "true");
        assert.equal(replay.json.id, accepted.json.id, "the same job");
      } finally {
        await app.stop();
      }
    });
  });
}

/** A GET through `agent`, so consecutive calls share one kept-alive connection. */
function get(base: string, path: string, agent: http.Agent, from: string): Promise<Reply> {
  return call(base, path, { agent, headers: BROWSER, from, timeoutMs: 10_000 });
}
