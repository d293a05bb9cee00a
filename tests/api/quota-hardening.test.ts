// Hardening for a public deployment: abandoned work keeps its unit, quota before cost, bounded uploads.
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, beforeEach, describe, it } from "node:test";
import { type Fakes, startAllFakes } from "../fakes";
import { type App, startApp } from "../helpers/app";
import { BROWSER, call, enhance, JSON_BROWSER, multipart } from "../helpers/http";
import { noisyPngOf, pngOf } from "../helpers/images";

let app: App;
let fakes: Fakes;

before(async () => {
  fakes = await startAllFakes();
  app = await startApp({
    name: "hardening",
    env: {
      ...fakes.env,
      GENERATION_TIMEOUT_MS: "20000",
      GENERATE_CONCURRENCY: "1",
      FREE_ENHANCEMENTS_PER_DAY: "1",
      MAX_UPLOAD_BYTES: String(1024 * 1024),
      MAX_INFLIGHT_UPLOAD_BYTES: String(2 * 1024 * 1024),
    },
  });
});
after(async () => {
  await app?.stop();
  await fakes?.closeAll();
});
beforeEach(() => fakes.resetAll());

const usageOf = async (from: string, kind: "generate" | "enhance" = "generate") => {
  const s = await call(app.url, "/api/status", { headers: BROWSER, from });
  return kind === "generate" ? s.json.usage_today : s.json.enhance.usage_today;
};

/** The caller's usage once it reads `expected`, or as it stands after 120 s of asking (a busy machine is slow). */
async function usageOnceAt(from: string, expected: number, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let usage = await usageOf(from);
  while (usage !== expected && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    usage = await usageOf(from);
  }
  return usage;
}

/** Starts a request and returns a way to hang up on it (the socket is destroyed, as a closed tab would). */
function openRequest(path: string, opts: { from: string; headers: Record<string, string>; body?: Buffer | string }) {
  const req = http.request(new URL(path, app.url), {
    method: "POST",
    headers: opts.headers,
    localAddress: opts.from,
    agent: false,
  });
  const done = new Promise<number>((resolve) => {
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
  });
  if (opts.body !== undefined) req.end(opts.body);
  return { req, done, hangUp: () => req.destroy() };
}

