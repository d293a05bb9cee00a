// The console's data and the usage history on Upstash, on a real redis-server behind the REST bridge; and the
// waitlist index built for signups written by older code.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { describe, it } from "node:test";
import { openUpstashBackend } from "@/lib/store/redis/backend";
import { runConsoleStoreSuite } from "@/tests/helpers/console-store-suite";
import { sharedUpstashBridge } from "@/tests/helpers/upstash-bridge";

const { skip, setup } = sharedUpstashBridge();

runConsoleStoreSuite(
  "upstash",
  async () => {
    const { bridge } = await setup();
    return openUpstashBackend({ url: bridge.url, token: bridge.token, usageHistoryDays: 90 });
  },
  { skip },
);

describe("waitlist signups written before the signup-order index", { skip }, () => {
  it("are given ids and indexed by the first query, then paged in signup order", async () => {
    const { bridge } = await setup();
    const backend = openUpstashBackend({ url: bridge.url, token: bridge.token, usageHistoryDays: 90 });
    const tag = `legacy${crypto.randomBytes(3).toString("hex")}`;
    // As 1.0 wrote them: only the signup hash, no state, no id, no index entry.
    for (const [i, day] of ["03", "01", "02"].entries()) {
      await backend.client.hset("darkroom:waitlist", {
        [`${tag}-${i}@example.com`]: JSON.stringify({ useCase: null, createdAt: `2030-01-${day}T00:00:00.000Z` }),
      });
    }
    await backend.waitlist.addToWaitlist({
      email: `${tag}-new@example.com`,
      useCase: "after the upgrade",
      createdAt: "2030-01-04T00:00:00.000Z",
    });
    const page = await backend.waitlist.queryWaitlist({ search: tag, offset: 0, limit: 10 });
    assert.deepEqual(
      page.entries.map((e) => e.email),
      [`${tag}-1@example.com`, `${tag}-2@example.com`, `${tag}-0@example.com`, `${tag}-new@example.com`],
    );
    assert.ok(page.entries.every((e) => /^wl_[0-9a-f]{16}$/.test(e.id) && e.status === "pending"));
    assert.equal(page.total, 4);
    const again = await backend.waitlist.queryWaitlist({ search: tag, offset: 2, limit: 1 });
    assert.deepEqual(
      again.entries.map((e) => e.id),
      [page.entries[2].id],
      "ids are kept",
    );
    await backend.close();
  });
});
