// What SIGTERM waits for (server.ts): work counted in flight until it settles, a wait bounded by the grace, and the
// signal that stops what remains after it; and the routes whose requests still reach withApi while it drains.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { ShuttingDown } from "@/lib/errors";
import { API_ROUTES } from "@/lib/http/api-routes";
import { Drain } from "@/lib/ops/drain";

const later = <T>(ms: number, value: T, fail = false) =>
  new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(new Error("failed")) : resolve(value)), ms));

describe("in-flight work", () => {
  it("is idle at once when nothing runs", async () => {
    const drain = new Drain();
    assert.equal(drain.inFlight(), 0);
    assert.equal(await drain.whenIdle(0), true);
  });

  it("waits for every tracked piece, failed ones included, and hands each result through", async () => {
    const drain = new Drain();
    const a = drain.track(later(30, "a"));
    const b = drain.track(later(60, "b", true));
    assert.equal(drain.inFlight(), 2);
    const started = Date.now();
    assert.equal(await drain.whenIdle(5_000), true);
    assert.ok(Date.now() - started >= 55, "idle only after the slower one");
    assert.equal(drain.inFlight(), 0);
    assert.equal(await a, "a");
    await assert.rejects(b, /failed/);
  });

  it("gives up after the grace, and says so", async () => {
    const drain = new Drain();
    const slow = drain.track(later(300, "slow"));
    assert.equal(await drain.whenIdle(50), false);
    assert.equal(drain.inFlight(), 1);
    await slow;
    assert.equal(drain.inFlight(), 0);
  });

  it("stops what remains with ShuttingDown, and each drain counts only its own work", async () => {
    const drain = new Drain();
    const other = new Drain();
    const stoppable = drain.track(
      new Promise((_, reject) => drain.stopping.addEventListener("abort", () => reject(drain.stopping.reason))),
    );
    assert.equal(drain.draining, false);
    drain.begin();
    assert.equal(drain.draining, true);
    assert.equal(other.inFlight(), 0);
    assert.equal(await drain.whenIdle(30), false, "nothing stops before stopRemaining");
    drain.stopRemaining();
    await assert.rejects(stoppable, (err) => err instanceof ShuttingDown && err.retryAfterS > 0);
    assert.equal(await drain.whenIdle(1_000), true);
    assert.equal(other.stopping.aborted, false);
  });
});

describe("the routes a drain lets through to withApi", () => {
  it("are exactly the app's routes that withApi wraps", () => {
    const appDir = path.resolve(__dirname, "../../app");
    const wrapped: string[] = [];
    const others: string[] = [];
    for (const file of fs.readdirSync(appDir, { recursive: true, encoding: "utf8" })) {
      if (path.basename(file) !== "route.ts") continue;
      const route = `/${path.dirname(file).split(path.sep).join("/")}`;
      (/\bwithApi\(/.test(fs.readFileSync(path.join(appDir, file), "utf8")) ? wrapped : others).push(route);
    }
    assert.ok(others.includes("/api/ready") && others.includes("/api/admin/keys"), "routes outside withApi are read");
    assert.deepEqual(wrapped.sort(), [...API_ROUTES].sort());
  });
});
