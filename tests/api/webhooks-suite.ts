// Webhook delivery against the running app on either store: a job's end and its delivery written together (the
// outbox write fails on purpose), a delivery refused at send time with its reason in the job record, and one key's
// receiver that never answers, which must not hold up another key's webhook to the same host (the fairness figure)
// and opens the breaker of that key and host only. Receivers listen on loopback addresses that WEBHOOK_ALLOW_HOSTS
// lets through.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { TcpRedis } from "@/lib/store/redis/tcp";
import { type Fakes, startAllFakes } from "../fakes";
import { type App, createKey, startApp } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { call, generate, type Reply } from "../helpers/http";
import { type Receiver, startReceiver, startSink } from "../helpers/webhook-receivers";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 500) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(everyMs);
  }
}

export function runWebhooksSuite(backend: Backend) {
  const ALLOW = "127.0.0.1,127.0.0.2";
  let fakes: Fakes;

  before(async () => {
    fakes = await startAllFakes();
  });
  after(async () => {
    await fakes?.closeAll();
  });

  /** An app on a store of its own (a fresh DATA_DIR, or a fresh redis-server). */
  async function startOwnApp(name: string, env: Record<string, string>) {
    const backends = backend === "embedded" ? undefined : await startBackends(backend);
    const app = await startApp({
      name: `webhooks-${name}-${backend}`,
      env: { ...fakes.env, ...backends?.env, ...env },
    });
    return { app, backends };
  }

  const jobOf = (app: App, id: string, key: string) =>
    call(app.url, `/api/jobs/${id}`, { headers: { Authorization: `Bearer ${key}` } });

  async function submit(app: App, key: string, webhook_url: string, prompt = "a hooked fish"): Promise<string> {
    const r = await generate(
      app.url,
      { prompt, model: "alpha-schnell", webhook_url },
      { headers: { Authorization: `Bearer ${key}` } },
    );
    assert.equal(r.status, 202, r.text);
    return r.json.id as string;
  }

  describe("a job's end and its webhook", () => {
    let app: App;
    let backends: Backends | undefined;
    before(async () => {
      ({ app, backends } = await startOwnApp("atomic", { WEBHOOK_ALLOW_HOSTS: ALLOW, JOB_LEASE_MS: "3000" }));
    });
    after(async () => {
      await app?.stop();
      await backends?.close();
    });

    /** Makes every write to the outbox fail, the way a store error would; returns how to undo it. */
    async function breakOutbox(): Promise<{ deliveriesOf(jobId: string): Promise<number>; mend(): Promise<void> }> {
      if (!backends) {
        const db = new Database(path.join(app.dataDir, "darkroom.db"));
        db.pragma("busy_timeout = 5000");
        db.exec(`CREATE TRIGGER outbox_down BEFORE INSERT ON webhook_deliveries
                 BEGIN SELECT RAISE(ABORT, 'outbox unavailable (test)'); END;`);
        return {
          deliveriesOf: async (jobId) =>
            db
              .prepare<[string], { n: number }>("SELECT count(*) AS n FROM webhook_deliveries WHERE job_id = ?")
              .get(jobId)?.n ?? 0,
          mend: async () => {
            db.exec("DROP TRIGGER outbox_down");
            db.close();
          },
        };
      }
      // The due set holding a string: every script that adds to it fails with WRONGTYPE.
      const redis = new TcpRedis({ url: backends.redis.url, timeoutMs: 5000 });
      const due = "darkroom:webhooks:due";
      assert.equal(await redis.command<number>(["EXISTS", due]), 0, "nothing else is queued");
      await redis.command(["SET", due, "outbox unavailable (test)"]);
      return {
        deliveriesOf: async (jobId) => {
          const ids = await redis.command<string[]>(["HKEYS", "darkroom:webhooks:meta"]);
          const bodies = await Promise.all(
            ids.map((id) => redis.command<string | null>(["HGET", `darkroom:webhook:${id}`, "jobId"])),
          );
          return bodies.filter((j) => j === jobId).length;
        },
        mend: async () => {
          await redis.command(["DEL", due]);
          await redis.quit();
        },
      };
    }

    it("are written together: a failed outbox write leaves the job unfinished, and it is delivered once mended", async () => {
      const receiver = await startReceiver();
      const outbox = await breakOutbox();
      try {
        const { key } = await createKey(app, "atomic");
        const id = await submit(app, key, receiver.url);
        // Long enough for the fake to finish the work, the runner to try to end the job, and the sweep to try again.
        const seen = new Set<string>();
        for (const stop = Date.now() + 6000; Date.now() < stop; ) {
          const r = await jobOf(app, id, key);
          assert.equal(r.status, 200, r.text);
          seen.add(r.json.status);
          assert.ok(
            r.json.status === "queued" || r.json.status === "running",
            `the job ended (${r.json.status}) while its delivery could not be written`,
          );
          await sleep(500);
        }
        assert.ok(seen.has("running"), "the work ran");
        assert.equal(await outbox.deliveriesOf(id), 0);
        assert.equal(receiver.got.length, 0);

        await outbox.mend();
        const hit = await until("the webhook", async () => receiver.got[0], 120_000);
        const payload = JSON.parse(hit.body) as { type: string; data: { id: string; status: string } };
        assert.equal(payload.data.id, id);
        const record = await until(
          "the delivery recorded",
          async () => {
            const r = await jobOf(app, id, key);
            return r.json.webhook?.delivered_at ? r : undefined;
          },
          120_000,
        );
        assert.equal(payload.type, `job.${record.json.status}`);
        assert.equal(payload.data.status, record.json.status);
        assert.equal(record.json.webhook.attempts, 1);
        assert.equal(record.json.webhook.last_status, 200);
        assert.equal(record.json.webhook.last_error, undefined, "a delivered webhook keeps the 1.1 shape");
        assert.equal(receiver.got.length, 1);
      } finally {
        await receiver.close();
      }
    });
  });

  describe("a delivery refused at send time", () => {
    it("shows why in the job's webhook record, and is not retried", async () => {
      // Accepted while 127.0.0.1 was allowed; the instance dies; one that no longer allows it ends the job.
      const receiver = await startReceiver();
      const first = await startOwnApp("refused", { WEBHOOK_ALLOW_HOSTS: "127.0.0.1", JOB_LEASE_MS: "3000" });
      const env = { ...fakes.env, ...first.backends?.env, JOB_LEASE_MS: "3000" };
      let strict: App | undefined;
      try {
        const { key } = await createKey(first.app, "refused");
        fakes.bfl.mode = "hang";
        const id = await submit(first.app, key, receiver.url);
        await until(
          "the job running",
          async () => ((await jobOf(first.app, id, key)).json.status === "running" ? true : undefined),
          120_000,
        );
        first.app.kill();
        fakes.resetAll();
        strict = await startApp({ name: `webhooks-strict-${backend}`, dataDir: first.app.dataDir, env });
        const app = strict;
        const record = await until(
          "the attempt recorded",
          async () => {
            const r = await jobOf(app, id, key);
            return r.json.webhook?.attempts > 0 ? r : undefined;
          },
          120_000,
        );
        assert.equal(record.json.status, "failed");
        assert.deepEqual(record.json.webhook, {
          attempts: 1,
          last_status: null,
          delivered_at: null,
          last_error: "webhook_url must be an https URL.",
        });
        await sleep(6000);
        assert.equal((await jobOf(app, id, key)).json.webhook.attempts, 1, "a refusal is not retried");
        assert.equal(receiver.got.length, 0, "nothing was sent");
      } finally {
        fakes.resetAll();
        await strict?.stop();
        await first.app.stop();
        await first.backends?.close();
        await receiver.close();
      }
    });
  });

  describe("one key's receiver that never answers", () => {
    let app: App;
    let backends: Backends | undefined;
    before(async () => {
      ({ app, backends } = await startOwnApp("fair", {
        WEBHOOK_ALLOW_HOSTS: ALLOW,
        GENERATE_CONCURRENCY: "8",
        GENERATE_QUEUE: "100",
      }));
    });
    after(async () => {
      await app?.stop();
      await backends?.close();
    });

    /** Seconds from the job's end to its webhook's arrival. */
    async function webhookDelay(key: string, receiver: Receiver, prompt: string) {
      const before = receiver.got.length;
      const id = await submit(app, key, receiver.url, prompt);
      const hit = await until("the other key's webhook", async () => receiver.got[before], 120_000, 50);
      const finished = await until(
        "the job's end",
        async () => {
          const r: Reply = await jobOf(app, id, key);
          return r.json.finished_at ? Date.parse(r.json.finished_at) : undefined;
        },
        120_000,
      );
      return (hit.at - finished) / 1000;
    }

    // Both receivers on one host (another port), as on a relay that many tenants share: the contract's 1.3
    // amendment caps and breaks per key and host.
    it("does not hold up another key's webhook to the same host, caps that key and host at 2 in flight, and opens its breaker", async (t) => {
      const receiver = await startReceiver("127.0.0.1");
      const sink = await startSink("127.0.0.1");
      try {
        const flooder = await createKey(app, "flooder");
        const other = await createKey(app, "other");
        const idle = await webhookDelay(other.key, receiver, "idle");

        const flood: string[] = [];
        for (let i = 0; i < 48; i++) flood.push(await submit(app, flooder.key, sink.url, `flood ${i}`));
        await until("the flood's first attempts", async () => (sink.stats.total >= 2 ? true : undefined), 60_000);
        const loaded = await webhookDelay(other.key, receiver, "while flooded");
        t.diagnostic(`other key's webhook: ${idle.toFixed(2)} s idle, ${loaded.toFixed(2)} s with 48 hanging`);
        assert.ok(loaded < 5, `another key's webhook took ${loaded.toFixed(1)} s while one key's receiver hung`);

        // The last of the flood is claimed after the breaker of that key and host opened (5 timeouts, 2 at a time).
        const last = flood.at(-1) as string;
        const refused = await until(
          "the breaker's refusal",
          async () => {
            const r = await jobOf(app, last, flooder.key);
            return /breaker is open/.test(r.json.webhook?.last_error ?? "") ? r : undefined;
          },
          90_000,
          2000,
        );
        assert.match(
          refused.json.webhook.last_error,
          /^not sent: 127\.0\.0\.1 gave no answer to \d+ attempts in a row; its breaker is open until \d{4}-/,
        );
        assert.equal(refused.json.webhook.last_status, null);
        assert.ok(sink.stats.maxOpen <= 2, `${sink.stats.maxOpen} connections at once for one key to one host`);
        // The other key's breaker for the same host is its own, and closed.
        const after = await webhookDelay(other.key, receiver, "after the breaker opened");
        assert.ok(after < 5, `another key's webhook took ${after.toFixed(1)} s while the flooder's breaker was open`);
        assert.ok(sink.stats.total < 12, `${sink.stats.total} connections: the breaker did not stop them`);
      } finally {
        await sink.close();
        await receiver.close();
      }
    });
  });
}
