// One behaviour suite for every WebhookOutbox backend: claims under a lease, recorded attempts, persistence across
// a reopen, two workers that never make the same attempt twice, and fair claims (caps per key and per host,
// round-robin across keys, first attempts before retries).
import assert from "node:assert/strict";
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { NewDelivery, WebhookOutbox } from "@/lib/webhooks/outbox";
import { createWebhookWorker, type WebhookAttempt } from "@/lib/webhooks/worker";

/** An isolated outbox (its own file or key namespace); each `open()` is a new connection to the same data. */
export type OutboxBackend = { open(): WebhookOutbox; dispose?(): Promise<void> };

export type OutboxSuiteOptions = { skip?: string | false };

const LEASE_MS = 60_000;

export function runWebhookOutboxSuite(
  name: string,
  createBackend: () => Promise<OutboxBackend>,
  opts: OutboxSuiteOptions = {},
): void {
  describe(`WebhookOutbox contract: ${name}`, { skip: opts.skip || false }, () => {
    const opened: WebhookOutbox[] = [];
    const backends: OutboxBackend[] = [];
    const fresh = async () => {
      const backend = await createBackend();
      backends.push(backend);
      const open = () => {
        const outbox = backend.open();
        opened.push(outbox);
        return outbox;
      };
      return { backend, open };
    };
    after(async () => {
      for (const o of opened) await o.close().catch(() => undefined);
      for (const b of backends) await b.dispose?.();
    });

    const T0 = 1_700_000_000_000;
    // Each its own key and host unless a test says otherwise, so the caps only bite where a test means them to.
    const delivery = (n: number, over: Partial<NewDelivery> = {}): NewDelivery => ({
      id: `msg_${n}_${crypto.randomBytes(4).toString("hex")}`,
      jobId: `job_${n}`,
      keyId: `key_${n}`,
      url: `https://h${n}.example.com/in`,
      host: `h${n}.example.com`,
      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      body: JSON.stringify({ type: "job.succeeded", n }),
      nextAttemptAt: T0,
      createdAt: T0 + n,
      ...over,
    });

    it("stores a delivery, and a second enqueue of its id changes nothing", async () => {
      const { open } = await fresh();
      const outbox = open();
      const d = delivery(1);
      await outbox.enqueue(d);
      await outbox.enqueue({ ...d, body: "{}", nextAttemptAt: T0 + 999 });
      assert.deepEqual(await outbox.get(d.id), { ...d, attempts: 0, lastStatus: null });
      assert.equal(await outbox.get("msg_none"), null);
    });

    it("claims only what is due, oldest first, up to the limit", async () => {
      const { open } = await fresh();
      const outbox = open();
      const due = [delivery(3), delivery(1), delivery(2)];
      for (const d of due) await outbox.enqueue(d);
      await outbox.enqueue(delivery(4, { nextAttemptAt: T0 + 5_000 }));

      assert.deepEqual(await outbox.claimDue(T0 - 1, LEASE_MS, 10), []);
      const first = await outbox.claimDue(T0, LEASE_MS, 2);
      assert.equal(first.length, 2);
      const second = await outbox.claimDue(T0, LEASE_MS, 10);
      assert.equal(second.length, 1);
      const ids = [...first, ...second].map((d) => d.id).sort();
      assert.deepEqual(ids, due.map((d) => d.id).sort());
      assert.deepEqual(
        first.map((d) => d.createdAt),
        [...first.map((d) => d.createdAt)].sort((a, b) => a - b),
      );
      assert.equal(first[0].secret, due[0].secret);
      assert.equal(first[0].attempts, 0);
    });

    it("keeps a claimed delivery from every other claim until the lease runs out", async () => {
      const { open } = await fresh();
      const a = open();
      const b = open();
      const d = delivery(1);
      await a.enqueue(d);
      const [claimed] = await a.claimDue(T0, LEASE_MS, 10);
      assert.equal(claimed.id, d.id);
      assert.deepEqual(await b.claimDue(T0 + LEASE_MS - 1, LEASE_MS, 10), []);
      assert.deepEqual(await a.claimDue(T0 + LEASE_MS - 1, LEASE_MS, 10), []);

      // The holder died: the delivery is claimed again, and the old lease can no longer record anything.
      const [again] = await b.claimDue(T0 + LEASE_MS, LEASE_MS, 10);
      assert.equal(again.id, d.id);
      assert.notEqual(again.lease, claimed.lease);
      assert.equal(await a.recordAttempt(d.id, claimed.lease, { attempts: 1, lastStatus: 200, retryAt: null }), false);
      assert.notEqual(await b.get(d.id), null);
      assert.equal(await b.recordAttempt(d.id, again.lease, { attempts: 1, lastStatus: 200, retryAt: null }), true);
      assert.equal(await a.get(d.id), null);
    });

    it("reschedules a failed attempt, and removes a finished delivery", async () => {
      const { open } = await fresh();
      const outbox = open();
      const d = delivery(1);
      await outbox.enqueue(d);
      const [c1] = await outbox.claimDue(T0, LEASE_MS, 10);
      assert.equal(
        await outbox.recordAttempt(d.id, c1.lease, { attempts: 1, lastStatus: 500, retryAt: T0 + 5_000 }),
        true,
      );
      assert.deepEqual(await outbox.get(d.id), { ...d, attempts: 1, lastStatus: 500, nextAttemptAt: T0 + 5_000 });
      // Recording twice with one lease does nothing more.
      assert.equal(await outbox.recordAttempt(d.id, c1.lease, { attempts: 1, lastStatus: 500, retryAt: T0 }), false);
      assert.deepEqual(await outbox.claimDue(T0 + 4_999, LEASE_MS, 10), []);

      const [c2] = await outbox.claimDue(T0 + 5_000, LEASE_MS, 10);
      assert.equal(c2.attempts, 1);
      assert.equal(c2.lastStatus, 500);
      assert.equal(
        await outbox.recordAttempt(d.id, c2.lease, { attempts: 2, lastStatus: null, retryAt: T0 + 40_000 }),
        true,
      );
      assert.equal((await outbox.get(d.id))?.lastStatus, null);

      const [c3] = await outbox.claimDue(T0 + 40_000, LEASE_MS, 10);
      assert.equal(c3.attempts, 2);
      assert.equal(await outbox.recordAttempt(d.id, c3.lease, { attempts: 3, lastStatus: 204, retryAt: null }), true);
      assert.equal(await outbox.get(d.id), null);
      assert.deepEqual(await outbox.claimDue(T0 + 10 * LEASE_MS, LEASE_MS, 10), []);
    });

    it("never hands one delivery to two parallel claims", async () => {
      const { open } = await fresh();
      const a = open();
      const b = open();
      const all = Array.from({ length: 30 }, (_, i) => delivery(i));
      await Promise.all(all.map((d) => a.enqueue(d)));
      const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).claimDue(T0, LEASE_MS, 5)));
      const ids = claims.flat().map((d) => d.id);
      assert.equal(new Set(ids).size, ids.length, "a delivery was claimed twice");
      assert.deepEqual(ids.sort(), all.map((d) => d.id).sort());
    });

    it("keeps a pending delivery across closing and reopening", async () => {
      const { open } = await fresh();
      const first = open();
      const d = delivery(1);
      await first.enqueue(d);
      const [claimed] = await first.claimDue(T0, LEASE_MS, 10);
      await first.recordAttempt(d.id, claimed.lease, { attempts: 1, lastStatus: 503, retryAt: T0 + 5_000 });
      await first.close();

      const reopened = open();
      assert.deepEqual(await reopened.get(d.id), { ...d, attempts: 1, lastStatus: 503, nextAttemptAt: T0 + 5_000 });
      const [again] = await reopened.claimDue(T0 + 5_000, LEASE_MS, 10);
      assert.equal(again.id, d.id);
      assert.equal(again.body, d.body);
    });

    describe("fair claims", () => {
      const CAPS = { perKey: 2, perKeyHost: 2, perHost: 2 };
      const ids = (ds: { id: string }[]) => ds.map((d) => d.id).sort();

      it("keeps one key to its cap while another key's delivery is claimed at once", async () => {
        const { open } = await fresh();
        const outbox = open();
        // 48 older deliveries of one key to one slow host, then one of another key.
        const flood = Array.from({ length: 48 }, (_, i) =>
          delivery(i, { keyId: "key_flood", host: "slow.example.com", createdAt: T0 - 1000 + i }),
        );
        for (const d of flood) await outbox.enqueue(d);
        const other = delivery(99, { keyId: "key_other", host: "fast.example.com" });
        await outbox.enqueue(other);

        const first = await outbox.claimDue(T0, LEASE_MS, 8, CAPS);
        assert.equal(first.filter((d) => d.keyId === "key_flood").length, 2, "the flooding key gets its cap");
        assert.ok(
          first.some((d) => d.id === other.id),
          "the other key is claimed in the same call",
        );
        assert.equal(first.length, 3);
        // While those are in flight the flooding key gets nothing more, from any claim.
        assert.deepEqual(await open().claimDue(T0 + 1, LEASE_MS, 8, CAPS), []);
        // One attempt recorded (a retry later) frees one slot.
        const held = first.find((d) => d.keyId === "key_flood");
        assert.ok(held);
        await outbox.recordAttempt(held.id, held.lease, { attempts: 1, lastStatus: null, retryAt: T0 + 5_000 });
        assert.equal((await outbox.claimDue(T0 + 2, LEASE_MS, 8, CAPS)).length, 1);
        // Leases that ran out no longer count as in flight.
        const later = await outbox.claimDue(T0 + LEASE_MS + 3, LEASE_MS, 8, CAPS);
        assert.equal(later.filter((d) => d.keyId === "key_flood").length, 2);
      });

      it("caps deliveries in flight to one host across keys", async () => {
        const { open } = await fresh();
        const outbox = open();
        const sameHost = Array.from({ length: 6 }, (_, i) => delivery(i, { host: "one.example.com" }));
        for (const d of sameHost) await outbox.enqueue(d);
        const elsewhere = delivery(7);
        await outbox.enqueue(elsewhere);
        const claimed = await outbox.claimDue(T0, LEASE_MS, 8, CAPS);
        assert.equal(claimed.filter((d) => d.host === "one.example.com").length, 2);
        assert.ok(claimed.some((d) => d.id === elsewhere.id));
        assert.deepEqual(await outbox.claimDue(T0, LEASE_MS, 8, CAPS), []);
      });

      it("caps a key's deliveries to one host, not its other hosts nor another key's on that host", async () => {
        const { open } = await fresh();
        const outbox = open();
        const caps = { perKey: 4, perKeyHost: 2, perHost: 16 };
        const relay = "relay.example.com";
        const backlog = Array.from({ length: 6 }, (_, i) =>
          delivery(i, { keyId: "key_a", host: relay, createdAt: T0 - 100 + i }),
        );
        for (const d of backlog) await outbox.enqueue(d);
        const aElsewhere = delivery(10, { keyId: "key_a", host: "a.example.com" });
        const bSameHost = delivery(11, { keyId: "key_b", host: relay });
        await outbox.enqueue(aElsewhere);
        await outbox.enqueue(bSameHost);
        const claimed = await outbox.claimDue(T0, LEASE_MS, 8, caps);
        assert.equal(claimed.filter((d) => d.keyId === "key_a" && d.host === relay).length, 2);
        assert.ok(
          claimed.some((d) => d.id === aElsewhere.id),
          "the key's other host is not held back",
        );
        assert.ok(
          claimed.some((d) => d.id === bSameHost.id),
          "another key on the same host is not held back",
        );
        assert.equal(claimed.length, 4);
      });

      it("caps one host for all keys together", async () => {
        const { open } = await fresh();
        const outbox = open();
        const many = Array.from({ length: 20 }, (_, i) => delivery(i, { host: "relay.example.com" }));
        for (const d of many) await outbox.enqueue(d);
        const caps = { perKey: 4, perKeyHost: 2, perHost: 16 };
        assert.equal((await outbox.claimDue(T0, LEASE_MS, 100, caps)).length, 16);
        assert.equal((await outbox.claimDue(T0, LEASE_MS, 100, caps)).length, 0);
      });

      // A claim must go round the keys, not read the oldest due deliveries only: 1,100 of one key's, due first,
      // never hide another key's.
      it("claims another key's delivery at once behind 1,100 of one key's", async () => {
        const { open } = await fresh();
        const outbox = open();
        const flood = Array.from({ length: 1100 }, (_, i) =>
          delivery(i, {
            keyId: "key_flood",
            host: "flood.example.com",
            createdAt: T0 - 5000 + i,
            nextAttemptAt: T0 - 5000 + i,
          }),
        );
        for (let i = 0; i < flood.length; i += 100)
          await Promise.all(flood.slice(i, i + 100).map((d) => outbox.enqueue(d)));
        // Another host, so only the claim's reach is tested here (the caps per host are above).
        const other = delivery(5000, { keyId: "key_other", host: "other.example.com" });
        await outbox.enqueue(other);
        const caps = { perKey: 2, perKeyHost: 2, perHost: 16 };
        const first = await outbox.claimDue(T0, LEASE_MS, 8, caps);
        assert.ok(
          first.some((d) => d.id === other.id),
          `the other key's delivery is claimed in the first claim: ${first.map((d) => d.keyId).join(", ")}`,
        );
        assert.equal(first.filter((d) => d.keyId === "key_flood").length, 2);
        assert.deepEqual(
          first.filter((d) => d.keyId === "key_flood").map((d) => d.id),
          flood.slice(0, 2).map((d) => d.id),
          "the flooding key's oldest",
        );
      });

      it("shares a claim round-robin across keys, oldest first within each", async () => {
        const { open } = await fresh();
        const outbox = open();
        const byKey = (k: string, n: number) =>
          Array.from({ length: n }, (_, i) => delivery(i, { keyId: k, createdAt: T0 + i, nextAttemptAt: T0 + i }));
        const a = byKey("key_a", 5);
        const b = byKey("key_b", 5);
        const c = byKey("key_c", 5);
        for (const d of [...a, ...b, ...c]) await outbox.enqueue(d);
        const claimed = await outbox.claimDue(T0 + 10, LEASE_MS, 3, { perKey: 5, perKeyHost: 5, perHost: 5 });
        assert.deepEqual(ids(claimed), ids([a[0], b[0], c[0]]), "one of each key, each key's oldest");
      });

      it("takes first attempts before retries", async () => {
        const { open } = await fresh();
        const outbox = open();
        const retry = delivery(1, { createdAt: T0 - 10_000, nextAttemptAt: T0 - 10_000 });
        await outbox.enqueue(retry);
        const [c] = await outbox.claimDue(T0 - 10_000, LEASE_MS, 1, CAPS);
        await outbox.recordAttempt(retry.id, c.lease, { attempts: 1, lastStatus: 500, retryAt: T0 - 5_000 });
        const fresh1 = delivery(2);
        const fresh2 = delivery(3);
        await outbox.enqueue(fresh1);
        await outbox.enqueue(fresh2);
        const claimed = await outbox.claimDue(T0, LEASE_MS, 2, CAPS);
        assert.deepEqual(ids(claimed), ids([fresh1, fresh2]), "the older retry waits for a free slot");
        assert.deepEqual(ids(await outbox.claimDue(T0, LEASE_MS, 2, CAPS)), [retry.id]);
      });
    });

    describe("two workers on one outbox", () => {
      let server: http.Server;
      let url: string;
      const seen = new Map<string, number>();
      before(async () => {
        server = http.createServer((req, res) => {
          const id = String(req.headers["webhook-id"]);
          seen.set(id, (seen.get(id) ?? 0) + 1);
          req.resume();
          // A little latency, so the two workers' attempts overlap.
          req.on("end", () => setTimeout(() => res.end("ok"), 5));
        });
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      });
      after(async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      });

      it("deliver another key's webhook within 10 s behind 1,100 of one key's to a receiver that hangs", async () => {
        const { open } = await fresh();
        const outbox = open();
        const hanging = http.createServer(() => undefined);
        await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
        const hangUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook`;
        const now = Date.now();
        const flood = Array.from({ length: 1100 }, (_, i) =>
          delivery(i, {
            keyId: "key_flood",
            url: hangUrl,
            host: "127.0.0.1",
            nextAttemptAt: now - 60_000 + i,
            createdAt: now - 60_000 + i,
          }),
        );
        for (let i = 0; i < flood.length; i += 100)
          await Promise.all(flood.slice(i, i + 100).map((d) => outbox.enqueue(d)));
        const other = delivery(5000, {
          keyId: "key_other",
          url,
          host: "127.0.0.1",
          nextAttemptAt: now,
          createdAt: now,
        });
        let delivered = () => {};
        const arrived = new Promise<void>((resolve) => (delivered = resolve));
        const worker = createWebhookWorker({
          store: outbox,
          allowHosts: ["127.0.0.1"],
          timeoutMs: 2_000,
          leaseMs: 5_000,
          pollMs: 500,
          onAttempt: (jobId, attempt) => {
            if (jobId === other.jobId && attempt.delivered_at) delivered();
          },
        });
        const started = Date.now();
        worker.start();
        try {
          await outbox.enqueue(other);
          worker.poke();
          const late = new Promise((_, reject) =>
            setTimeout(
              () => reject(new Error("the other key's webhook was not delivered within 10 s")),
              10_000,
            ).unref(),
          );
          await Promise.race([arrived, late]);
          assert.ok(Date.now() - started < 10_000);
          assert.equal(seen.get(other.id), 1);
        } finally {
          await worker.stop();
          hanging.closeAllConnections();
          await new Promise((resolve) => hanging.close(resolve));
        }
      });

      it("deliver each delivery exactly once", async () => {
        seen.clear();
        const { open } = await fresh();
        const a = open();
        const b = open();
        const now = Date.now();
        const all = Array.from({ length: 24 }, (_, i) => delivery(i, { url, nextAttemptAt: now, createdAt: now }));
        await Promise.all(all.map((d) => a.enqueue(d)));
        const reports: Array<[string, WebhookAttempt]> = [];
        const onAttempt = (jobId: string, attempt: WebhookAttempt) => {
          reports.push([jobId, attempt]);
        };
        const workers = [a, b].map((store) =>
          createWebhookWorker({ store, onAttempt, allowHosts: ["127.0.0.1"], concurrency: 4 }),
        );
        for (let round = 0; round < 50; round++) {
          const made = await Promise.all(workers.map((w) => w.runDue()));
          if (made[0] + made[1] === 0) break;
        }
        assert.deepEqual([...seen.keys()].sort(), all.map((d) => d.id).sort());
        assert.deepEqual(
          [...seen.values()].filter((n) => n !== 1),
          [],
          "an attempt was made twice",
        );
        assert.equal(reports.length, all.length);
        for (const [, attempt] of reports) {
          assert.equal(attempt.attempts, 1);
          assert.equal(attempt.last_status, 200);
          assert.ok(attempt.delivered_at);
        }
        for (const d of all) assert.equal(await a.get(d.id), null);
      });
    });
  });
}
