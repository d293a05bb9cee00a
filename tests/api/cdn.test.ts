// GET and HEAD /cdn/<id>.png on the real app: streamed from disk without buffering, ETag revalidation, HEAD.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type App, appRssBytes, startApp } from "../helpers/app";
import { BROWSER, call, generate } from "../helpers/http";

let app: App;
let imagesDir: string;

before(async () => {
  app = await startApp({ name: "cdn" });
  imagesDir = path.join(app.dataDir, "images");
});
after(async () => {
  await app?.stop();
});

/** Puts bytes straight into the images folder under a fresh id, as a stored image. */
function storeFile(write: (fd: number) => void): string {
  const id = crypto.randomBytes(16).toString("hex");
  fs.mkdirSync(imagesDir, { recursive: true });
  const fd = fs.openSync(path.join(imagesDir, `${id}.png`), "w");
  try {
    write(fd);
  } finally {
    fs.closeSync(fd);
  }
  return id;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("GET /cdn/<id>.png", () => {
  let id: string;
  let png: Buffer;

  before(async () => {
    const res = await generate(app.url, { prompt: "a cdn test card" }, { headers: BROWSER });
    assert.equal(res.status, 200, res.text);
    id = res.json.id;
    png = (await call(app.url, `/cdn/${id}.png`)).body;
  });

  it("serves the stored bytes with length, immutable caching, nosniff and the sandbox policy", async () => {
    const res = await call(app.url, `/cdn/${id}.png`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, fs.readFileSync(path.join(imagesDir, `${id}.png`)));
    assert.equal(res.headers["content-type"], "image/png");
    assert.equal(res.headers["content-length"], String(res.body.length));
    assert.equal(res.headers["cache-control"], "public, max-age=31536000, immutable");
    assert.equal(res.headers["x-content-type-options"], "nosniff");
    assert.equal(res.headers["content-security-policy"], "default-src 'none'; sandbox");
    assert.equal(res.headers.etag, `"${id}"`);
  });

  it("streams a file of many chunks intact", async () => {
    const bytes = crypto.randomBytes(3 * 1024 * 1024 + 123);
    const big = storeFile((fd) => fs.writeSync(fd, bytes));
    const res = await call(app.url, `/cdn/${big}.png`);
    assert.equal(res.status, 200);
    assert.equal(res.headers["content-length"], String(bytes.length));
    assert.ok(res.body.equals(bytes), "body differs from the stored file");
  });

  it("answers 304 without a body when If-None-Match names the image", async () => {
    for (const inm of [`"${id}"`, `W/"${id}"`, `"other", "${id}"`, "*"]) {
      const res = await call(app.url, `/cdn/${id}.png`, { headers: { "If-None-Match": inm } });
      assert.equal(res.status, 304, `If-None-Match: ${inm}`);
      assert.equal(res.body.length, 0);
      assert.equal(res.headers.etag, `"${id}"`);
      assert.equal(res.headers["cache-control"], "public, max-age=31536000, immutable");
    }
    const other = await call(app.url, `/cdn/${id}.png`, { headers: { "If-None-Match": '"0123"' } });
    assert.equal(other.status, 200);
    assert.deepEqual(other.body, png);
  });

  it("answers HEAD with the headers of GET and no body", async () => {
    const res = await call(app.url, `/cdn/${id}.png`, { method: "HEAD" });
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 0);
    assert.equal(res.headers["content-type"], "image/png");
    assert.equal(res.headers["content-length"], String(png.length));
    assert.equal(res.headers.etag, `"${id}"`);
    assert.equal(res.headers["cache-control"], "public, max-age=31536000, immutable");
    assert.equal(res.headers["x-content-type-options"], "nosniff");

    const revalidated = await call(app.url, `/cdn/${id}.png`, {
      method: "HEAD",
      headers: { "If-None-Match": `"${id}"` },
    });
    assert.equal(revalidated.status, 304);
  });

  it("answers 404 for a missing image, even to a matching If-None-Match", async () => {
    const missing = crypto.randomBytes(16).toString("hex");
    for (const method of ["GET", "HEAD"]) {
      const res = await call(app.url, `/cdn/${missing}.png`, { method, headers: { "If-None-Match": `"${missing}"` } });
      assert.equal(res.status, 404, method);
      assert.equal(res.headers["cache-control"], "no-store");
    }
    const get = await call(app.url, `/cdn/${missing}.png`);
    assert.equal(get.json.error.code, "not_found");
  });

  it("does not hold a large image in memory for a client that stops reading", async () => {
    const MB = 1024 * 1024;
    const size = 256 * MB;
    const big = storeFile((fd) => {
      const block = Buffer.alloc(8 * MB, 0x5a);
      for (let done = 0; done < size; done += block.length) fs.writeSync(fd, block);
    });
    try {
      // Warm the route and let the server settle, so the baseline includes everything but this response.
      await call(app.url, `/cdn/${id}.png`);
      await sleep(500);
      const baseline = appRssBytes(app.dataDir);
      assert.ok(baseline > 0, "found no app process");

      const socket = net.connect(app.port, "127.0.0.1");
      let received = 0;
      const firstBytes = new Promise<void>((resolve, reject) => {
        socket.once("error", reject);
        socket.once("data", () => resolve());
      });
      socket.on("data", (c: Buffer) => {
        received += c.length;
      });
      socket.write(`GET /cdn/${big}.png HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      await firstBytes;
      socket.pause();

      // The old route read the whole file and copied it before answering: +512 MB by the time the headers came.
      let peak = appRssBytes(app.dataDir);
      for (let i = 0; i < 20; i++) {
        await sleep(100);
        peak = Math.max(peak, appRssBytes(app.dataDir));
      }
      const grew = peak - baseline;
      assert.ok(grew < size / 8, `server memory grew by ${Math.round(grew / MB)} MB for a ${size / MB} MB image`);
      assert.ok(received < size / 8, `the server pushed ${Math.round(received / MB)} MB to a paused reader`);

      // Reading again gets the whole file.
      const ended = new Promise<void>((resolve) => socket.once("end", () => resolve()));
      socket.resume();
      await ended;
      assert.ok(received > size, `received ${received} bytes`);
    } finally {
      fs.rmSync(path.join(imagesDir, `${big}.png`), { force: true });
    }
  });
});
