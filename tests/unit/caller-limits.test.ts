// What one caller may hold open at once: uploads being sent, their bytes as they arrive, and event streams.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { QueueFull, TooManyAtOnce } from "@/lib/errors";
import { StreamSlots } from "@/lib/work/stream-slots";
import { UploadGate } from "@/lib/work/upload-gate";

const LIMITS = { free: { atOnce: 2, budgetShare: 0.5 }, pro: { atOnce: 3, budgetShare: 0.8 } };
// Files of 100 bytes: one body of two of them plus the envelope is far below any share here... but for the floor test.
const gateOf = (capacity: number, maxFileBytes = 10) =>
  new UploadGate({ capacity, maxFileBytes, idleTimeoutMs: 1000, timeoutMs: 5000, perPlan: LIMITS });
const free = (ip: string) => ({ identity: `ip:${ip}`, plan: "free" as const });
const pro = (id: string) => ({ identity: `key:${id}`, plan: "pro" as const });
const MB = 1024 * 1024;

describe("upload gate", () => {
  it("holds nothing for a declared size: bytes count as they arrive", () => {
    const gate = gateOf(10 * MB);
    const slot = gate.open(free("a"));
    assert.equal(gate.inUse, 0);
    slot.grow(100);
    slot.grow(50);
    assert.equal(gate.inUse, 150);
    slot.release();
    slot.release();
    assert.equal(gate.inUse, 0, "released once, whatever the calls");
  });

  it("lets one identity send only so many at once, more for a Pro key; an arrived body frees its place", () => {
    const gate = gateOf(10 * MB);
    const first = gate.open(free("a"));
    gate.open(free("a"));
    assert.throws(() => gate.open(free("a")), TooManyAtOnce);
    gate.open(free("b"));
    for (let i = 0; i < 3; i++) gate.open(pro("k"));
    assert.throws(() => gate.open(pro("k")), /at most 3 at once/);
    first.grow(10);
    first.arrived();
    assert.equal(gate.inUse, 10, "its bytes stay held until the work is done");
    gate.open(free("a"));
  });

  it("keeps what each identity is still sending to its share of the budget, and everyone to the budget", () => {
    const gate = gateOf(10 * MB);
    const a = gate.open(free("a"));
    a.grow(5 * MB);
    assert.throws(() => a.grow(1), TooManyAtOnce, "past its half");
    a.arrived();
    const again = gate.open(free("a"));
    again.grow(1); // what has arrived no longer counts against the identity
    const k = gate.open(pro("k"));
    k.grow(4 * MB);
    const c = gate.open(free("c"));
    c.grow(MB - 1);
    assert.throws(() => c.grow(1), QueueFull, "the budget is full");
    a.release();
    c.grow(1);
    assert.equal(gate.inUse, 5 * MB + 1);
  });

  it("always fits one body of the largest size in an identity's share", () => {
    const gate = gateOf(10 * MB, 2 * MB);
    const a = gate.open(free("a"));
    a.grow(4 * MB + 64 * 1024); // two 2 MB files and the envelope, over a quarter of 10 MB
    assert.throws(
      () =>
        gateOf(4 * MB, 8 * MB)
          .open(free("b"))
          .grow(4 * MB + 1),
      QueueFull,
      "the budget still binds",
    );
  });
});

describe("stream slots", () => {
  it("caps streams per identity and per job, and a closed one frees both", () => {
    const slots = new StreamSlots({ perIdentity: 2, perJob: 3 });
    const close = slots.open("ip:a", "job_1");
    slots.open("ip:a", "job_2");
    assert.throws(() => slots.open("ip:a", "job_3"), /at most 2 at once per caller/);
    slots.open("ip:b", "job_1");
    slots.open("ip:c", "job_1");
    assert.throws(() => slots.open("ip:d", "job_1"), /at most 3 at once/);
    close();
    close();
    slots.open("ip:a", "job_1");
    assert.throws(() => slots.open("ip:a", "job_4"), TooManyAtOnce);
  });

  it("gives back the identity's slot when the job's cap refuses", () => {
    const slots = new StreamSlots({ perIdentity: 1, perJob: 1 });
    slots.open("ip:a", "job_1");
    assert.throws(() => slots.open("ip:b", "job_1"));
    slots.open("ip:b", "job_2");
  });
});
