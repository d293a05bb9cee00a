// Runs the shared Store contract against the embedded SQLite backend, then what is SQLite's own: waiting for a lock
// without holding the event loop, outages as StoreUnavailable, the schema migration and index-driven pruning.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { StoreUnavailable } from "@/lib/errors";
import type { Bucket } from "@/lib/quota/types";
import { DB_FILE, openSqliteBackend } from "@/lib/store/sqlite/backend";
import { PRUNE_SQL } from "@/lib/store/sqlite/quota";
import { retryLocked } from "@/lib/store/sqlite/retry";
import { SCHEMA_VERSION } from "@/lib/store/sqlite/schema";
import { runStoreSuite } from "@/tests/helpers/store-suite";

const DAY_MS = 86_400_000;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-store-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const freshDir = () => fs.mkdtempSync(path.join(root, "db-"));

runStoreSuite("sqlite", async () => openSqliteBackend(freshDir()));

const daily = (name: string, limit = 5): Bucket => ({ name, limit, windowMs: DAY_MS });

/** Records the longest gap between ticks of a 5 ms interval: how long the event loop was held. */
function watchEventLoop(): { stop: () => number } {
  let last = performance.now();
  let maxGap = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    maxGap = Math.max(maxGap, t - last);
    last = t;
  }, 5);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(maxGap, performance.now() - last);
    },
  };
}

/** Lets the prune that a first take starts in the background finish. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/** A second connection, as another server instance or the keys CLI would hold one. */
function otherConnection(dir: string): Database.Database {
  const db = new Database(path.join(dir, DB_FILE));
  db.pragma("busy_timeout = 0");
  return db;
}

