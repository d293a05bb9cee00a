// Slow and hostile clients on either store (issue 19): half-sent uploads cannot block anyone else's enhancements, a
// caller with nothing left is refused before it sends its body, and event streams are capped per caller.
import assert from "node:assert/strict";
import http from "node:http";
import { after, afterEach, before, describe, it } from "node:test";
import { type Fakes, startAllFakes } from "../fakes";
import { type App, createKey, startApp } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { type HeldReply, type HeldUpload, holdUpload, partHeader } from "../helpers/held-upload";
import { BROWSER, call, enhance, generate } from "../helpers/http";
import { pngOf } from "../helpers/images";

const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
const MAX_INFLIGHT_UPLOAD_BYTES = 128 * 1024 * 1024;
/** The largest body an enhance may declare: the file limit plus the multipart envelope (lib/http/read-upload.ts). */
const MAX_BODY = MAX_UPLOAD_BYTES + 64 * 1024;

/** What an attacker declares for 16 uploads: as much as the in-flight budget holds, to the byte, then more. */
function attackSizes(count = 16): number[] {
  let left = MAX_INFLIGHT_UPLOAD_BYTES;
  return Array.from({ length: count }, () => {
    const size = left > 0 ? Math.min(MAX_BODY, left) : MAX_BODY;
    left -= size;
    return size;
  });
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

function assertRefused(reply: HeldReply, message: RegExp) {
  assert.notEqual(reply, "closed", "the server answers, it does not just drop the connection");
  if (reply === "closed") return;
  assert.equal(reply.status, 429, reply.text);
  const body = reply.json as { success: boolean; error: { code: string; message: string; request_id: string } };
  assert.equal(body.success, false);
  assert.equal(body.error.code, "rate_limited");
  assert.match(body.error.message, message);
  assert.match(body.error.request_id, /^req_[a-f0-9]{32}$/);
  assert.ok(Number(reply.headers["retry-after"]) > 0, "Retry-After in seconds");
}

type Stream = { status: number; text: string; close: () => void };

/** Opens an event stream and resolves on its headers (a refusal's body read in full); the stream stays open. */
function openStream(url: string, from: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: BROWSER, localAddress: from, agent: false }, (res) => {
      const close = () => req.destroy();
      if (res.statusCode === 200) return resolve({ status: 200, text: "", close });
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, close }));
    });
    req.on("error", reject);
  });
}

