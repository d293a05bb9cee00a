// The job store and idempotency contracts, run against each backend: records, guarded transitions, expired leases,
// idempotency claims.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { describe, it } from "node:test";
import { isDeepStrictEqual } from "node:util";
import type { IdempotencyStore } from "@/lib/idempotency/idempotency";
import type { JobRecord } from "@/lib/jobs/types";
import type { Backend } from "@/lib/store/backend";

function newJob(overrides: Partial<JobRecord["internal"]> = {}): JobRecord {
  return {
    id: `job_${crypto.randomBytes(16).toString("hex")}`,
    kind: "generate",
    owner: "ip:192.0.2.1",
    status: "queued",
    created_at: new Date().toISOString(),
    progress: { fraction: null, queue_position: null, stage: "queued" },
    internal: {
      instance: "inst_a",
      leaseUntil: Date.now() + 60_000,
      units: [
        { bucket: { name: "free-gen", limit: 5, windowMs: 86_400_000 }, identity: "ip:192.0.2.1", windowStart: 0 },
      ],
      ...overrides,
    },
  };
}

export function runJobStoreSuite(
  name: string,
  open: () => Promise<Pick<Backend, "jobs" | "idempotency" | "webhooks">>,
) {
  describe(`JobStore: ${name}`, () => {
    it("writes a job's end and the webhook delivery made of it together, and no delivery when it does not apply", async () => {
      const { jobs, webhooks } = await open();
      const job = newJob({ webhookUrl: "https://hooks.example.com/in", keyId: "key_x" });
      await jobs.create(job);
      const made: string[] = [];
      const deliveryOf = (next: JobRecord) => {
        const id = `msg_${crypto.randomBytes(8).toString("hex")}`;
        made.push(id);
        return {
          id,
          jobId: next.id,
          keyId: "key_x",
          url: "https://hooks.example.com/in",
          host: "hooks.example.com",
          secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
          body: JSON.stringify({ type: `job.${next.status}`, data: { id: next.id, status: next.status } }),
          nextAttemptAt: 1_700_000_000_000,
          createdAt: 1_700_000_000_000,
        };
      };
      const ended = await jobs.transition(job.id, ["queued", "running"], { status: "canceled" }, deliveryOf);
      assert.equal(ended?.status, "canceled");
      assert.equal(made.length, 1);
      const stored = await webhooks.get(made[0]);
      assert.equal(stored?.jobId, job.id);
      assert.equal(stored?.keyId, "key_x");
      assert.equal(stored?.host, "hooks.example.com");
      assert.deepEqual(JSON.parse(stored?.body ?? "{}"), {
        type: "job.canceled",
        data: { id: job.id, status: "canceled" },
      });
      // Already ended: nothing changes and no second delivery is written.
      assert.equal(await jobs.transition(job.id, ["queued", "running"], { status: "failed" }, deliveryOf), null);
      for (const id of made.slice(1)) assert.equal(await webhooks.get(id), null);
    });

    it("keeps a record as written, with its internal fields and empty lists", async () => {
      const { jobs } = await open();
      const job = newJob();
      await jobs.create(job);
      assert.deepEqual(await jobs.get(job.id), job);
      assert.equal(await jobs.get(`job_${"f".repeat(32)}`), null);
      // Writing the very same record again is a retry and succeeds; another record under the same id does not.
      await assert.rejects(jobs.create({ ...job, owner: "ip:192.0.2.99" }));
    });

    it("reads many jobs in one call, leaving out missing ids", async () => {
      const { jobs } = await open();
      const a = newJob();
      const b = newJob();
      for (const j of [a, b]) await jobs.create(j);
      const missing = `job_${"e".repeat(32)}`;
      const found = await jobs.getMany([a.id, missing, b.id]);
      assert.deepEqual([...found.keys()].sort(), [a.id, b.id].sort());
      assert.deepEqual(found.get(a.id), a);
      assert.deepEqual(found.get(b.id), b);
      assert.equal((await jobs.getMany([])).size, 0);
    });

    it("moves a job only from the statuses given, once", async () => {
      const { jobs } = await open();
      const job = newJob();
      await jobs.create(job);
      const running = await jobs.transition(job.id, ["queued"], {
        status: "running",
        started_at: "2026-01-01T00:00:00.000Z",
      });
      assert.equal(running?.status, "running");
      assert.equal(running?.internal.units.length, 1);
      assert.equal(await jobs.transition(job.id, ["queued"], { status: "canceled" }), null);
      const both = await Promise.all([
        jobs.transition(job.id, ["running"], { status: "succeeded", result: { ok: true } }),
        jobs.transition(job.id, ["running"], { status: "canceled" }),
      ]);
      assert.equal(both.filter(Boolean).length, 1, "exactly one of two racing transitions wins");
      const final = await jobs.get(job.id);
      assert.ok(final && ["succeeded", "canceled"].includes(final.status));
      const lease = await jobs.transition(job.id, ["succeeded", "canceled"], {
        webhook: { attempts: 1, last_status: 200, delivered_at: null },
      });
      assert.equal(lease?.webhook?.attempts, 1);
      assert.equal(lease?.started_at, "2026-01-01T00:00:00.000Z", "a patch keeps the other fields");
    });

    it("lists unfinished jobs whose lease ran out", async () => {
      const { jobs } = await open();
      const stale = newJob({ leaseUntil: Date.now() - 1000 });
      const fresh = newJob({ leaseUntil: Date.now() + 60_000 });
      const done = newJob({ leaseUntil: Date.now() - 1000 });
      for (const j of [stale, fresh, done]) await jobs.create(j);
      await jobs.transition(done.id, ["queued"], { status: "failed", finished_at: new Date().toISOString() });
      const expired = (await jobs.listExpired(Date.now(), 100)).map((j) => j.id);
      assert.ok(expired.includes(stale.id));
      assert.ok(!expired.includes(fresh.id));
      assert.ok(!expired.includes(done.id));
    });

    it("claims an idempotency key once, under concurrency, and keeps the answer", async () => {
      const { idempotency } = await open();
      const key = `k-${crypto.randomUUID()}`;
      const tokens = Array.from({ length: 8 }, () => crypto.randomUUID());
      const claims = await Promise.all(tokens.map((token) => claim(idempotency, key, token)));
      assert.equal(claims.filter((c) => c.ours).length, 1, "one claim wins");
      for (const c of claims) {
        assert.deepEqual(c, c.ours ? { ours: true, lapsedUnits: [] } : { ours: false, existing: running("fp") });
      }
      const winner = tokens[claims.findIndex((c) => c.ours)];
      const response = {
        status: 200,
        body: '{"success":true,"url":"/cdn/a/b.png"}',
        headers: { "content-type": "application/json" },
      };
      assert.equal(await idempotency.completeIdempotencyKey(key, winner, response, 60_000), true);
      assert.deepEqual(await claim(idempotency, key, crypto.randomUUID()), {
        ours: false,
        existing: { fingerprint: "fp", response },
      });
      const released = `k-${crypto.randomUUID()}`;
      const token = crypto.randomUUID();
      assert.equal((await claim(idempotency, released, token)).ours, true);
      assert.equal(await idempotency.releaseIdempotencyKey(released, token), true);
      assert.equal((await claim(idempotency, released, crypto.randomUUID(), "other")).ours, true, "free again");
    });

    it("releases by compare-and-delete: a stale token frees neither an answer nor another request's claim", async () => {
      const { idempotency } = await open();
      const key = `k-${crypto.randomUUID()}`;
      const first = crypto.randomUUID();
      assert.equal((await claim(idempotency, key, first, "fp", 1000)).ours, true);
      await new Promise((r) => setTimeout(r, 1100));
      // The first request's lease lapsed; a second takes the key over and finishes.
      const second = crypto.randomUUID();
      assert.equal((await claim(idempotency, key, second)).ours, true);
      assert.equal(await idempotency.releaseIdempotencyKey(key, first), false, "the first token frees nothing");
      assert.equal(await idempotency.renewIdempotencyKey(key, first, 60_000), false, "nor renews");
      assert.deepEqual(await claim(idempotency, key, crypto.randomUUID()), { ours: false, existing: running("fp") });
      const response = { status: 200, body: "{}", headers: {} };
      assert.equal(await idempotency.completeIdempotencyKey(key, first, response, 60_000), false, "nor answers");
      assert.equal(await idempotency.completeIdempotencyKey(key, second, response, 60_000), true);
      assert.equal(await idempotency.releaseIdempotencyKey(key, first), false);
      assert.equal(await idempotency.releaseIdempotencyKey(key, second), false, "an answer is never released");
      assert.deepEqual(await claim(idempotency, key, crypto.randomUUID()), {
        ours: false,
        existing: { fingerprint: "fp", response },
      });
    });

    it("knows which keys have a record: a running claim or an answer, not an unknown or released key", async () => {
      const { idempotency } = await open();
      const key = `k-${crypto.randomUUID()}`;
      assert.equal(await idempotency.hasIdempotencyKey(key), false, "unknown");
      const token = crypto.randomUUID();
      assert.equal((await claim(idempotency, key, token)).ours, true);
      assert.equal(await idempotency.hasIdempotencyKey(key), true, "running");
      assert.equal(await idempotency.releaseIdempotencyKey(key, token), true);
      assert.equal(await idempotency.hasIdempotencyKey(key), false, "released");
      const again = crypto.randomUUID();
      assert.equal((await claim(idempotency, key, again)).ours, true);
      const response = { status: 200, body: "{}", headers: {} };
      assert.equal(await idempotency.completeIdempotencyKey(key, again, response, 60_000), true);
      assert.equal(await idempotency.hasIdempotencyKey(key), true, "answered");
    });

    it("hands a lapsed claim's units to exactly one taker, and keeps a renewed one", async () => {
      const { idempotency } = await open();
      const units = newJob().internal.units;
      const lapsed = `k-${crypto.randomUUID()}`;
      const renewed = `k-${crypto.randomUUID()}`;
      const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
      await claim(idempotency, lapsed, a, "fp", 1000);
      await claim(idempotency, renewed, b, "fp", 1000);
      assert.equal(await idempotency.renewIdempotencyKey(lapsed, a, 1000, units), true);
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(await idempotency.renewIdempotencyKey(renewed, b, 1000, units), true);
      await new Promise((r) => setTimeout(r, 600));
      const takers = await Promise.all(
        Array.from({ length: 6 }, () => claim(idempotency, lapsed, crypto.randomUUID())),
      );
      const won = takers.filter((t) => t.ours);
      assert.equal(won.length, 1);
      assert.deepEqual(won[0], { ours: true, lapsedUnits: units }, "the taker gets the units to give back");
      assert.equal((await claim(idempotency, renewed, crypto.randomUUID())).ours, false, "a renewed lease holds");
    });

    it("sweeps lapsed claims once, with their units, and leaves running ones and answers", async () => {
      const { idempotency } = await open();
      const units = newJob().internal.units;
      const [dead, alive, done] = [0, 1, 2].map(() => `k-${crypto.randomUUID()}`);
      const tokens = [0, 1, 2].map(() => crypto.randomUUID());
      await claim(idempotency, dead, tokens[0], "fp", 1000);
      await idempotency.renewIdempotencyKey(dead, tokens[0], 1000, units);
      await claim(idempotency, alive, tokens[1], "fp", 60_000);
      await claim(idempotency, done, tokens[2], "fp", 1000);
      await idempotency.completeIdempotencyKey(done, tokens[2], { status: 200, body: "{}", headers: {} }, 60_000);
      const later = Date.now() + 2000;
      const swept = await idempotency.reclaimLapsedIdempotencyKeys(later, 100);
      assert.ok(
        swept.some((u) => isDeepStrictEqual(u, units)),
        "the dead claim's units",
      );
      const again = await idempotency.reclaimLapsedIdempotencyKeys(later, 100);
      assert.ok(!again.some((u) => isDeepStrictEqual(u, units)), "given once");
      assert.equal((await claim(idempotency, dead, crypto.randomUUID())).ours, true, "the dead key is free");
      assert.equal((await claim(idempotency, alive, crypto.randomUUID())).ours, false);
      assert.equal((await claim(idempotency, done, crypto.randomUUID())).ours, false);
    });
  });
}

const running = (fingerprint: string) => ({ fingerprint, response: null });

function claim(store: IdempotencyStore, key: string, token: string, fingerprint = "fp", leaseMs = 60_000) {
  return store.claimIdempotencyKey(key, { fingerprint, token, leaseMs });
}
