// The image library against the real built app, on either backend: records with every image, listing a key's
// images in pages, deleting by owner or by token (404 for anyone else), URLs that 404 at once after a delete, the
// operator's CLI, and retention: images removed by the sweep at start after a restart with a tiny retention, by two
// instances at once, each image once.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type App, createKey, runScript, startApp, tempDataDir } from "../helpers/app";
import { type Backend, type Backends, startBackends } from "../helpers/backends";
import { BROWSER, call, enhance, generate, type Reply } from "../helpers/http";
import { pngOf } from "../helpers/images";

const DAY_MS = 86_400_000;
/** 0.864 s: images age past it while the test restarts the app. */
const TINY_RETENTION = "0.00001";

const pro = (key: string) => ({ Authorization: `Bearer ${key}` });
const CRON_SECRET = "cron-secret-for-the-images-suite";

function assertNotFound(res: Reply) {
  assert.equal(res.status, 404, res.text);
  assert.equal(res.json.success, false);
  assert.equal(res.json.error.code, "not_found");
  assert.match(String(res.headers["x-request-id"]), /^req_/);
}

/** The sum of `removed` over every "image sweep" log line. */
function sweptIn(logs: string): number {
  let total = 0;
  for (const line of logs.split("\n")) {
    if (!line.includes('"msg":"image sweep"')) continue;
    total += (JSON.parse(line) as { removed: number }).removed;
  }
  return total;
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function runImagesSuite(backend: Backend) {
  let backends: Backends | undefined;
  let app: App;
  let lastOctet = 10;
  const nextIp = () => `127.0.3.${lastOctet++}`;

  const gen = async (key: string, prompt: string, extra: Record<string, unknown> = {}) => {
    const res = await generate(app.url, { prompt, ...extra }, { headers: pro(key), from: nextIp() });
    assert.equal(res.status, 200, res.text);
    return res.json as { id: string; url: string; expires_at: string | null; delete_token: string };
  };
  const list = (key: string, query = "") => call(app.url, `/api/images${query}`, { headers: pro(key), from: nextIp() });
  const remove = (id: string, headers: Record<string, string>, encode = false) =>
    call(app.url, `/api/images/${encode ? encodeURIComponent(id) : id}`, { method: "DELETE", headers, from: nextIp() });
  const imageStatus = async (url: string) => (await fetch(url)).status;

  describe(`image library (${backend})`, () => {
    before(async () => {
      backends = backend === "embedded" ? undefined : await startBackends(backend);
      // Any real disk has less free space than this: status must say so where DATA_DIR holds the data.
      app = await startApp({
        name: `images-${backend}`,
        env: { ...backends?.env, MIN_FREE_DISK_MB: "100000000", CRON_SECRET },
      });
    });
    after(async () => {
      await app?.stop();
      await backends?.close();
    });

    it("generate and enhance answer expires_at (retention 30 days) and a delete token", async () => {
      const before = Date.now();
      const res = await generate(app.url, { prompt: "a red kite over hills" }, { from: nextIp() });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.delete_token, /^dt_[A-Za-z0-9_-]{43}$/);
      const expires = Date.parse(res.json.expires_at);
      assert.ok(expires >= before + 30 * DAY_MS && expires <= Date.now() + 30 * DAY_MS, res.json.expires_at);

      const up = await enhance(
        app.url,
        { image: { data: await pngOf(48, 32), type: "image/png" } },
        { from: nextIp() },
      );
      assert.equal(up.status, 200, up.text);
      assert.match(up.json.delete_token, /^dt_/);
      assert.notEqual(up.json.delete_token, res.json.delete_token);
      assert.ok(Date.parse(up.json.expires_at) > before + 29 * DAY_MS);
    });

    it("lists a key's own images newest first, page by page", async () => {
      const { key } = await createKey(app, "lister");
      const { key: other } = await createKey(app, "someone else");
      const made = [];
      for (let i = 0; i < 5; i++) {
        made.push(await gen(key, `lighthouse number ${i}`, { style: "Anime", ratio: "16:9", seed: 100 + i }));
      }
      await gen(other, "not yours");
      const up = await enhance(
        app.url,
        { image: { data: await pngOf(40, 30), type: "image/png" }, strength: "0.3", scale: "2" },
        { headers: pro(key), from: nextIp() },
      );
      assert.equal(up.status, 200, up.text);

      const seen: { id: string }[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const res = await list(key, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.success, true);
        assert.match(String(res.headers["x-ratelimit-limit"]), /^\d+$/, "the usual rate-limit headers");
        sizes.push(res.json.images.length);
        seen.push(...res.json.images);
        cursor = res.json.next_cursor;
      } while (cursor && sizes.length < 10);
      assert.deepEqual(sizes, [2, 2, 2]);
      assert.deepEqual(
        seen.map((i) => i.id),
        [up.json.id, ...made.map((m) => m.id).reverse()],
      );

      const all = await list(key);
      assert.equal(all.json.images.length, 6, "the default page holds them all");
      assert.equal(all.json.next_cursor, null);
      const [enhanced, newest] = all.json.images;
      assert.equal(enhanced.kind, "enhance");
      assert.equal(enhanced.strength, 0.3);
      assert.equal(enhanced.scale, 2);
      assert.equal(enhanced.original_size, "40x30");
      assert.equal(enhanced.enhanced_size, "80x60");
      assert.equal(newest.kind, "generate");
      assert.equal(newest.prompt, "lighthouse number 4");
      assert.equal(newest.model, "alpha-pro");
      assert.equal(newest.style, "Anime");
      assert.equal(newest.ratio, "16:9");
      assert.equal(newest.seed, 104);
      assert.equal(newest.url, made[4].url);
      assert.equal(newest.expires_at, made[4].expires_at);
      assert.ok(Date.parse(newest.created_at) <= Date.now());
      assert.equal(newest.delete_token, undefined, "the token is never shown again");

      assert.deepEqual(
        (await list(other)).json.images.map((i: { prompt: string }) => i.prompt),
        ["not yours"],
      );
    });

    it("refuses listing without a Pro key, and a cursor or limit it did not issue", async () => {
      const { key } = await createKey(app, "list-errors");
      const free = await call(app.url, "/api/images", { headers: BROWSER, from: nextIp() });
      assert.equal(free.status, 401);
      assert.equal(free.json.error.code, "unauthorized");
      assert.equal((await call(app.url, "/api/images", { from: nextIp() })).status, 401);
      for (const query of ["?cursor=bogus!", "?limit=0", "?limit=ten"]) {
        const res = await list(key, query);
        assert.equal(res.status, 400, query);
        assert.equal(res.json.error.code, "invalid_request");
      }
      const capped = await list(key, "?limit=1000");
      assert.equal(capped.status, 200);
      const post = await call(app.url, "/api/images", { method: "POST", headers: pro(key), from: nextIp() });
      assert.equal(post.status, 405);
      assert.equal(post.headers.allow, "GET");
    });

    it("deletes by the owning key or by the token; anyone else gets 404; the URL answers 404 at once", async () => {
      const { key: owner } = await createKey(app, "owner");
      const { key: stranger } = await createKey(app, "stranger");
      const one = await gen(owner, "first to go");
      const two = await gen(owner, "second to go");
      assert.equal(await imageStatus(one.url), 200);

      // Not yours, a wrong token, another image's token, no credential, an unknown id: all 404, nothing removed.
      assertNotFound(await remove(one.id, pro(stranger)));
      assertNotFound(await remove(one.id, { "X-Delete-Token": `${one.delete_token.slice(0, -2)}xx` }));
      assertNotFound(await remove(one.id, { "X-Delete-Token": two.delete_token }));
      assertNotFound(await remove(one.id, { ...pro(stranger), "X-Delete-Token": two.delete_token }));
      assertNotFound(await remove(one.id, BROWSER));
      assertNotFound(await remove("0123456789abcdef0123456789abcdef", pro(owner)));
      assertNotFound(await remove("../../darkroom.db", pro(owner), true));
      assert.equal(await imageStatus(one.url), 200);

      // The owning key.
      const byOwner = await remove(one.id, pro(owner));
      assert.equal(byOwner.status, 200, byOwner.text);
      assert.deepEqual(byOwner.json, { success: true, id: one.id });
      assert.equal(await imageStatus(one.url), 404);
      assertNotFound(await remove(one.id, pro(owner)));
      assertNotFound(await remove(one.id, { "X-Delete-Token": one.delete_token }));

      // The token alone: no key, no X-Requested-With; the id may be percent-encoded.
      const byToken = await remove(two.id, { "X-Delete-Token": two.delete_token }, true);
      assert.equal(byToken.status, 200, byToken.text);
      assert.deepEqual(byToken.json, { success: true, id: two.id });
      assert.equal(await imageStatus(two.url), 404);
      assert.deepEqual((await list(owner)).json.images, []);

      // A Free image, from the page that made it.
      const free = await generate(app.url, { prompt: "free and gone" }, { from: nextIp() });
      const freeGone = await remove(free.json.id, { ...BROWSER, "X-Delete-Token": free.json.delete_token });
      assert.equal(freeGone.status, 200, freeGone.text);
      assert.equal(await imageStatus(free.json.url), 404);

      const wrongKey = await remove(two.id, { Authorization: "Bearer dk_live_nope" });
      assert.equal(wrongKey.status, 401, "a bad key is refused, never ignored");
      const get = await call(app.url, `/api/images/${two.id}`, { headers: pro(owner), from: nextIp() });
      assert.equal(get.status, 405);
      assert.equal(get.headers.allow, "DELETE");
    });

    it("records an async job's image like any other: listed for its key, deleted with the result's token", async () => {
      const { key } = await createKey(app, "async images");
      const accepted = await generate(
        app.url,
        { prompt: "a job's image" },
        { headers: { ...pro(key), Prefer: "respond-async" }, from: nextIp() },
      );
      assert.equal(accepted.status, 202, accepted.text);
      let job: Reply | undefined;
      for (let i = 0; i < 120 && (!job || ["queued", "running"].includes(job.json.status)); i++) {
        await new Promise((r) => setTimeout(r, 500));
        job = await call(app.url, `/api/jobs/${accepted.json.id}`, { headers: pro(key), from: nextIp() });
      }
      assert.equal(job?.json.status, "succeeded", job?.text);
      const result = job?.json.result as { id: string; url: string; delete_token: string; expires_at: string };
      assert.match(result.delete_token, /^dt_/);
      assert.ok(Date.parse(result.expires_at) > Date.now() + 29 * DAY_MS);
      const listed = await list(key);
      assert.deepEqual(
        listed.json.images.map((i: { id: string }) => i.id),
        [result.id],
      );
      assert.equal(await imageStatus(result.url), 200);
      const gone = await remove(result.id, { "X-Delete-Token": result.delete_token });
      assert.equal(gone.status, 200, gone.text);
      assert.equal(await imageStatus(result.url), 404);
    });

    it("reports low disk space on DATA_DIR in status when DATA_DIR holds the data", async () => {
      const res = await call(app.url, "/api/status", { headers: BROWSER, from: nextIp() });
      assert.equal(res.status, 200, res.text);
      if (backend === "embedded") {
        assert.equal(res.json.status, "degraded");
        assert.equal(res.json.degraded_reasons.length, 1);
        assert.match(res.json.degraded_reasons[0], /disk space: \d+ MB free on DATA_DIR, below MIN_FREE_DISK_MB/);
      } else {
        // Upstash and Blob keep nothing on DATA_DIR.
        assert.equal(res.json.status, "ok");
        assert.deepEqual(res.json.degraded_reasons, []);
      }
    });

    // On embedded storage the same is checked on a real full disk (storage-full.test.ts, a tiny tmpfs).
    it("answers 503 busy when Blob refuses the image (store over its limits): unit back, no record", {
      skip: backend === "embedded" && "Blob only",
    }, async () => {
      const { key } = await createKey(app, "blob-full");
      const kept = await gen(key, "stored before the store filled up");
      const before = await list(key);
      backends!.blob.failApi({ status: 403, code: "store_suspended" });
      try {
        const refused = await generate(app.url, { prompt: "no room" }, { headers: pro(key), from: nextIp() });
        assert.equal(refused.status, 503, refused.text);
        assert.equal(refused.json.error.code, "busy");
        assert.ok(Number(refused.headers["retry-after"]) > 0);
        assert.equal(
          Number(refused.headers["x-ratelimit-remaining"]),
          Number(before.headers["x-ratelimit-remaining"]),
          "the unit was given back",
        );
      } finally {
        backends!.blob.failApi(null);
      }
      const after = await list(key);
      assert.deepEqual(
        after.json.images.map((i: { id: string }) => i.id),
        [kept.id],
      );
    });

    it("runs the sweep from the cron route only with CRON_SECRET; otherwise the route does not exist", async () => {
      for (const headers of [
        {},
        pro("nope"),
        { Authorization: `Bearer ${CRON_SECRET}x` },
        { Authorization: CRON_SECRET },
      ]) {
        assertNotFound(await call(app.url, "/api/cron/sweep-images", { headers, from: nextIp() }));
      }
      const res = await call(app.url, "/api/cron/sweep-images", {
        headers: { Authorization: `Bearer ${CRON_SECRET}` },
        from: nextIp(),
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.success, true);
      assert.equal(res.json.removed, 0, "nothing is due at a 30-day retention");
      assert.equal(res.json.more, false);
    });

    it("lets the operator delete one image, and an owner's images, from the command line", async () => {
      const { key, id: keyId } = await createKey(app, "cli");
      const one = await gen(key, "operator removes this");
      const out = await runScript(app, "images", ["delete", one.id]);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(await imageStatus(one.url), 404);
      assert.equal((await runScript(app, "images", ["delete", one.id])).code, 1);

      const many = [await gen(key, "a"), await gen(key, "b"), await gen(key, "c")];
      const purge = await runScript(app, "images", ["delete-owner", keyId]);
      assert.equal(purge.code, 0, purge.stderr);
      assert.match(purge.lines.join("\n"), /Deleted 3 image/);
      for (const m of many) assert.equal(await imageStatus(m.url), 404);
      assert.deepEqual((await list(key)).json.images, []);
    });
  });

  describe(`retention (${backend})`, () => {
    let retentionBackends: Backends | undefined;
    const apps: App[] = [];
    after(async () => {
      await Promise.all(apps.map((a) => a.stop()));
      await retentionBackends?.close();
    });

    it("two instances restarted with a tiny retention remove every aged image, each once, and nothing early", async () => {
      retentionBackends = backend === "embedded" ? undefined : await startBackends(backend);
      const dataDir = tempDataDir(`retention-${backend}`);
      const env = { ...retentionBackends?.env, PRO_REQUESTS_PER_DAY: "100000" };
      // Two instances sharing one store and one image storage (for SQLite: one DATA_DIR).
      apps.push(await startApp({ name: "retention-a", dataDir, env }));
      apps.push(await startApp({ name: "retention-b", dataDir, env }));
      const { key } = await createKey(apps[0], "retention");
      const made: { id: string; url: string; delete_token: string }[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await generate(apps[i % 2].url, { prompt: `aging ${i}` }, { headers: pro(key) });
        assert.equal(res.status, 200, res.text);
        made.push(res.json);
      }

      // A restart within the retention removes nothing.
      await Promise.all(apps.map((a) => a.restart()));
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(sweptIn(apps[0].logs()) + sweptIn(apps[1].logs()), 0);
      for (const m of made) assert.equal((await fetch(m.url)).status, 200);

      // Aged past 0.864 s, then both started at once with the tiny retention: their start sweeps race.
      for (const a of apps) a.env.IMAGE_RETENTION_DAYS = TINY_RETENTION;
      await Promise.all(apps.map((a) => a.stop()));
      await new Promise((r) => setTimeout(r, 1000));
      await Promise.all(apps.map((a) => a.restart()));
      await waitFor("both sweeps to remove every image", () => sweptIn(apps[0].logs() + apps[1].logs()) >= 12);
      // Give a double deletion the chance to show up before counting.
      await new Promise((r) => setTimeout(r, 1000));
      const perInstance = apps.map((a) => sweptIn(a.logs()));
      assert.equal(perInstance[0] + perInstance[1], 12, `removed per instance: ${perInstance.join(" + ")}`);

      for (const m of made) assert.equal((await fetch(m.url)).status, 404, m.url);
      const listed = await call(apps[0].url, "/api/images", { headers: pro(key) });
      assert.deepEqual(listed.json.images, []);
      const late = await call(apps[1].url, `/api/images/${made[0].id}`, {
        method: "DELETE",
        headers: { "X-Delete-Token": made[0].delete_token },
      });
      assert.equal(late.status, 404);
      if (retentionBackends) {
        const deleted = retentionBackends.blob.deleted;
        assert.equal(new Set(deleted).size, deleted.length, "no blob was deleted twice");
        assert.deepEqual(new Set(deleted), new Set(made.map((m) => m.id)));
        assert.equal(retentionBackends.blob.count(), 0);
      }
      const count = await runScript(apps[0], "images", ["count"]);
      assert.match(count.lines.join("\n"), /^0 image record/m);
    });
  });
}
