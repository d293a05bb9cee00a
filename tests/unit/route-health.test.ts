// Route health for status and the console: failing after three failures in a row, and p50/p95 over recent calls.
import assert from "node:assert/strict";
import { it } from "node:test";
import { createHealthBook } from "@/lib/engines/health";

const book = createHealthBook();
const routeHealth = book.of;
const recordOutcome = book.record;
const isRouteFailing = book.isFailing;

it("keeps the last 100 calls of a route, with failures and latency percentiles", () => {
  const route = `test:${Math.random()}`;
  assert.deepEqual(routeHealth(route), {
    calls: 0,
    failures: 0,
    recent: [],
    lastFailureAt: null,
    p50Ms: null,
    p95Ms: null,
  });
  for (let i = 1; i <= 120; i++) recordOutcome(route, i % 10 !== 0, i);
  const h = routeHealth(route);
  assert.equal(h.calls, 100);
  assert.equal(h.failures, 10);
  // Calls 21..120 are kept: their median is 70.5 → 71, their 95th percentile 116.
  assert.equal(h.p50Ms, 71);
  assert.equal(h.p95Ms, 116);
  assert.equal(h.recent.length, 20);
  assert.equal(h.recent.at(-1), false);
  assert.ok(h.lastFailureAt && Date.parse(h.lastFailureAt) <= Date.now());
  assert.equal(isRouteFailing(route), false);
  for (let i = 0; i < 3; i++) recordOutcome(route, false);
  assert.equal(isRouteFailing(route), true);
  // Those pushed out calls 21..23; the 97 timed calls left (24..120) have their median at 72.
  assert.equal(routeHealth(route).p50Ms, 72, "calls without a time don't count toward latency");
});
