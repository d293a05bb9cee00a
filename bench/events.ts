// `npm run bench`, event streams: store reads per second with 1, 20 and 200 open streams on one job and on 20 jobs,
// and the delay from a state change to its event, through the instance's job watcher on a real SQLite job store.
// The baseline is the previous design, measured the same way: each stream polling the store for itself.
import crypto from "node:crypto";
import { setMaxListeners } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { JobChangeFeed } from "../lib/jobs/changes";
import { jobEvents } from "../lib/jobs/events";
import type { JobStore } from "../lib/jobs/store";
import type { JobRecord } from "../lib/jobs/types";
import { createJobWatcher, WATCH_TICK_MS } from "../lib/jobs/watch";
import { openUpstashBackend } from "../lib/store/redis/backend";
import { openSqliteConnection } from "../lib/store/sqlite/connection";
import { openSqliteJobStore } from "../lib/store/sqlite/jobs";
import { hasRedisServer, startRedisServer } from "../tests/helpers/redis-server";
import type { Table } from "./neural";

const SECONDS = 3;

function newJob(): JobRecord {
  return {
    id: `job_${crypto.randomBytes(16).toString("hex")}`,
    kind: "enhance",
    owner: "ip:192.0.2.1",
    status: "running",
    created_at: new Date().toISOString(),
    progress: { fraction: 0, queue_position: null, stage: "enhancing" },
    internal: { instance: "bench", leaseUntil: Date.now() + 600_000, units: [] },
  };
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)] ?? Number.NaN;

/** The previous design: every stream read its own job from the store every 250 ms. */
function pollPerStream(
  store: JobStore,
  job: JobRecord,
  onEvent: (at: number, text: string) => void,
  stop: AbortSignal,
) {
  let last = JSON.stringify(job.progress);
  const tick = async () => {
    while (!stop.aborted) {
      await new Promise((r) => setTimeout(r, WATCH_TICK_MS));
      const next = await store.get(job.id);
      const state = JSON.stringify(next?.progress);
      if (next && state !== last) onEvent(Date.now(), state);
      last = state;
    }
  };
  void tick();
}

/** Where the jobs live: SQLite in process, or REDIS_URL with a writer and a reader instance and pushed changes. */
type Place = { writer: JobStore; reader: JobStore; feed?: JobChangeFeed; close(): Promise<void> };

