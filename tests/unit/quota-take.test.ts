// A request's take counts on every charge (the caller's daily bucket, then the Free caps) or on none: a store error
// on a later charge gives back what the earlier ones took (issue 33, item 9), as a refusal does.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { StoreUnavailable } from "@/lib/errors";
import { Quota } from "@/lib/quota/ledger";
import { type Bucket, DAY_MS, type QuotaCounters } from "@/lib/quota/types";
import { ApiError } from "@/lib/schemas/api-error";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-quota-take-"));
const backend = openSqliteBackend(dir);
after(() => {
  backend.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const daily: Bucket = { name: "take-daily", limit: 5, windowMs: DAY_MS };
const cap: Bucket = { name: "take-cap", limit: 100, windowMs: DAY_MS };
const refusal = () => new ApiError("rate_limited");

/** The real store, except that a take on `failing` throws as a store that cannot answer does. */
function failingOn(failing: Bucket): QuotaCounters {
  return {
    take: (bucket, id, now, units) =>
      bucket.name === failing.name
        ? Promise.reject(new StoreUnavailable("the store is unavailable"))
        : backend.quota.take(bucket, id, now, units),
    refund: (...args) => backend.quota.refund(...args),
    peek: (...args) => backend.quota.peek(...args),
  };
}

describe("a take over several charges", () => {
  it("gives back the daily unit when the store fails on a later cap", async () => {
    const id = "ip:198.51.100.7";
    const quota = new Quota(
      failingOn(cap),
      [
        { bucket: daily, identity: id, refusal },
        { bucket: cap, identity: "all", refusal },
      ],
      () => false,
    );
    await assert.rejects(quota.take(2), StoreUnavailable);
    assert.equal((await backend.quota.peek(daily, id)).used, 0, "the daily units are back");
  });

  it("keeps every unit when all charges count", async () => {
    const id = "ip:198.51.100.8";
    const quota = new Quota(
      backend.quota,
      [
        { bucket: daily, identity: id, refusal },
        { bucket: cap, identity: "all", refusal },
      ],
      () => false,
    );
    await quota.take(2);
    assert.equal((await backend.quota.peek(daily, id)).used, 2);
  });
});