export function runUploadsSuite(backend: Backend) {
  let app: App;
  let fakes: Fakes;
  let backends: Backends | undefined;
  let octet = 10;
  const nextIp = () => `127.0.19.${octet++}`;
  const held: HeldUpload[] = [];

  before(async () => {
    fakes = await startAllFakes();
    backends = backend === "embedded" ? undefined : await startBackends(backend);
    app = await startApp({
      name: `uploads-${backend}`,
      env: {
        ...fakes.env,
        ...backends?.env,
        FREE_ENHANCEMENTS_PER_DAY: "2",
        FREE_GENERATIONS_PER_DAY: "1",
        MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES),
        MAX_INFLIGHT_UPLOAD_BYTES: String(MAX_INFLIGHT_UPLOAD_BYTES),
        // Held uploads must outlast the legitimate calls made beside them on a loaded machine; the idle and total
        // deadlines have their own tests (upload-deadlines.test.ts).
        UPLOAD_IDLE_TIMEOUT_MS: "120000",
        UPLOAD_TIMEOUT_MS: "240000",
      },
    });
  });
  // Whatever a test asserted, its held uploads go, so the next test starts with the whole budget.
  afterEach(() => {
    for (const upload of held.splice(0)) upload.drop();
  });
  after(async () => {
    await app?.stop();
    await fakes?.closeAll();
    await backends?.close();
  });

  const attack = (from: string, first?: Buffer) => {
    const uploads = attackSizes().map((declared) =>
      holdUpload(app.url, "/api/enhance", { from, headers: BROWSER, declared, first }),
    );
    held.push(...uploads);
    return uploads;
  };
  const legitEnhances = async () => {
    const { key } = await createKey(app, "pro");
    const image = { data: await pngOf(32, 24), type: "image/png" };
    const pro = await enhance(app.url, { image }, { headers: { Authorization: `Bearer ${key}` }, from: nextIp() });
    const free = await enhance(app.url, { image }, { from: nextIp() });
    return { pro, free };
  };

  describe("slow uploads", () => {
    it("lets a Pro and a fresh Free enhance through while one Free client holds 16 half-sent uploads", async () => {
      const uploads = attack(nextIp(), partHeader());
      // Each upload past the client's fourth is refused at once; the first four stay open, being read.
      await until(() => uploads.filter((u) => u.settled).length >= 12, 10_000);

      const { pro, free } = await legitEnhances();
      assert.equal(pro.status, 200, `a Pro enhance during the attack: ${pro.text}`);
      assert.equal(free.status, 200, `a fresh Free enhance during the attack: ${free.text}`);

      const open = uploads.filter((u) => !u.settled);
      assert.equal(open.length, 4, "four uploads of one client are read at once, and they are still open");
      const refused = await Promise.all(uploads.filter((u) => u.settled).map((u) => u.reply));
      assert.equal(refused.length, 12);
      for (const reply of refused) assertRefused(reply, /at most 4 at once/);
    });

    it("refuses a Free client with its enhancements used up before it sends any body, 16 times at once", async () => {
      const from = nextIp();
      const image = { data: await pngOf(16, 16), type: "image/png" };
      for (let i = 0; i < 2; i++) assert.equal((await enhance(app.url, { image }, { from })).status, 200);

      const uploads = attack(from);
      const replies = await within(Promise.all(uploads.map((u) => u.reply)), 15_000, "16 uploads that send no body");
      for (const reply of replies) assertRefused(reply, /Daily free limit of 2 reached/);

      const { pro, free } = await legitEnhances();
      assert.equal(pro.status, 200, pro.text);
      assert.equal(free.status, 200, free.text);
      const status = await call(app.url, "/api/status", { headers: BROWSER, from });
      assert.equal(status.json.enhance.usage_today, 2, "the refusals used nothing");
    });

    it("refuses a spent caller before its body even with a new Idempotency-Key (only a recorded key is read)", async () => {
      const from = nextIp();
      const image = { data: await pngOf(16, 16), type: "image/png" };
      for (let i = 0; i < 2; i++) assert.equal((await enhance(app.url, { image }, { from })).status, 200);
      const headers = { ...BROWSER, "Idempotency-Key": `uploads-${backend}-new-${from}` };
      const upload = holdUpload(app.url, "/api/enhance", { from, headers, declared: MAX_BODY });
      held.push(upload);
      assertRefused(await within(upload.reply, 15_000, "a spent caller's keyed upload"), /Daily free limit of 2/);
    });

    it("refuses a spent caller's multipart generate before its body too", async () => {
      const from = nextIp();
      assert.equal((await generate(app.url, { prompt: "the only one today" }, { from })).status, 200);
      const upload = holdUpload(app.url, "/api/generate", { from, headers: BROWSER, declared: MAX_BODY });
      held.push(upload);
      assertRefused(await within(upload.reply, 15_000, "a spent caller's generate upload"), /Daily free limit of 1/);
    });

    it("still replays a stored answer to a caller with nothing left, for its Idempotency-Key", async () => {
      const from = nextIp();
      const image = { data: await pngOf(20, 12), type: "image/png" };
      const headers = { "Idempotency-Key": `uploads-${backend}-replay` };
      const first = await enhance(app.url, { image }, { from });
      assert.equal(first.status, 200, first.text);
      const keyed = await enhance(app.url, { image }, { from, headers });
      assert.equal(keyed.status, 200, keyed.text);
      assert.equal(keyed.json.remaining, 0);
      const again = await enhance(app.url, { image }, { from, headers });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.headers["idempotent-replayed"], "true");
      assert.equal(again.json.id, keyed.json.id);
      const fresh = await enhance(app.url, { image }, { from, headers: { "Idempotency-Key": "another" } });
      assert.equal(fresh.status, 429, fresh.text);
    });
  });

  describe("event streams", () => {
    it("keeps at most 20 open per caller: the 21st gets 429, and a slot frees when a stream closes", async () => {
      fakes.bfl.mode = "hang";
      const from = nextIp();
      const accepted = await generate(
        app.url,
        { prompt: "a long wait" },
        { from, headers: { Prefer: "respond-async" } },
      );
      assert.equal(accepted.status, 202, accepted.text);
      const url: string = accepted.json.events_url;
      const streams: Stream[] = [];
      try {
        for (let i = 0; i < 20; i++) {
          const stream = await openStream(url, from);
          streams.push(stream);
          assert.equal(stream.status, 200, `stream ${i + 1}: ${stream.text}`);
        }
        const refused = await openStream(url, from);
        assert.equal(refused.status, 429, refused.text);
        const body = JSON.parse(refused.text);
        assert.equal(body.success, false);
        assert.equal(body.error.code, "rate_limited");
        assert.match(body.error.message, /at most 20 at once/);
        assert.match(body.error.request_id, /^req_[a-f0-9]{32}$/);

        streams.shift()?.close();
        let reopened: Stream | undefined;
        for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
          const attempt = await openStream(url, from);
          if (attempt.status === 200) {
            reopened = attempt;
            break;
          }
          assert.equal(attempt.status, 429, attempt.text);
          await new Promise((r) => setTimeout(r, 200));
        }
        assert.ok(reopened, "a closed stream gives its slot back");
        streams.push(reopened);
        assert.equal((await openStream(url, from)).status, 429, "and only that one slot");
      } finally {
        for (const stream of streams) stream.close();
        await call(accepted.json.status_url, "", { method: "DELETE", headers: BROWSER, from });
        fakes.bfl.mode = "ok";
      }
    });
  });
}