async function until(check: () => boolean, what: string, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const schnell = (prompt: string) => JSON.stringify({ prompt, model: "alpha-schnell" });

describe("abandoned work", () => {
  it("keeps the unit when the caller hangs up after the provider call was sent", async () => {
    fakes.together.mode = "hang";
    const from = "127.0.9.1";
    const r = openRequest("/api/generate", { from, headers: JSON_BROWSER, body: schnell("a lighthouse") });
    await until(() => fakes.together.requests.length > 0, "the provider call");
    r.hangUp();
    await r.done;
    await until(
      () => /provider route failed[^\n]*cancelled|cancelled[^\n]*provider route failed/.test(app.logs()),
      "the abort",
    );
    assert.equal(await usageOf(from), 1, "the cost was spent, so the unit is kept");
    assert.equal(fakes.fal.requests.length, 0, "no further route was tried after the hang-up");
  });

  it("gives the unit back when the caller hangs up while still queued", async () => {
    fakes.together.mode = "hang";
    const first = openRequest("/api/generate", { from: "127.0.9.2", headers: JSON_BROWSER, body: schnell("first") });
    await until(() => fakes.together.requests.length > 0, "the first provider call");
    // One generation runs at a time here, so this one waits in the queue.
    const queued = openRequest("/api/generate", { from: "127.0.9.3", headers: JSON_BROWSER, body: schnell("second") });
    await new Promise((r) => setTimeout(r, 300));
    queued.hangUp();
    await queued.done;
    // The server hears the hang-up a moment after the socket closes; the refund follows it.
    assert.equal(await usageOnceAt("127.0.9.3", 0), 0, "queued work that never started is refunded");
    // Only now free the slot: had the first job ended first, the queued one would have started before it left.
    first.hangUp();
    await first.done;
    assert.equal(fakes.together.requests.length, 1, "the queued job never reached the provider");
  });

  it("keeps the unit of an image already sent and gives back those still queued when the caller hangs up (n 4)", async () => {
    fakes.together.mode = "hang";
    const from = "127.0.9.5";
    const body = JSON.stringify({ prompt: "four gulls", model: "alpha-schnell", n: 4 });
    const r = openRequest("/api/generate", { from, headers: JSON_BROWSER, body });
    await until(() => fakes.together.requests.length > 0, "the first provider call");
    // One generation runs at a time here, so the other three images wait in the queue.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(fakes.together.requests.length, 1, "one image was sent");
    r.hangUp();
    await r.done;
    const usage = await usageOnceAt(from, 1);
    assert.equal(usage, 1, "the image sent keeps its unit; the three never started give theirs back");
  });
});

describe("quota before cost", () => {
  it("answers 429 to an exhausted caller's uploads without queueing them, while a fresh caller succeeds", async () => {
    const exhausted = "127.0.9.10";
    const small = await pngOf(32, 32);
    assert.equal(
      (await enhance(app.url, { image: { data: small, type: "image/png" } }, { from: exhausted })).status,
      200,
    );
    // About 70 KB each: 17 of them fit the in-flight budget, but not the enhance queue (2 running, 8 waiting).
    const big = await noisyPngOf(150, 150);
    const replies = await Promise.all([
      ...Array.from({ length: 16 }, () =>
        enhance(app.url, { image: { data: big, type: "image/png" } }, { from: exhausted }),
      ),
      enhance(app.url, { image: { data: big, type: "image/png" } }, { from: "127.0.9.11" }),
    ]);
    const fresh = replies.pop();
    assert.deepEqual(
      replies.map((r) => r.status),
      Array(16).fill(429),
    );
    assert.equal(fresh?.status, 200, fresh?.text);
    assert.equal(await usageOf(exhausted, "enhance"), 1);
  });

  it("refuses uploads past the in-flight byte budget with 503 busy, and recovers", async () => {
    const { body, contentType } = await multipart({
      image: { data: await noisyPngOf(420, 420), type: "image/png" },
    });
    // Three uploads that send all but their last bytes and then stall hold most of the 2 MiB budget: bytes count
    // as they arrive, so what is only declared would hold nothing.
    const stalled = ["127.0.9.20", "127.0.9.21", "127.0.9.22"].map((from) => {
      const r = openRequest("/api/enhance", {
        from,
        headers: { ...BROWSER, "Content-Type": contentType, "Content-Length": String(body.length) },
      });
      r.req.write(body.subarray(0, body.length - 1000));
      return r;
    });
    await new Promise((r) => setTimeout(r, 1000));
    const refused = await call(app.url, "/api/enhance", {
      method: "POST",
      from: "127.0.9.23",
      headers: { ...BROWSER, "Content-Type": contentType },
      body,
    });
    for (const r of stalled) r.hangUp();
    await Promise.all(stalled.map((r) => r.done));
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.json.error.code, "busy");
    assert.ok(Number(refused.headers["retry-after"]) > 0);
    assert.equal(await usageOf("127.0.9.23", "enhance"), 0);
    const later = await call(app.url, "/api/enhance", {
      method: "POST",
      from: "127.0.9.24",
      headers: { ...BROWSER, "Content-Type": contentType },
      body,
    });
    assert.equal(later.status, 200, later.text);
  });

  it("caps a chunked body whatever its parts, with 413", async () => {
    const boundary = "----darkroomboundary";
    // A decoy file part three times the cap, and then the body stays open: a server that only capped the image,
    // or waited for the end of the body, would never answer. One that caps the whole body answers 413 mid-stream.
    const { status, text } = await sendEndlessBody(
      "/api/enhance",
      `multipart/form-data; boundary=${boundary}`,
      `--${boundary}\r\nContent-Disposition: form-data; name="decoy"; filename="x.bin"\r\n\r\n`,
    );
    assert.equal(status, 413, text);
  });

  it("lets the client read each refusal before the connection closes, however fast it sends", async () => {
    // Each request asks for its connection to close after the answer (Connection: close) and is still sending when
    // refused. A server that closed at once would reset the connection under the client's writes, and the reset
    // can destroy the answer before it is read: the client sees EPIPE instead of the refusal.
    for (let i = 0; i < 10; i++) {
      const upload = await sendEndlessBody(
        "/api/enhance",
        "multipart/form-data; boundary=b",
        '--b\r\nContent-Disposition: form-data; name="image"; filename="x.png"\r\n\r\n',
      );
      assert.equal(upload.status, 413, upload.text);
      const json = await sendEndlessBody("/api/generate", "application/json", '{"prompt":"');
      assert.equal(json.status, 400, json.text);
      assert.match(json.text, /at most 64 KB/);
    }
  });
});

/**
 * Sends `head` and then up to 3 MiB more as a chunked body on a connection of its own (Connection: close), and
 * returns the answer, which must come while the body is still open.
 */
async function sendEndlessBody(path: string, contentType: string, head: string) {
  const req = http.request(new URL(path, app.url), {
    method: "POST",
    headers: { ...BROWSER, "Content-Type": contentType, "Transfer-Encoding": "chunked" },
    localAddress: "127.0.9.30",
    agent: false,
  });
  const reply = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
  });
  req.write(head);
  const chunk = Buffer.alloc(64 * 1024, 7);
  let answered = false;
  reply.finally(() => (answered = true)).catch(() => {});
  for (let sent = 0; !answered && sent < 3 * 1024 * 1024; sent += chunk.length) {
    // The server stops reading once it has refused the body: wait for room or for its answer, whichever comes.
    if (!req.write(chunk)) await Promise.race([new Promise((r) => req.once("drain", r)), reply.catch(() => {})]);
  }
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error("no answer while the body stayed open")), 120_000).unref(),
  );
  try {
    return await Promise.race([reply, timeout]);
  } finally {
    req.destroy();
  }
}
