// Event streams through the instance's job watcher: one store call per tick for every stream and every job, and
// every stream of a job gets the same events in the same order.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { jobEvents } from "@/lib/jobs/events";
import type { JobPatch, JobStore } from "@/lib/jobs/store";
import type { JobRecord, JobStatus } from "@/lib/jobs/types";
import { createJobWatcher } from "@/lib/jobs/watch";
import { openSqliteConnection } from "@/lib/store/sqlite/connection";
import { openSqliteJobStore } from "@/lib/store/sqlite/jobs";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function newJob(): JobRecord {
  return {
    id: `job_${crypto.randomBytes(16).toString("hex")}`,
    kind: "enhance",
    owner: "ip:192.0.2.1",
    status: "queued",
    created_at: new Date().toISOString(),
    progress: { fraction: null, queue_position: 1, stage: "queued" },
    internal: { instance: "inst_a", leaseUntil: Date.now() + 60_000, units: [] },
  };
}

/** The job's life, one step per store read: what a runner would write between two ticks. */
const SCRIPT: [JobStatus[], JobPatch][] = [
  [["queued"], { status: "running", progress: { fraction: 0, queue_position: null, stage: "decoding" } }],
  [["running"], { progress: { fraction: 0.5, queue_position: null, stage: "enhancing: tile 1 of 2" } }],
  [["running"], { progress: { fraction: 0.5, queue_position: null, stage: "enhancing: tile 1 of 2" } }], // no change
  [["running"], { progress: { fraction: 1, queue_position: null, stage: "storing" } }],
  [["running"], { status: "succeeded", result: { url: "http://127.0.0.1/cdn/x.png" } }],
];

/** A real SQLite job store whose every read is counted and first advances each job one step of SCRIPT. */
function scriptedStore() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-watch-"));
  dirs.push(dir);
  const real = openSqliteJobStore(openSqliteConnection(dir));
  const counts = { getMany: 0, get: 0, idsPerCall: [] as number[] };
  const steps = new Map<string, number>();
  const store: JobStore = {
    ...real,
    async get(id) {
      counts.get++;
      return real.get(id);
    },
    async getMany(ids) {
      counts.getMany++;
      counts.idsPerCall.push(ids.length);
      for (const id of ids) {
        const step = steps.get(id) ?? 0;
        if (step < SCRIPT.length) await real.transition(id, ...SCRIPT[step]);
        steps.set(id, step + 1);
      }
      return real.getMany(ids);
    },
  };
  return { store, counts };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
}

/** Opens `streams` streams on each of `jobCount` jobs at once and reads them all to the end. */
async function follow(streams: number, jobCount: number) {
  const { store, counts } = scriptedStore();
  const watcher = createJobWatcher(store, { tickMs: 5 });
  const jobs = Array.from({ length: jobCount }, newJob);
  for (const j of jobs) await store.create(j);
  const signal = new AbortController().signal;
  const texts = await Promise.all(
    jobs.flatMap((j) => Array.from({ length: streams }, () => readAll(jobEvents(watcher, j, signal)))),
  );
  assert.equal(watcher.size, 0, "no job is watched once its streams ended");
  watcher.close();
  return { texts, counts };
}

const EXPECTED = [
  'event: progress\ndata: {"status":"queued","progress":{"fraction":null,"queue_position":1,"stage":"queued"}}',
  'event: progress\ndata: {"status":"running","progress":{"fraction":0,"queue_position":null,"stage":"decoding"}}',
  'event: progress\ndata: {"status":"running","progress":{"fraction":0.5,"queue_position":null,"stage":"enhancing: tile 1 of 2"}}',
  'event: progress\ndata: {"status":"running","progress":{"fraction":1,"queue_position":null,"stage":"storing"}}',
  'event: succeeded\ndata: {"url":"http://127.0.0.1/cdn/x.png"}',
].join("\n\n");

describe("job event streams through the watcher", () => {
  it("50 streams on one job make no more store reads than one, and all get the same events in order", async () => {
    const one = await follow(1, 1);
    const fifty = await follow(50, 1);
    assert.equal(one.texts[0].trim(), EXPECTED);
    assert.equal(fifty.texts.length, 50);
    for (const t of fifty.texts) assert.equal(t, one.texts[0]);
    assert.equal(fifty.counts.getMany, one.counts.getMany, "the same number of reads");
    assert.equal(one.counts.getMany, SCRIPT.length, "one read per step of the job");
    assert.equal(fifty.counts.get, 0);
  });

  it("reads the jobs of all streams in one store call per tick", async () => {
    const { texts, counts } = await follow(3, 20);
    for (const t of texts) assert.equal(t.trim(), EXPECTED);
    assert.equal(counts.getMany, SCRIPT.length, "20 jobs, one call per tick");
    assert.deepEqual(counts.idsPerCall, Array(SCRIPT.length).fill(20));
  });

  it("a stream that goes away stops its job's reads; a later stream hears the latest state at once", async () => {
    const { store, counts } = scriptedStore();
    const watcher = createJobWatcher(store, { tickMs: 5 });
    const job = newJob();
    await store.create(job);
    const early = new AbortController();
    const first = readAll(jobEvents(watcher, job, early.signal));
    while (counts.getMany < 2) await new Promise((r) => setTimeout(r, 2));
    // Opened with the record as the route read it before the last two steps: it catches up from the watcher.
    const late = await readAll(jobEvents(watcher, job, new AbortController().signal));
    early.abort();
    const text = await first;
    assert.ok(text.startsWith(EXPECTED.split("\n\n")[0]));
    assert.ok(late.trim().endsWith(EXPECTED.split("\n\n").at(-1) ?? ""));
    assert.equal(watcher.size, 0);
    const reads = counts.getMany;
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(counts.getMany, reads, "no reads while nothing is watched");
    watcher.close();
  });
});