describe("sqlite store while another connection holds the write lock", () => {
  it("keeps the event loop running, fails with StoreUnavailable at the deadline, then recovers", async () => {
    const dir = freshDir();
    const store = openSqliteBackend(dir);
    const b = daily("locked");
    assert.equal((await store.quota.take(b, "ip")).used, 1);
    await settle();

    const other = otherConnection(dir);
    other.exec("BEGIN IMMEDIATE");
    try {
      const loop = watchEventLoop();
      const started = performance.now();
      await assert.rejects(store.quota.take(b, "ip"), StoreUnavailable);
      const waited = performance.now() - started;
      const maxGap = loop.stop();
      // It waited for the lock (the default deadline is 2 s) and gave up then, not at SQLite's old 5 s.
      assert.ok(waited >= 1900 && waited < 4000, `waited ${Math.round(waited)} ms`);
      // Correctness, not speed: the waiting happened on timers, so the loop never stalled for a sizeable part of it.
      assert.ok(maxGap < 500, `the event loop was held for ${Math.round(maxGap)} ms`);
      // In WAL mode readers are not blocked by a writer: status can still show usage.
      assert.equal((await store.quota.peek(b, "ip")).used, 1);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    // The refused attempt took nothing.
    const t = await store.quota.take(b, "ip");
    assert.equal(t.ok, true);
    assert.equal(t.used, 2);
    await store.close();
  });

  it("keeps the event loop running with many requests waiting at once", async () => {
    const dir = freshDir();
    const store = openSqliteBackend(dir, { deadlineMs: 600 });
    const b = daily("crowd", 1000);
    await store.quota.take(b, "warm");
    await settle();
    const other = otherConnection(dir);
    other.exec("BEGIN IMMEDIATE");
    try {
      const loop = watchEventLoop();
      // Each waiter retries on its own; what one attempt costs the thread is paid by every waiter on every retry.
      const takes = Array.from({ length: 200 }, (_, i) => store.quota.take(b, `ip-${i}`));
      const results = await Promise.allSettled(takes);
      const maxGap = loop.stop();
      assert.ok(results.every((r) => r.status === "rejected" && r.reason instanceof StoreUnavailable));
      assert.ok(maxGap < 300, `the event loop was held for ${Math.round(maxGap)} ms`);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    assert.equal((await store.quota.take(b, "ip-0")).used, 1);
    await store.close();
  });

  it("waits for a lock that is released before the deadline, and counts once", async () => {
    const dir = freshDir();
    const store = openSqliteBackend(dir);
    const b = daily("released");
    await store.quota.take(b, "ip");
    await settle();
    const other = otherConnection(dir);
    other.exec("BEGIN IMMEDIATE");
    const release = setTimeout(() => {
      other.exec("COMMIT");
      other.close();
    }, 300);
    try {
      const t = await store.quota.take(b, "ip");
      assert.equal(t.ok, true);
      assert.equal(t.used, 2);
    } finally {
      clearTimeout(release);
      if (other.open) other.close();
    }
    await store.close();
  });
});

describe("sqlite errors", () => {
  it("maps disk full to StoreUnavailable at once", async () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE t (x BLOB)");
    db.pragma("max_page_count = 2");
    const started = performance.now();
    await assert.rejects(
      retryLocked("fill", () => db.prepare("INSERT INTO t VALUES (zeroblob(100000))").run()),
      (err: unknown) => err instanceof StoreUnavailable && /SQLITE_FULL/.test(err.message),
    );
    assert.ok(performance.now() - started < 500, "an outage is not retried until the deadline");
    db.close();
  });

  it("maps I/O errors to StoreUnavailable, retries locks, and passes anything else through", async () => {
    const coded = (code: string) => Object.assign(new Error(code), { code });
    await assert.rejects(
      retryLocked("io", () => {
        throw coded("SQLITE_IOERR_WRITE");
      }),
      StoreUnavailable,
    );
    let attempts = 0;
    const value = await retryLocked("busy", () => {
      if (++attempts < 4) throw coded(attempts % 2 ? "SQLITE_BUSY" : "SQLITE_LOCKED");
      return "done";
    });
    assert.equal(value, "done");
    assert.equal(attempts, 4);
    await assert.rejects(
      retryLocked(
        "busy",
        () => {
          throw coded("SQLITE_BUSY");
        },
        { deadlineMs: 50 },
      ),
      StoreUnavailable,
    );
  });

  it("does not hide programming errors or unexpected constraint violations", async () => {
    const db = new Database(":memory:");
    await assert.rejects(
      retryLocked("bad sql", () => db.prepare("SELECT nope FROM nowhere").get()),
      (err: unknown) => !(err instanceof StoreUnavailable) && /no such table/.test(String(err)),
    );
    db.close();

    const store = openSqliteBackend(freshDir());
    const key = {
      id: "key_1",
      label: "a",
      hash: "h".repeat(64),
      last4: "abcd",
      plan: "pro" as const,
      createdAt: "2031-01-01T00:00:00.000Z",
      revokedAt: null,
    };
    await store.keys.insertKey(key);
    await assert.rejects(
      store.keys.insertKey(key),
      (err: unknown) =>
        !(err instanceof StoreUnavailable) && (err as { code?: string }).code?.startsWith("SQLITE_CONSTRAINT") === true,
    );
    await store.close();
  });
});

// The schema written before migrations were versioned (user_version 0): no index on window_start.
const UNVERSIONED_SCHEMA = `
CREATE TABLE usage (
  bucket TEXT NOT NULL, identity TEXT NOT NULL, window_start INTEGER NOT NULL, used INTEGER NOT NULL,
  PRIMARY KEY (bucket, identity, window_start)
) WITHOUT ROWID;
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY, label TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, last4 TEXT NOT NULL, plan TEXT NOT NULL,
  created_at TEXT NOT NULL, revoked_at TEXT
);
CREATE TABLE waitlist (email TEXT PRIMARY KEY, use_case TEXT, created_at TEXT NOT NULL);
`;

describe("sqlite schema and pruning", () => {
  const now = Date.UTC(2031, 5, 15, 12);
  const today = Math.floor(now / DAY_MS) * DAY_MS;

  /** A database file as the previous release left it: 10 expired windows and 2 live ones. */
  function writeUnversionedFile(dir: string): void {
    const db = new Database(path.join(dir, DB_FILE));
    db.pragma("journal_mode = WAL");
    db.exec(UNVERSIONED_SCHEMA);
    const insert = db.prepare("INSERT INTO usage VALUES (?, ?, ?, ?)");
    for (let i = 0; i < 10; i++) insert.run("free-gen", `old-${i}`, today - (3 + (i % 4)) * DAY_MS, 2);
    insert.run("free-gen", "kept", today, 3);
    insert.run("free-gen", "yesterday", today - DAY_MS, 1);
    db.close();
  }

  it("migrates an existing file: adds the index, keeps the data, and prunes through the index", async () => {
    const dir = freshDir();
    writeUnversionedFile(dir);
    const store = openSqliteBackend(dir, { pruneBatch: 3 });
    assert.equal((await store.quota.peek(daily("free-gen"), "kept", now)).used, 3);

    const db = otherConnection(dir);
    assert.equal(db.pragma("user_version", { simple: true }), SCHEMA_VERSION);
    const indexes = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'usage'").all();
    assert.ok(
      indexes.some((r) => (r as { name: string }).name === "usage_by_window"),
      JSON.stringify(indexes),
    );
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${PRUNE_SQL}`)
      .all(0, 1)
      .map((r) => (r as { detail: string }).detail);
    assert.ok(
      plan.some((d) => /USING (COVERING )?INDEX usage_by_window/.test(d)),
      plan.join("\n"),
    );
    assert.ok(!plan.some((d) => /^SCAN usage/.test(d)), plan.join("\n"));

    // Ten expired rows in batches of three: four statements, all of them gone; today's and yesterday's stay.
    assert.equal(await store.quota.pruneExpired(now), 10);
    const left = db.prepare("SELECT identity FROM usage ORDER BY identity").all() as Array<{ identity: string }>;
    assert.deepEqual(
      left.map((r) => r.identity),
      ["kept", "yesterday"],
    );
    assert.equal(await store.quota.pruneExpired(now), 0);
    db.close();
    await store.close();
  });

  it("a second store on the same file finds it migrated and shares its counts", async () => {
    const dir = freshDir();
    writeUnversionedFile(dir);
    const one = openSqliteBackend(dir);
    const two = openSqliteBackend(dir);
    const [a, b] = await Promise.all([
      one.quota.take(daily("free-gen"), "kept", now),
      two.quota.take(daily("free-gen"), "kept", now),
    ]);
    assert.deepEqual([a.used, b.used].sort(), [4, 5]);
    await one.close();
    await two.close();
  });

  it("waits for a lock held while it migrates, then migrates", async () => {
    const dir = freshDir();
    writeUnversionedFile(dir);
    const other = otherConnection(dir);
    other.exec("BEGIN IMMEDIATE");
    const store = openSqliteBackend(dir, { deadlineMs: 300 });
    try {
      await assert.rejects(store.quota.take(daily("free-gen"), "kept", now), StoreUnavailable);
    } finally {
      other.exec("ROLLBACK");
    }
    assert.equal((await store.quota.take(daily("free-gen"), "kept", now)).used, 4);
    assert.equal(other.pragma("user_version", { simple: true }), SCHEMA_VERSION);
    other.close();
    await store.close();
  });

  it("a take starts a prune in the background at most once per interval", async () => {
    const dir = freshDir();
    writeUnversionedFile(dir);
    const store = openSqliteBackend(dir, { pruneBatch: 4, pruneEveryMs: 60_000 });
    const count = () => {
      const db = otherConnection(dir);
      const n = (db.prepare("SELECT count(*) AS n FROM usage").get() as { n: number }).n;
      db.close();
      return n;
    };
    await store.quota.take(daily("free-gen"), "new", now);
    // The prune runs after the take has answered; wait for it to finish.
    for (let i = 0; i < 100 && count() > 3; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(count(), 3);

    // Within the interval, expired rows written meanwhile wait for the next prune.
    const db = otherConnection(dir);
    db.prepare("INSERT INTO usage VALUES ('free-gen', 'late', ?, 1)").run(today - 5 * DAY_MS);
    db.close();
    await store.quota.take(daily("free-gen"), "new", now + 30_000);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(count(), 4);
    await store.quota.take(daily("free-gen"), "new", now + 61_000);
    for (let i = 0; i < 100 && count() > 3; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(count(), 3);
    await store.close();
  });
});
