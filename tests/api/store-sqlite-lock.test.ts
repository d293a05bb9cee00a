// The embedded store while another process holds its database's write lock (another instance, the keys CLI, a
// backup): quota routes answer 503 busy once the lock has been waited for, the server keeps serving meanwhile, and
// the next request after the lock is released succeeds.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { DB_FILE } from "@/lib/store/sqlite/connection";
import { type App, startApp } from "../helpers/app";
import { call, generate } from "../helpers/http";

let app: App;

before(async () => {
  app = await startApp({ name: "sqlite-lock" });
});
after(async () => {
  await app?.stop();
});

describe("embedded store under a lock held by another process", () => {
  it("answers 503 busy with Retry-After, keeps /api/health answering, and recovers when the lock goes", async () => {
    const from = "127.0.4.1";
    const first = await generate(app.url, { prompt: "before the lock" }, { from });
    assert.equal(first.status, 200, first.text);

    // Held by a connection, not by blocking: this process keeps running while the app waits.
    const db = new Database(path.join(app.dataDir, DB_FILE));
    db.pragma("busy_timeout = 0");
    db.exec("BEGIN EXCLUSIVE");
    const health: number[] = [];
    try {
      let polling = true;
      const poll = (async () => {
        while (polling) {
          const started = performance.now();
          const res = await call(app.url, "/api/health", { timeoutMs: 20_000 });
          assert.equal(res.status, 200);
          health.push(performance.now() - started);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const res = await generate(app.url, { prompt: "during the lock" }, { from, timeoutMs: 20_000 });
      polling = false;
      await poll;

      assert.equal(res.status, 503, res.text);
      assert.equal(res.json.error.code, "busy");
      assert.ok(Number(res.headers["retry-after"]) > 0, `Retry-After: ${res.headers["retry-after"]}`);
    } finally {
      db.exec("ROLLBACK");
      db.close();
    }
    // The generate waited about 2 s for the lock; health was asked all along and answered each time. A server whose
    // event loop sat in SQLite's busy wait would have left one of them hanging for the whole wait.
    assert.ok(health.length >= 5, `only ${health.length} health answers during the wait`);
    const slowest = Math.max(...health);
    assert.ok(slowest < 1000, `/api/health took up to ${Math.round(slowest)} ms during the wait`);

    const next = await generate(app.url, { prompt: "after the lock" }, { from });
    assert.equal(next.status, 200, next.text);
    // The refused request used nothing.
    assert.equal(next.json.usage, 2);
  });
});
