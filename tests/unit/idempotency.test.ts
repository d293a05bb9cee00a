// One request's Idempotency-Key over the real SQLite store and quota: the lease is renewed while the request runs,
// the units it holds are recorded with the claim as the quota changes, and a claim whose renewals stop (its process
// died) is taken over by the next request with the key, which gives the dead request's units back once.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Idempotency, type IdempotencyStore } from "@/lib/idempotency/idempotency";
import { Quota, refundUnits } from "@/lib/quota/ledger";
import { DAY_MS } from "@/lib/quota/types";
import { ApiError } from "@/lib/schemas/api-error";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-idem-"));
const backend = openSqliteBackend(dir);
after(() => backend.close());

const LEASE_MS = 1000;
let callers = 0;

/** A fresh caller with its own daily bucket of 5, and a request of theirs carrying `key`. */
function newCaller() {
  const identity = `ip:192.0.2.${++callers}`;
  const bucket = { name: "idem-test", limit: 5, windowMs: DAY_MS };
  const request = (key: string | null, records: IdempotencyStore = backend.idempotency) => {
    const quota = new Quota(
      backend.quota,
      [{ bucket, identity, refusal: () => new ApiError("rate_limited") }],
      () => false,
    );
    const idempotency = new Idempotency(records, { identity }, "generate", key, {
      leaseMs: LEASE_MS,
      refund: (units) => refundUnits(backend.quota, units),
    });
    quota.follow(idempotency.holding);
    return { quota, idempotency };
  };
  const used = async () => (await backend.quota.peek(bucket, identity)).used;
  return { request, used };
}

/** The store as a process sees it until it dies: from then on, nothing it would write (renewals) lands. */
function mortal() {
  let alive = true;
  const records: IdempotencyStore = {
    ...backend.idempotency,
    renewIdempotencyKey: (...args) =>
      alive ? backend.idempotency.renewIdempotencyKey(...args) : Promise.resolve(false),
  };
  return { records, die: () => (alive = false) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ok = () => new Response('{"success":true}', { status: 200, headers: { "content-type": "application/json" } });

describe("Idempotency over the store", () => {
  it("renews the lease while the request runs, so a repeat long after the lease still gets 409", async () => {
    const caller = newCaller();
    const first = caller.request("long-running");
    assert.equal(await first.idempotency.begin(["same"]), null);
    await first.quota.take(1);
    await sleep(LEASE_MS * 2.5);
    const repeat = caller.request("long-running");
    await assert.rejects(repeat.idempotency.begin(["same"]), { code: "idempotency_in_progress" });
    await first.idempotency.complete(ok());
    const replay = await caller.request("long-running").idempotency.begin(["same"]);
    assert.equal(replay?.headers.get("idempotent-replayed"), "true");
    assert.equal(await caller.used(), 1);
  });

  it("takes over a claim whose renewals stopped, giving its units back once", async () => {
    const caller = newCaller();
    const instance = mortal();
    const dead = caller.request("crashed", instance.records);
    assert.equal(await dead.idempotency.begin(["same"]), null);
    await dead.quota.take(2);
    assert.equal(await caller.used(), 2);
    // The process dies: nothing renews the claim or settles the quota.
    instance.die();
    await sleep(LEASE_MS + 200);
    const takers = [caller.request("crashed"), caller.request("crashed")];
    const outcomes = await Promise.allSettled(takers.map((t) => t.idempotency.begin(["same"])));
    assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1, "one taker");
    assert.ok(
      outcomes.some((o) => o.status === "rejected" && (o.reason as ApiError).code === "idempotency_in_progress"),
    );
    assert.equal(await caller.used(), 0, "both units back, once");
  });

  it("records what a failed request gives back, so a later takeover refunds nothing twice", async () => {
    const caller = newCaller();
    // Two units the caller used earlier, without a key: a refund of too much would eat into them.
    await caller.request(null).quota.take(2);
    const instance = mortal();
    const first = caller.request("partial", instance.records);
    assert.equal(await first.idempotency.begin(["same"]), null);
    await first.quota.take(3);
    await first.quota.giveBack(2);
    assert.equal(await caller.used(), 3);
    instance.die();
    await sleep(LEASE_MS + 200);
    assert.equal(await caller.request("partial").idempotency.begin(["same"]), null);
    assert.equal(await caller.used(), 2, "only the unit still held came back");
  });

  it("gives nothing back twice when a request whose claim was taken over fails after all (issue 33, item 9)", async () => {
    const caller = newCaller();
    // Two units the caller used earlier, without a key: a second refund would eat into them.
    await caller.request(null).quota.take(2);
    const instance = mortal();
    const stalled = caller.request("stalled", instance.records);
    assert.equal(await stalled.idempotency.begin(["same"]), null);
    await stalled.quota.take(2);
    // Its renewals stop landing (a stalled process), so the claim lapses and a retry takes it over, refunding both.
    instance.die();
    await sleep(LEASE_MS + 200);
    assert.equal(await caller.request("stalled").idempotency.begin(["same"]), null);
    assert.equal(await caller.used(), 2);
    // The stalled request wakes and its work fails: what it held was given back already.
    await stalled.quota.giveBack(2);
    assert.equal(await caller.used(), 2, "nothing given back twice");
  });
});
