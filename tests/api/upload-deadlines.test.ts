// Deadlines on upload bodies (issue 19): one that stalls, or trickles on past the total deadline, is answered
// 408 request_timeout and holds nothing after; JSON bodies have the same deadlines (issue 33). Short deadlines
// through the environment keep the test quick.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type App, startApp } from "../helpers/app";
import { type HeldReply, type HeldUpload, holdUpload, partHeader } from "../helpers/held-upload";
import { BROWSER, enhance } from "../helpers/http";
import { pngOf } from "../helpers/images";

const DECLARED = 512 * 1024;

function assertTimedOut(reply: HeldReply, message: RegExp) {
  assert.notEqual(reply, "closed", "the server answers 408 before it closes");
  if (reply === "closed") return;
  assert.equal(reply.status, 408, reply.text);
  const body = reply.json as { success: boolean; error: { code: string; message: string; request_id: string } };
  assert.equal(body.success, false);
  assert.equal(body.error.code, "request_timeout");
  assert.match(body.error.message, message);
  assert.match(body.error.request_id, /^req_[a-f0-9]{32}$/);
}

function settleWithin(upload: HeldUpload, ms: number): Promise<HeldReply> {
  return Promise.race([
    upload.reply,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref()),
  ]);
}

describe("upload deadlines", () => {
  let app: App;
  const held: HeldUpload[] = [];
  before(async () => {
    app = await startApp({
      name: "upload-deadlines",
      env: { UPLOAD_IDLE_TIMEOUT_MS: "1000", UPLOAD_TIMEOUT_MS: "3000" },
    });
  });
  after(async () => {
    for (const upload of held) upload.drop();
    await app?.stop();
  });

  it("answers bodies that stall 408, and the caller's uploads are its own again after", async () => {
    const from = "127.0.19.200";
    const stalled = Array.from({ length: 4 }, () =>
      holdUpload(app.url, "/api/enhance", { from, headers: BROWSER, declared: DECLARED, first: partHeader() }),
    );
    held.push(...stalled);
    for (const upload of stalled) {
      assertTimedOut(await settleWithin(upload, 10_000), /made no progress for 1 s/);
    }
    // Had the four kept their slots, this would be a 429 (at most 4 at once).
    const image = { data: await pngOf(24, 24), type: "image/png" };
    const next = await enhance(app.url, { image }, { from });
    assert.equal(next.status, 200, next.text);
  });

  it("answers a body that trickles on past the total deadline 408", async () => {
    const from = "127.0.19.201";
    const started = Date.now();
    const upload = holdUpload(app.url, "/api/generate", {
      from,
      headers: BROWSER,
      declared: DECLARED,
      first: partHeader(),
    });
    held.push(upload);
    // A byte every 300 ms is progress: the idle deadline never fires, the total one does.
    const trickle = setInterval(() => upload.send(Buffer.from("x")), 300);
    try {
      assertTimedOut(await settleWithin(upload, 15_000), /took longer than 3 s/);
    } finally {
      clearInterval(trickle);
    }
    assert.ok(Date.now() - started >= 2500, "it was the total deadline, not the idle one");
  });

  it("answers JSON bodies that stall, or trickle past the total deadline, 408", async () => {
    const json = { ...BROWSER, "Content-Type": "application/json" };
    const stalled = holdUpload(app.url, "/api/generate", {
      from: "127.0.19.202",
      headers: json,
      declared: 2048,
      first: Buffer.from('{"prompt": "a lighthouse'),
    });
    held.push(stalled);
    assertTimedOut(await settleWithin(stalled, 10_000), /made no progress for 1 s/);

    const started = Date.now();
    const trickling = holdUpload(app.url, "/api/waitlist", {
      from: "127.0.19.203",
      headers: json,
      declared: 2048,
      first: Buffer.from('{"email": "a'),
    });
    held.push(trickling);
    const trickle = setInterval(() => trickling.send(Buffer.from("a")), 300);
    try {
      assertTimedOut(await settleWithin(trickling, 15_000), /took longer than 3 s/);
    } finally {
      clearInterval(trickle);
    }
    assert.ok(Date.now() - started >= 2500, "it was the total deadline, not the idle one");
  });
});
