// server.ts's /cdn handler on a plain node:http server: Content-Length kept, other paths left to Next, and a client
// that goes away mid-image leaves no file open.
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { serveCdnRequest } from "@/app/cdn/serve-node";
import { CHUNK_BYTES } from "@/lib/storage/file-stream";
import { createLocalStorage } from "@/lib/storage/local";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-serve-node-"));
const storage = createLocalStorage(dataDir, undefined);
let server: http.Server;
let base: string;

before(async () => {
  server = http.createServer((req, res) => {
    if (serveCdnRequest(storage, req, res)) return;
    res.writeHead(418).end("next");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const openFds = () => fs.readdirSync("/proc/self/fd").length;

describe("serveCdnRequest", () => {
  it("sends the image with Content-Length, and the JSON 404 with its own", async () => {
    const bytes = Buffer.alloc(5 * CHUNK_BYTES + 3, 9);
    const { id } = await storage.put(bytes, base);
    const res = await fetch(`${base}/cdn/${id}.png?v=1`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-length"), String(bytes.length));
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes));

    const missing = await fetch(`${base}/cdn/${"0".repeat(32)}.png`);
    assert.equal(missing.status, 404);
    const body = await missing.text();
    assert.equal(missing.headers.get("content-length"), String(Buffer.byteLength(body)));
    assert.equal(JSON.parse(body).error.code, "not_found");
  });

  it("leaves other paths and methods to Next", async () => {
    for (const [method, url] of [
      ["GET", "/cdnx/a.png"],
      ["GET", "/api/status"],
      ["POST", "/cdn/a.png"],
      ["DELETE", "/cdn/a.png"],
    ]) {
      const res = await fetch(`${base}${url}`, { method });
      assert.equal(res.status, 418, `${method} ${url}`);
      await res.body?.cancel();
    }
  });

  it("closes the file when the client goes away mid-image", async () => {
    const { id } = await storage.put(Buffer.alloc(256 * CHUNK_BYTES, 1), base);
    const before = openFds();
    for (let i = 0; i < 10; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = http.get(`${base}/cdn/${id}.png`, { agent: false }, (res) => {
          res.once("data", () => {
            req.destroy();
            resolve();
          });
        });
        req.on("error", (err) => ((err as NodeJS.ErrnoException).code === "ECONNRESET" ? resolve() : reject(err)));
      });
    }
    let open = openFds();
    for (let i = 0; i < 50 && open > before + 2; i++) {
      await new Promise((r) => setTimeout(r, 20));
      open = openFds();
    }
    assert.ok(open <= before + 2, `${open - before} descriptors still open`);
  });
});
