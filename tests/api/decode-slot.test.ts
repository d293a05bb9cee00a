// Edit inputs are decoded inside a bounded slot (issue 33, item 1; contract 1.3): with every decode slot taken and
// no place left to wait, another edit is answered 503 busy with Retry-After and uses no unit, against the real built
// app. The edit that holds the slot reads a library image whose file is a named pipe, so it stays in its decode
// until the test opens the pipe's other end: no race with how fast the machine decodes.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type App, startApp } from "../helpers/app";
import { BROWSER, call, generate, multipart } from "../helpers/http";
import { pngOf } from "../helpers/images";

const METRICS_TOKEN = "decode-slot-metrics-token-0123456789";
let app: App;
let pipe: string | undefined;

/** Opens the pipe's writing end and closes it at once: the held decode then reads an empty file and ends. */
function releasePipe() {
  if (!pipe) return;
  try {
    fs.closeSync(fs.openSync(pipe, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
  } catch {
    // No reader (ENXIO): nothing is held.
  }
}

before(async () => {
  app = await startApp({
    name: "decode-slot",
    env: { DECODE_CONCURRENCY: "1", DECODE_QUEUE: "0", METRICS_TOKEN },
  });
});
after(async () => {
  releasePipe();
  await app?.stop();
});

async function decodeRunning(): Promise<number> {
  const res = await call(app.url, "/metrics", { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(res.status, 200, res.text);
  const line = res.text.split("\n").find((l) => l.startsWith('darkroom_queue_running{queue="decode"}'));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

const usageOf = async (from: string) =>
  (await call(app.url, "/api/status", { headers: BROWSER, from })).json.usage_today;

describe("the decode slot", () => {
  it("answers an edit beyond the slots 503 busy with Retry-After, and its caller keeps the unit", async () => {
    const owner = "127.0.12.1";
    const first = await generate(app.url, { prompt: "a harbour" }, { from: owner });
    assert.equal(first.status, 200, first.text);
    // The library image's file becomes a named pipe: reading it waits for a writer.
    const file = path.join(app.dataDir, "images", first.json.id.includes(".") ? first.json.id : `${first.json.id}.png`);
    assert.ok(fs.existsSync(file), file);
    fs.rmSync(file);
    execFileSync("mkfifo", [file]);
    pipe = file;

    const holding = generate(
      app.url,
      { prompt: "the harbour at dusk", image_id: first.json.id },
      { from: owner, timeoutMs: 120_000 },
    );
    const deadline = Date.now() + 120_000;
    while ((await decodeRunning()) < 1) {
      assert.ok(Date.now() < deadline, "the first edit never took the decode slot");
      await new Promise((r) => setTimeout(r, 50));
    }

    const other = "127.0.12.2";
    const { body, contentType } = await multipart({
      prompt: "a red barn",
      image: { data: await pngOf(64, 64), type: "image/png", name: "image.png" },
    });
    const refused = await call(app.url, "/api/generate", {
      method: "POST",
      headers: { ...BROWSER, "Content-Type": contentType },
      body,
      from: other,
      timeoutMs: 120_000,
    });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.json.error.code, "busy", refused.text);
    assert.match(String(refused.headers["retry-after"]), /^\d+$/);
    assert.equal(await usageOf(other), 0, "a refused edit uses no unit");

    releasePipe();
    const held = await holding;
    assert.ok(held.status >= 400 && held.status < 500, `the emptied image is refused as bad input: ${held.text}`);
    assert.equal(await usageOf(owner), 1, "the held edit's unit came back; the first generation's stays");
    // The slot is free again: an edit decodes.
    const again = await call(app.url, "/api/generate", {
      method: "POST",
      headers: { ...BROWSER, "Content-Type": contentType },
      body,
      from: other,
      timeoutMs: 120_000,
    });
    assert.equal(again.status, 200, again.text);
  });
});
