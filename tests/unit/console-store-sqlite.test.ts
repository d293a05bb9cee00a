// The console's data and the usage history on the embedded SQLite file, plus what is SQLite's own: a file from
// before 1.1 gains waitlist ids, and signups added by older code still get one.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, it } from "node:test";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";
import type { openSqliteUsageHistory } from "@/lib/store/sqlite/usage";
import { runConsoleStoreSuite } from "@/tests/helpers/console-store-suite";
import { writeVersion2File } from "@/tests/helpers/sqlite-v2";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-console-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const freshDir = () => fs.mkdtempSync(path.join(root, "db-"));

runConsoleStoreSuite("sqlite", async () => openSqliteBackend(freshDir(), { usageHistoryDays: 90 }));

it("gives ids to the signups of a file written before 1.1", async () => {
  const dir = freshDir();
  writeVersion2File(
    dir,
    `INSERT INTO waitlist VALUES ('old-1@example.com', NULL, '2030-01-01T00:00:00.000Z'),
                                ('old-2@example.com', 'x', '2030-01-02T00:00:00.000Z');`,
  );
  const backend = openSqliteBackend(dir);
  // Written the way the API writes a signup, without an id.
  await backend.waitlist.addToWaitlist({
    email: "new@example.com",
    useCase: null,
    createdAt: "2030-01-03T00:00:00.000Z",
  });
  const entries = await backend.waitlist.listWaitlist();
  assert.deepEqual(
    entries.map((e) => [e.email, e.status]),
    [
      ["old-1@example.com", "pending"],
      ["old-2@example.com", "pending"],
      ["new@example.com", "pending"],
    ],
  );
  assert.ok(entries.every((e) => /^wl_[0-9a-f]{16}$/.test(e.id)));
  assert.equal(new Set(entries.map((e) => e.id)).size, 3);
  await backend.close();
});

it("prunes days past the retention", async () => {
  const dir = freshDir();
  const backend = openSqliteBackend(dir, { usageHistoryDays: 2 });
  const usage = backend.usage as ReturnType<typeof openSqliteUsageHistory>;
  const day = Date.UTC(2031, 0, 10, 12);
  const event = {
    plan: "free",
    keyId: null,
    endpoint: "generate",
    model: "m",
    engine: "e",
    outcome: "succeeded",
  } as const;
  for (const at of [day - 2 * 86_400_000, day - 86_400_000, day]) await usage.record({ ...event, at });
  assert.equal(await usage.prune(day), 1);
  const rows = await usage.read("2031-01-01", "2031-01-31");
  assert.deepEqual(
    rows.map((r) => r.date),
    ["2031-01-09", "2031-01-10"],
  );
  await backend.close();
});
