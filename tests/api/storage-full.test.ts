// The real app with its images folder on a tiny tmpfs: generating until the disk is full answers 503 busy with the
// unit given back, no partial file and no orphan record; deleting images frees space and lets it work again; a
// crash's temp files go at start.
// Needs permission to mount a tmpfs (root with CAP_SYS_ADMIN); skipped otherwise.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import sharp from "sharp";
import { type App, startApp, tempDataDir } from "../helpers/app";
import { call, generate, type Reply } from "../helpers/http";

const dataDir = tempDataDir("storage-full");
const imagesDir = path.join(dataDir, "images");
fs.mkdirSync(imagesDir);
const mount = spawnSync("mount", ["-t", "tmpfs", "-o", "size=2m,mode=0755", "tmpfs", imagesDir], { encoding: "utf8" });
const skip =
  mount.status === 0 ? false : `cannot mount a tmpfs here: ${(mount.stderr || "").trim() || "no permission"}`;

// What a crash left: a temp file of a process that no longer runs, next to a finished image.
const host = os.hostname().replace(/[^A-Za-z0-9-]/g, "_") || "host";
const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
const staleTemp = `${crypto.randomBytes(16).toString("hex")}.${host}.${deadPid}.0a0b0c0d.tmp`;
const oldImage = `${crypto.randomBytes(16).toString("hex")}.png`;

let app: App | undefined;

before(async () => {
  if (skip) return;
  fs.writeFileSync(path.join(imagesDir, staleTemp), Buffer.alloc(100_000, 1));
  fs.writeFileSync(
    path.join(imagesDir, oldImage),
    await sharp({ create: solid(8) })
      .png()
      .toBuffer(),
  );
  app = await startApp({ dataDir, env: { FREE_GENERATIONS_PER_DAY: "100" } });
});
after(async () => {
  await app?.stop();
  if (!skip) spawnSync("umount", [imagesDir]);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function solid(size: number) {
  return { width: size, height: size, channels: 3 as const, background: { r: 10, g: 20, b: 30 } };
}

const from = "127.0.9.1";
const ask = (prompt: string) =>
  generate(
    app!.url,
    { prompt, model: "alpha-pro", ratio: "1:1" },
    { from, headers: { "X-Requested-With": "XMLHttpRequest" } },
  );

describe("image storage full", { skip }, () => {
  it("removes a crashed writer's temp file at start and keeps finished images", async () => {
    for (let i = 0; i < 50 && fs.existsSync(path.join(imagesDir, staleTemp)); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(!fs.existsSync(path.join(imagesDir, staleTemp)), "the stale temp file is still there");
    assert.equal((await call(app!.url, `/cdn/${oldImage}`)).status, 200);
  });

  it("answers 503 busy with the unit given back, and leaves no partial file and no orphan record", async () => {
    let last: Reply | undefined;
    const stored: Reply[] = [];
    let res = await ask("a lighthouse at dusk, 0");
    for (let i = 1; res.status === 200 && i < 30; i++) {
      last = res;
      stored.push(res);
      res = await ask(`a lighthouse at dusk, ${i}`);
    }
    assert.ok(last, "the first generation already failed");
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.error.code, "busy");
    assert.ok(Number(res.headers["retry-after"]) > 0);
    // The unit taken for the failed call was given back: what remains is what remained after the last success.
    assert.equal(res.headers["x-ratelimit-remaining"], last.headers["x-ratelimit-remaining"]);
    const again = await ask("one more, still full");
    assert.equal(again.status, 503);
    assert.equal(again.headers["x-ratelimit-remaining"], last.headers["x-ratelimit-remaining"]);

    // Only finished images: no temp file, and every PNG decodes completely and is served.
    const names = fs.readdirSync(imagesDir);
    assert.deepEqual(
      names.filter((n) => !/^[a-f0-9]{32}\.png$/.test(n)),
      [],
    );
    for (const name of names) {
      const png = fs.readFileSync(path.join(imagesDir, name));
      await sharp(png).raw().toBuffer();
      const served = await call(app!.url, `/cdn/${name}`);
      assert.equal(served.status, 200);
      assert.ok(served.body.equals(png), name);
    }
    assert.ok(last.json.url.endsWith(`/cdn/${last.json.id}.png`));
    assert.ok(names.includes(`${last.json.id}.png`));

    // Exactly the successful generations have records, each with its file: nothing for the refused ones.
    const db = new Database(path.join(dataDir, "darkroom.db"), { readonly: true });
    const recorded = (db.prepare("SELECT id FROM images").all() as { id: string }[]).map((r) => r.id);
    db.close();
    assert.deepEqual(recorded.sort(), stored.map((r) => r.json.id).sort());
    for (const id of recorded) assert.ok(names.includes(`${id}.png`), `record ${id} has its file`);

    // Space freed by deleting images through the API: the next generation works, without a restart.
    for (const r of stored) {
      const gone = await call(app!.url, `/api/images/${r.json.id}`, {
        method: "DELETE",
        headers: { "X-Delete-Token": r.json.delete_token },
        from,
      });
      assert.equal(gone.status, 200, gone.text);
    }
    assert.deepEqual(fs.readdirSync(imagesDir), [oldImage]);
    const after = await ask("after some room was made");
    assert.equal(after.status, 200, after.text);
    assert.equal(Number(after.headers["x-ratelimit-remaining"]), Number(last.headers["x-ratelimit-remaining"]) - 1);
  });
});
