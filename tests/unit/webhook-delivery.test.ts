// Webhook delivery end to end against real receivers on 127.0.0.1: signatures checked by the standardwebhooks
// verifier, the retry schedule on an injected clock, redirects not followed, the attempt deadline, the 64 KB read
// cap, and private addresses refused before any connection (with a tripwire that stops one if the guard slips).
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";
import type { WebhookOutbox } from "@/lib/webhooks/outbox";
import { MAX_ATTEMPTS, nextRetryAt, RETRY_DELAYS_MS } from "@/lib/webhooks/schedule";
import { ATTEMPT_TIMEOUT_MS, MAX_RESPONSE_BYTES, type Resolver, sendWebhook } from "@/lib/webhooks/send";
import { newWebhookSecret, signWebhook } from "@/lib/webhooks/sign";
import { createWebhookWorker, enqueueWebhook, type WebhookAttempt } from "@/lib/webhooks/worker";
import { armLoopbackOnly, type Tripwire } from "@/tests/helpers/loopback-only";

type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };
type Receiver = { url: string; seen: Seen[]; server: http.Server; close(): Promise<void> };

/** A receiver on 127.0.0.1; `answer` gets the request's index (0-based) and writes the response. */
async function startReceiver(answer: (res: http.ServerResponse, index: number, seen: Seen) => void): Promise<Receiver> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      seen.push(entry);
      answer(res, seen.length - 1, entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/darkroom?source=test`,
    seen,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const ALLOW = ["127.0.0.1"];
const body = (n = 1) =>
  JSON.stringify({ type: "job.succeeded", timestamp: new Date().toISOString(), data: { id: `job_${n}` } });
const headersFor = (payload: string) => signWebhook({ id: "msg_test", secret: newWebhookSecret(), body: payload });
const stubResolver =
  (answers: Record<string, string[]>, calls: string[] = []): Resolver =>
  async (host) => {
    calls.push(host);
    const list = answers[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-webhooks-"));
let tripwire: Tripwire;
before(() => {
  tripwire = armLoopbackOnly();
});
after(() => {
  tripwire.disarm();
  fs.rmSync(root, { recursive: true, force: true });
});
afterEach(() => {
  assert.deepEqual(tripwire.blocked, [], "a connection to a non-loopback address was attempted");
});

let outbox: WebhookOutbox;
beforeEach(() => {
  outbox = openSqliteBackend(fs.mkdtempSync(path.join(root, "db-"))).webhooks;
});
afterEach(async () => {
  await outbox.close();
});

describe("the tripwire", () => {
  it("stops connects to non-loopback addresses before they leave", async () => {
    try {
      // 192.0.2.0/24 is documentation space: never routed, even if the tripwire failed.
      const result = await sendWebhook({
        url: "http://doc.test/",
        body: "{}",
        headers: {},
        allowHosts: ["doc.test"],
        resolve: stubResolver({ "doc.test": ["192.0.2.1"] }),
      });
      assert.equal(result.status, null);
      assert.match(result.error ?? "", /tripwire/);
      assert.deepEqual(tripwire.blocked, ["192.0.2.1"]);
    } finally {
      tripwire.blocked.length = 0;
    }
  });
});

describe("a receiver that fails twice, then accepts", () => {
  it("gets three signed attempts on the retry schedule, and onAttempt reports each", async () => {
    const receiver = await startReceiver((res, i) => {
      res.statusCode = i < 2 ? 500 : 200;
      res.end(i < 2 ? "not yet" : "ok");
    });
    try {
      const secret = newWebhookSecret();
      const payload = body();
      const start = Date.now();
      let clock = start;
      const reports: Array<[string, WebhookAttempt]> = [];
      const worker = createWebhookWorker({
        store: outbox,
        allowHosts: ALLOW,
        now: () => clock,
        random: () => 0.5,
        onAttempt: (jobId, attempt) => {
          reports.push([jobId, attempt]);
        },
      });
      const id = await enqueueWebhook(
        outbox,
        { jobId: "job_abc", keyId: "key_test", url: receiver.url, secret, body: payload },
        clock,
      );

      assert.equal(await worker.runDue(), 1);
      clock = start + RETRY_DELAYS_MS[0] - 1;
      assert.equal(await worker.runDue(), 0);
      clock = start + RETRY_DELAYS_MS[0];
      assert.equal(await worker.runDue(), 1);
      clock += RETRY_DELAYS_MS[1];
      assert.equal(await worker.runDue(), 1);
      const deliveredAt = clock;
      clock += 24 * 3600_000;
      assert.equal(await worker.runDue(), 0);
      assert.equal(await outbox.get(id), null);

      assert.equal(receiver.seen.length, 3);
      for (const seen of receiver.seen) {
        assert.equal(seen.method, "POST");
        assert.equal(seen.url, "/hooks/darkroom?source=test");
        assert.equal(seen.headers["content-type"], "application/json");
        assert.equal(seen.body, payload);
        // The same id on every retry; each attempt signed afresh.
        assert.equal(seen.headers["webhook-id"], id);
        assert.deepEqual(
          new Webhook(secret).verify(seen.body, seen.headers as Record<string, string>),
          JSON.parse(payload),
        );
      }
      assert.deepEqual(
        receiver.seen.map((s) => Number(s.headers["webhook-timestamp"]) - Math.floor(start / 1000)),
        [0, 5, 35],
      );
      assert.deepEqual(reports, [
        ["job_abc", { attempts: 1, last_status: 500, delivered_at: null }],
        ["job_abc", { attempts: 2, last_status: 500, delivered_at: null }],
        ["job_abc", { attempts: 3, last_status: 200, delivered_at: new Date(deliveredAt).toISOString() }],
      ]);
    } finally {
      await receiver.close();
    }
  });
});

describe("the retry schedule", () => {
  it("is about 5 s, 30 s, 2 min, 10 min and 30 min, then nothing", () => {
    assert.deepEqual(RETRY_DELAYS_MS, [5_000, 30_000, 120_000, 600_000, 1_800_000]);
    assert.equal(MAX_ATTEMPTS, 6);
    for (let attempts = 1; attempts <= 5; attempts++) {
      const base: number = RETRY_DELAYS_MS[attempts - 1];
      assert.equal(
        nextRetryAt(attempts, 1000, () => 0.5),
        1000 + base,
      );
      // Jitter stays within 10% either way.
      assert.equal(
        nextRetryAt(attempts, 0, () => 0),
        Math.round(base * 0.9),
      );
      assert.ok((nextRetryAt(attempts, 0, () => 0.999_999) ?? 0) <= Math.round(base * 1.1));
    }
    assert.equal(nextRetryAt(6, 1000), null);
  });

  it("makes six attempts against a receiver that never accepts, then gives up", async () => {
    const receiver = await startReceiver((res) => {
      res.statusCode = 503;
      res.end();
    });
    try {
      const start = Date.now();
      let clock = start;
      const reports: WebhookAttempt[] = [];
      const worker = createWebhookWorker({
        store: outbox,
        allowHosts: ALLOW,
        now: () => clock,
        random: () => 0.5,
        onAttempt: (_, attempt) => {
          reports.push(attempt);
        },
      });
      const id = await enqueueWebhook(
        outbox,
        { jobId: "job_x", keyId: "key_test", url: receiver.url, secret: newWebhookSecret(), body: body() },
        clock,
      );
      const attemptTimes: number[] = [];
      // Step the clock a second at a time up to an hour: attempts happen exactly when due, never early.
      for (let t = 0; t <= 3600; t++) {
        clock = start + t * 1000;
        const made = await worker.runDue();
        for (let i = 0; i < made; i++) attemptTimes.push(t);
      }
      assert.deepEqual(attemptTimes, [0, 5, 35, 155, 755, 2555]);
      assert.equal(receiver.seen.length, 6);
      assert.equal(new Set(receiver.seen.map((s) => s.headers["webhook-id"])).size, 1);
      assert.deepEqual(
        reports,
        [1, 2, 3, 4, 5, 6].map((attempts) => ({ attempts, last_status: 503, delivered_at: null })),
      );
      assert.equal(await outbox.get(id), null);
    } finally {
      await receiver.close();
    }
  });

  it("retries a network error with last_status null", async () => {
    const receiver = await startReceiver(() => undefined);
    const url = receiver.url;
    await receiver.close(); // nothing listens there now: connection refused
    let clock = Date.now();
    const reports: WebhookAttempt[] = [];
    const worker = createWebhookWorker({
      store: outbox,
      allowHosts: ALLOW,
      now: () => clock,
      random: () => 0.5,
      onAttempt: (_, a) => {
        reports.push(a);
      },
    });
    const id = await enqueueWebhook(
      outbox,
      { jobId: "job_n", keyId: "key_test", url, secret: newWebhookSecret(), body: body() },
      clock,
    );
    assert.equal(await worker.runDue(), 1);
    assert.deepEqual(reports, [
      { attempts: 1, last_status: null, delivered_at: null, last_error: "the connection failed (ECONNREFUSED)" },
    ]);
    const stored = await outbox.get(id);
    assert.equal(stored?.attempts, 1);
    assert.equal(stored?.nextAttemptAt, clock + 5_000);
    clock += 5_000;
    assert.equal(await worker.runDue(), 1);
  });
});

describe("one attempt", () => {
  it("does not follow a redirect, and counts it as a failed attempt", async () => {
    const receiver = await startReceiver((res, _i, seen) => {
      if (seen.url.startsWith("/elsewhere")) {
        res.end("followed");
        return;
      }
      res.writeHead(302, { location: "/elsewhere" });
      res.end();
    });
    try {
      const payload = body();
      const result = await sendWebhook({
        url: receiver.url,
        body: payload,
        headers: headersFor(payload),
        allowHosts: ALLOW,
      });
      assert.equal(result.status, 302);
      assert.equal(receiver.seen.length, 1);

      const clock = Date.now();
      const reports: WebhookAttempt[] = [];
      const worker = createWebhookWorker({
        store: outbox,
        allowHosts: ALLOW,
        now: () => clock,
        random: () => 0.5,
        onAttempt: (_, a) => {
          reports.push(a);
        },
      });
      const id = await enqueueWebhook(
        outbox,
        { jobId: "job_r", keyId: "key_test", url: receiver.url, secret: newWebhookSecret(), body: payload },
        clock,
      );
      await worker.runDue();
      assert.deepEqual(reports, [{ attempts: 1, last_status: 302, delivered_at: null }]);
      assert.equal((await outbox.get(id))?.nextAttemptAt, clock + 5_000);
      assert.deepEqual(
        receiver.seen.map((s) => s.url),
        ["/hooks/darkroom?source=test", "/hooks/darkroom?source=test"],
      );
    } finally {
      await receiver.close();
    }
  });

  it("gives up on a receiver that answers too slowly, at the deadline", async () => {
    assert.equal(ATTEMPT_TIMEOUT_MS, 10_000);
    const answered: Array<() => void> = [];
    const receiver = await startReceiver((res) => {
      answered.push(() => res.end("late"));
    });
    try {
      const payload = body();
      const started = performance.now();
      const result = await sendWebhook({
        url: receiver.url,
        body: payload,
        headers: headersFor(payload),
        allowHosts: ALLOW,
        timeoutMs: 300,
      });
      const took = performance.now() - started;
      assert.equal(result.status, null);
      assert.match(result.error ?? "", /no answer within 300 ms/);
      assert.ok(took >= 290 && took < 3000, `took ${took} ms`);
      assert.equal(receiver.seen.length, 1, "the request reached the receiver");
    } finally {
      for (const answer of answered) answer();
      await receiver.close();
    }
  });

  it("gives up at the connect deadline, well before the attempt's, on a host whose TLS handshake never ends", async () => {
    // A TCP listener that takes the connection and says nothing: the https connection is never made.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const payload = body();
      const started = performance.now();
      const result = await sendWebhook({
        url: `https://127.0.0.1:${port}/hooks`,
        body: payload,
        headers: headersFor(payload),
        allowHosts: ALLOW,
        timeoutMs: 5_000,
        connectTimeoutMs: 200,
      });
      const took = performance.now() - started;
      assert.equal(result.status, null);
      assert.equal(result.reason, "no connection within 200 ms");
      assert.ok(took >= 190 && took < 2_000, `took ${took} ms`);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("reads at most 64 KB of a huge answer, then drops the connection", async () => {
    const total = 256 * 1024 * 1024;
    let written = 0;
    let closedEarly = false;
    const receiver = await startReceiver((res) => {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(total) });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      res.on("close", () => {
        closedEarly = written < total;
      });
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once("drain", pump);
            return;
          }
        }
        if (!res.destroyed) res.end();
      };
      pump();
    });
    try {
      const payload = body();
      const result = await sendWebhook({
        url: receiver.url,
        body: payload,
        headers: headersFor(payload),
        allowHosts: ALLOW,
      });
      assert.equal(result.status, 200);
      assert.equal(result.bytesRead, MAX_RESPONSE_BYTES);
      // The server sees the connection go long before its body is through.
      for (let i = 0; i < 100 && !closedEarly; i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(closedEarly, "the connection was not dropped");
      assert.ok(written < 64 * 1024 * 1024, `the server wrote ${written} bytes`);
    } finally {
      await receiver.close();
    }
  });

  it("connects to the address it checked, not to a second lookup", async () => {
    const receiver = await startReceiver((res) => res.end("ok"));
    try {
      const port = new URL(receiver.url).port;
      const calls: string[] = [];
      const payload = body();
      // receiver.test exists only in this resolver: the connection can only have used its answer.
      const result = await sendWebhook({
        url: `http://receiver.test:${port}/in`,
        body: payload,
        headers: headersFor(payload),
        allowHosts: ["receiver.test"],
        resolve: stubResolver({ "receiver.test": ["127.0.0.1"] }, calls),
      });
      assert.equal(result.status, 200);
      assert.deepEqual(calls, ["receiver.test"]);
      assert.equal(receiver.seen[0].headers.host, `receiver.test:${port}`);
    } finally {
      await receiver.close();
    }
  });
});

