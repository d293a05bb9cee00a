// What one caller may hold open at once: uploads being sent, their bytes as they arrive, and event streams.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { QueueFull, TooManyAtOnce } from "@/lib/errors";
import { StreamSlots } from "@/lib/work/stream-slots";
import { UploadGate } from "@/lib/work/upload-gate";

const gateOf = (capacity: number) =>
  new UploadGate({ capacity, idleTimeoutMs: 1000, timeoutMs: 5000, uploadsPerIdentity: 2, budgetShare: 0.5 });

describe("upload gate", () => {
  it("holds nothing for a declared size: bytes count as they arrive", () => {
    const gate = gateOf(1000);
    const slot = gate.open("ip:a");
    assert.equal(gate.inUse, 0);
    slot.grow(100);
    slot.grow(50);
    assert.equal(gate.inUse, 150);
    slot.release();
    slot.release();
    assert.equal(gate.inUse, 0, "released once, whatever the calls");
  });

  it("lets one identity send only so many at once; an arrived body frees its place but keeps its bytes", () => {
    const gate = gateOf(1000);
    const first = gate.open("ip:a");
    gate.open("ip:a");
    assert.throws(() => gate.open("ip:a"), TooManyAtOnce);
    gate.open("ip:b");
    first.grow(10);
    first.arrived();
    assert.equal(gate.inUse, 10);
    gate.open("ip:a");
  });

  it("keeps each identity to its share of the budget, and the budget for everyone", () => {
    const gate = gateOf(1000);
    const a = gate.open("ip:a");
    a.grow(500);
    assert.throws(() => a.grow(1), TooManyAtOnce, "past its half");
    const b = gate.open("ip:b");
    b.grow(400);
    const c = gate.open("ip:c");
    c.grow(100);
    assert.throws(() => c.grow(1), QueueFull, "the budget is full");
    a.release();
    c.grow(1);
    assert.equal(gate.inUse, 501);
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