function sqlitePlace(): Place {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-bench-events-"));
  const real = openSqliteJobStore(openSqliteConnection(dir));
  return { writer: real, reader: real, close: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

async function measure(mode: "watcher" | "per-stream", streams: number, jobCount: number, place = sqlitePlace()) {
  const real = place.reader;
  let calls = 0;
  const store: JobStore = {
    ...real,
    get: (id) => {
      calls++;
      return real.get(id);
    },
    getMany: (ids) => {
      calls++;
      return real.getMany(ids);
    },
  };
  const jobs = Array.from({ length: jobCount }, newJob);
  for (const j of jobs) await place.writer.create(j);
  const stop = new AbortController();
  setMaxListeners(0, stop.signal); // every stream listens for the end
  const watcher = createJobWatcher(store);
  const unsubscribe = place.feed?.subscribe(
    (id) => watcher.changed(id),
    (live) => watcher.setPushed(live),
  );
  if (place.feed) await new Promise((r) => setTimeout(r, 300)); // subscribed
  /** When each job's latest change was written, by its fraction: the event carrying it is matched to it. */
  const written = new Map<string, number>();
  const delays: number[] = [];
  const hear = (at: number, text: string) => {
    const m = /"fraction":([\d.]+)/.exec(text);
    const t = m && written.get(m[1]);
    if (t) delays.push(at - t);
  };
  for (const job of jobs)
    for (let s = 0; s < Math.ceil(streams / jobCount); s++) {
      if (mode === "per-stream") {
        pollPerStream(store, job, hear, stop.signal);
        continue;
      }
      const reader = jobEvents(watcher, job, stop.signal).getReader();
      const decoder = new TextDecoder();
      void (async () => {
        for (;;) {
          const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (done || !value) return;
          hear(Date.now(), decoder.decode(value));
        }
      })();
    }
  calls = 0;
  const started = Date.now();
  // A runner's progress writes: each job changes every 300 ms, at moments unrelated to the ticks.
  let step = 0;
  while (Date.now() - started < SECONDS * 1000) {
    await new Promise((r) => setTimeout(r, 300 / jobCount));
    const job = jobs[step % jobCount];
    const fraction = Number(((step + 1) / 1e6).toFixed(6));
    written.set(String(fraction), Date.now());
    await place.writer.transition(job.id, ["running"], {
      progress: { fraction, queue_position: null, stage: "enhancing" },
    });
    step++;
  }
  const perSecond = calls / ((Date.now() - started) / 1000);
  stop.abort();
  watcher.close();
  await unsubscribe?.();
  await new Promise((r) => setTimeout(r, WATCH_TICK_MS + 50));
  await place.close();
  return { perSecond, p50: median(delays), events: delays.length };
}

export async function benchEvents(): Promise<Table> {
  const rows: string[][] = [];
  for (const jobCount of [1, 20]) {
    for (const streams of [1, 20, 200]) {
      if (streams < jobCount) continue;
      const now = await measure("watcher", streams, jobCount);
      const before = await measure("per-stream", streams, jobCount);
      rows.push([
        `${streams} stream${streams > 1 ? "s" : ""} on ${jobCount} job${jobCount > 1 ? "s" : ""}`,
        `${now.perSecond.toFixed(1)}/s`,
        `${before.perSecond.toFixed(1)}/s`,
        `${(now.perSecond / before.perSecond).toFixed(3)}×`,
        `p50 ${now.p50.toFixed(0)} ms ${now.p50 <= 250 ? "✓" : "✗"} (${now.events} events)`,
      ]);
    }
  }
  // REDIS_URL: a second instance writes, and this one hears each change pushed instead of polling.
  const redis = hasRedisServer() ? await startRedisServer() : null;
  if (redis) {
    const writer = openUpstashBackend({ url: redis.url, token: "" });
    const reader = openUpstashBackend({ url: redis.url, token: "" });
    const redisPlace = (): Place => ({
      writer: writer.jobs,
      reader: reader.jobs,
      feed: reader.jobChanges,
      close: async () => undefined,
    });
    for (const [streams, jobCount] of [
      [20, 1],
      [200, 20],
    ]) {
      const pushed = await measure("watcher", streams, jobCount, redisPlace());
      const polled = await measure("watcher", streams, jobCount, { ...redisPlace(), feed: undefined });
      rows.push([
        `REDIS_URL, pushed: ${streams} streams on ${jobCount} job${jobCount > 1 ? "s" : ""}`,
        `${pushed.perSecond.toFixed(1)}/s`,
        `${polled.perSecond.toFixed(1)}/s (polled)`,
        `${(pushed.perSecond / polled.perSecond).toFixed(3)}×`,
        `p50 ${pushed.p50.toFixed(0)} ms ${pushed.p50 <= 250 ? "✓" : "✗"} (${pushed.events} events)`,
      ]);
    }
    await Promise.all([writer.close(), reader.close()]);
    await redis.close();
  }
  return {
    head: [
      "event streams (SQLite job store, in process)",
      "store calls, watcher",
      "store calls, a poll per stream (before)",
      "ratio",
      "state → event delay (target p50 ≤ 250 ms)",
    ],
    rows,
    notes: [
      `${SECONDS} s per row; each job's progress changes every 300 ms. The watcher reads all watched jobs in one call per ${WATCH_TICK_MS} ms tick, whatever the number of streams or jobs; on Redis a call is one script run (one HTTP request to Upstash).`,
      "REDIS_URL rows: a second instance writes; this one reads only when Redis pushes a change of a job it watches (pub/sub), pushes within 50 ms share one read (so a busy instance reads at most 20 times a second, however many jobs and viewers), with a 5 s safety tick. Compared with the same watcher polling every 250 ms.",
    ],
  };
}