describe("the SSRF guard at send time", () => {
  const refusedWithoutConnecting = async (
    url: string,
    answers: Record<string, string[]>,
    allowHosts: string[] = [],
  ) => {
    const before = tripwire.connects;
    const payload = body();
    const result = await sendWebhook({
      url,
      body: payload,
      headers: headersFor(payload),
      allowHosts,
      resolve: stubResolver(answers),
    });
    assert.equal(result.status, null);
    assert.equal(tripwire.connects, before, "a connection was attempted");
    return result;
  };

  it("refuses a name that resolves to a private address, before connecting", async () => {
    const result = await refusedWithoutConnecting("https://hooks.example.test/in", {
      "hooks.example.test": ["10.0.0.1"],
    });
    assert.equal(result.refused, "hooks.example.test is at 10.0.0.1, a private address");
  });

  it("refuses when any of the addresses is not public", async () => {
    for (const bad of ["169.254.169.254", "127.0.0.1", "::1", "fd00::1", "::ffff:10.1.2.3", "100.64.1.1", "0.0.0.0"]) {
      const result = await refusedWithoutConnecting("https://multi.example.test/", {
        "multi.example.test": ["203.0.114.7", bad],
      });
      assert.match(result.refused ?? "", new RegExp(`is at ${bad.replace(/[.]/g, "\\.")}, a `));
    }
  });

  it("refuses a loopback name that is not allow-listed, and an http URL that no longer is", async () => {
    const loop = await refusedWithoutConnecting("https://sneaky.example.test/", {
      "sneaky.example.test": ["127.0.0.1"],
    });
    assert.match(loop.refused ?? "", /loopback/);
    const http = await refusedWithoutConnecting("http://127.0.0.1:9/", {});
    assert.match(http.refused ?? "", /https/);
  });

  it("counts a refusal as a failed attempt that is not retried", async () => {
    let clock = Date.now();
    const reports: WebhookAttempt[] = [];
    const worker = createWebhookWorker({
      store: outbox,
      allowHosts: [],
      now: () => clock,
      resolve: stubResolver({ "hooks.example.test": ["10.0.0.1"] }),
      onAttempt: (_, a) => {
        reports.push(a);
      },
    });
    const before = tripwire.connects;
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => lines.push(line);
    let id: string;
    try {
      id = await enqueueWebhook(
        outbox,
        {
          jobId: "job_p",
          keyId: "key_test",
          url: "https://hooks.example.test/in",
          secret: newWebhookSecret(),
          body: body(),
        },
        clock,
      );
      assert.equal(await worker.runDue(), 1);
    } finally {
      console.log = log;
    }
    assert.equal(tripwire.connects, before);
    assert.deepEqual(reports, [
      {
        attempts: 1,
        last_status: null,
        delivered_at: null,
        last_error: "hooks.example.test resolves to a private address; nothing was sent",
      },
    ]);
    assert.doesNotMatch(JSON.stringify(reports), /10\.0\.0\.1/, "the job record never shows the address");
    assert.equal(await outbox.get(id), null);
    clock += 3600_000;
    assert.equal(await worker.runDue(), 0);
    const warning = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "webhook refused; not retried");
    assert.equal(warning?.level, "warn");
    assert.equal(warning?.job_id, "job_p");
  });
});

describe("the running worker", () => {
  it("delivers an enqueued webhook at once when poked, without waiting for the poll", async () => {
    const receiver = await startReceiver((res) => res.end("ok"));
    const reports: WebhookAttempt[] = [];
    let onDelivered = () => {};
    const delivered = new Promise<void>((resolve) => {
      onDelivered = resolve;
    });
    const worker = createWebhookWorker({
      store: outbox,
      allowHosts: ALLOW,
      pollMs: 60_000,
      onAttempt: (_, a) => {
        reports.push(a);
        onDelivered();
      },
    });
    worker.start();
    try {
      const secret = newWebhookSecret();
      const payload = body();
      const started = performance.now();
      // The first poll runs at start; this enqueue comes after it, so only the poke (what the composition root
      // does when a job with a webhook ends) can deliver it in time.
      await new Promise((r) => setTimeout(r, 100));
      const id = await enqueueWebhook(outbox, {
        jobId: "job_live",
        keyId: "key_test",
        url: receiver.url,
        secret,
        body: payload,
      });
      worker.poke();
      const late = new Promise((_, reject) =>
        setTimeout(() => reject(new Error("not delivered within 10 s")), 10_000).unref(),
      );
      await Promise.race([delivered, late]);
      assert.ok(performance.now() - started < 10_000);
      assert.equal(reports[0].attempts, 1);
      assert.equal(reports[0].last_status, 200);
      assert.ok(reports[0].delivered_at);
      assert.equal(receiver.seen[0].headers["webhook-id"], id);
      new Webhook(secret).verify(receiver.seen[0].body, receiver.seen[0].headers as Record<string, string>);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});

describe("a host that never answers", () => {
  it("opens the breaker of a key and host after the set number of timeouts, refuses without connecting, then probes once", async () => {
    let connections = 0;
    const receiver = await startReceiver(() => undefined); // reads the request, never answers
    receiver.server.on("connection", () => connections++);
    let clock = Date.now();
    const reports: WebhookAttempt[] = [];
    const worker = createWebhookWorker({
      store: outbox,
      allowHosts: ALLOW,
      now: () => clock,
      random: () => 0.5,
      timeoutMs: 300,
      leaseMs: 5_000,
      breaker: { failuresToOpen: 2, openMs: 60_000 },
      onAttempt: (_, a) => {
        reports.push(a);
      },
    });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const d = {
          jobId: `job_b${i}`,
          keyId: "key_b",
          url: receiver.url,
          secret: newWebhookSecret(),
          body: body(i),
        };
        ids.push(await enqueueWebhook(outbox, d, clock));
      }
      // Two in flight for the key to the host at most: two timeouts, which open the breaker.
      assert.equal(await worker.runDue(), 2);
      assert.equal(connections, 2);
      assert.deepEqual(
        reports.map((r) => r.last_error),
        ["no answer within 300 ms", "no answer within 300 ms"],
      );
      // The other two are not sent: held back with the reason, tried after the breaker's time, no attempt counted.
      assert.equal(await worker.runDue(), 2);
      assert.equal(connections, 2, "no connection while the breaker is open");
      for (const r of reports.slice(2)) {
        assert.equal(r.attempts, 0);
        assert.equal(r.last_status, null);
        assert.match(
          r.last_error ?? "",
          /^not sent: 127\.0\.0\.1 gave no answer to 2 attempts in a row; its breaker is open until /,
        );
      }
      const refused = await Promise.all(ids.slice(2).map((id) => outbox.get(id)));
      for (const d of refused)
        assert.ok((d?.nextAttemptAt ?? 0) >= clock + 60_000, "not tried before the breaker closes");
      // After openMs one probe goes through; the others wait for it.
      clock += 61_000;
      const probeRound = worker.runDue();
      assert.equal(await probeRound, 2);
      assert.equal(connections, 3, "exactly one probe");
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  it("holds back only the key whose receiver is dead, not another key's deliveries to the same host", async () => {
    const dead = await startReceiver(() => undefined);
    const alive = await startReceiver((res) => res.end("ok"));
    let clock = Date.now();
    const reports: Array<[string, WebhookAttempt]> = [];
    const worker = createWebhookWorker({
      store: outbox,
      allowHosts: ALLOW,
      now: () => clock,
      timeoutMs: 300,
      leaseMs: 5_000,
      breaker: { failuresToOpen: 1, openMs: 60_000 },
      onAttempt: (jobId, a) => void reports.push([jobId, a]),
    });
    try {
      const enqueue = (jobId: string, keyId: string, url: string) =>
        enqueueWebhook(outbox, { jobId, keyId, url, secret: newWebhookSecret(), body: body() }, clock);
      await enqueue("job_a1", "key_a", dead.url);
      assert.equal(await worker.runDue(), 1, "key A's timeout opens key A's breaker for 127.0.0.1");
      clock += 1_000;
      await enqueue("job_b1", "key_b", alive.url);
      assert.equal(await worker.runDue(), 1);
      assert.equal(reports[1][0], "job_b1");
      assert.equal(reports[1][1].last_status, 200, "key B's webhook to the same host goes out");
      assert.equal(alive.seen.length, 1);
    } finally {
      await worker.stop();
      await dead.close();
      await alive.close();
    }
  });

  it("keeps a delivery's retry schedule while the breaker holds it back", async () => {
    const receiver = await startReceiver(() => undefined);
    let clock = Date.now();
    const worker = createWebhookWorker({
      store: outbox,
      allowHosts: ALLOW,
      now: () => clock,
      random: () => 0.5,
      timeoutMs: 300,
      leaseMs: 5_000,
      breaker: { failuresToOpen: 1, openMs: 10_000 },
      onAttempt: () => undefined,
    });
    try {
      const enqueue = (n: number) =>
        enqueueWebhook(
          outbox,
          { jobId: `job_s${n}`, keyId: "key_s", url: receiver.url, secret: newWebhookSecret(), body: body(n) },
          clock,
        );
      await enqueue(1);
      assert.equal(await worker.runDue(), 1, "the timeout opens the breaker");
      const held = await enqueue(2);
      // Held back again and again while the breaker stays open (each probe times out too): never attempted.
      for (let round = 0; round < 6; round++) {
        clock = Math.max(clock + 1, (await outbox.get(held))?.nextAttemptAt ?? clock);
        await worker.runDue();
      }
      const d = await outbox.get(held);
      assert.ok(d, "a delivery never attempted is not given up while the schedule's time lasts");
      assert.equal(receiver.seen.filter((r) => r.headers["webhook-id"] === held).length, d.attempts);
      assert.ok(d.attempts < MAX_ATTEMPTS, `only attempts made are counted: ${d.attempts}`);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  it("lets the next attempt probe when a half-open probe is refused before connecting", async () => {
    const alive = await startReceiver((res) => res.end("ok"));
    const dead = await startReceiver(() => undefined);
    let clock = Date.now();
    const reports = new Map<string, WebhookAttempt>();
    const worker = createWebhookWorker({
      store: outbox,
      allowHosts: ALLOW,
      now: () => clock,
      timeoutMs: 300,
      leaseMs: 5_000,
      breaker: { failuresToOpen: 1, openMs: 10_000 },
      onAttempt: (jobId, a) => void reports.set(jobId, a),
    });
    try {
      const enqueue = (n: number, url: string) =>
        enqueueWebhook(
          outbox,
          { jobId: `job_r${n}`, keyId: "key_r", url, secret: newWebhookSecret(), body: body(n) },
          clock,
        );
      await enqueue(1, dead.url);
      assert.equal(await worker.runDue(), 1);
      assert.equal(reports.get("job_r1")?.last_status, null, "the timeout opens the breaker");
      clock += 11_000;
      // The half-open probe is a delivery to the same host whose URL is refused before anything is sent.
      await enqueue(2, alive.url.replace("http://", "http://user:secret@"));
      // The first delivery's retry is due too; the new delivery, a first attempt, goes first and is the probe.
      assert.equal(await worker.runDue(), 2);
      assert.match(reports.get("job_r2")?.last_error ?? "", /user name or password/, "the probe was refused");
      clock += 1;
      await enqueue(3, alive.url);
      assert.equal(await worker.runDue(), 1);
      assert.equal(
        reports.get("job_r3")?.last_status,
        200,
        "the next delivery probes, and its answer closes the breaker",
      );
      assert.equal(alive.seen.length, 1);
    } finally {
      await worker.stop();
      await alive.close();
      await dead.close();
    }
  });
});
