// The process's enhance engine: sharp only for a runtime that cannot load, busy (not sharp) while a worker restart
// is backing off, and the per-job deadline (ENHANCE_TIMEOUT_MS) that stops a job's tiles.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { ConfigError, parseConfig } from "@/lib/config";
import { createEngineRegistry } from "@/lib/enhance/engine-registry";
import { WorkerPool } from "@/lib/enhance/neural/pool";
import { createUpscaler } from "@/lib/enhance/neural/upscale";
import { createNeuralEngine } from "@/lib/enhance/neural-engine";
import type { EnhanceJob } from "@/lib/enhance/types";
import { EnhanceFailed, QueueFull, WorkAborted } from "@/lib/errors";
import { loadTestPhoto } from "../fixtures/photos";

const ROOT = path.resolve(__dirname, "../..");
const FIXTURES = path.resolve(__dirname, "../fixtures");

function createRegistry(pool: WorkerPool, timeoutMs = 60_000) {
  return createEngineRegistry({ pool, neural: createNeuralEngine({ upscaler: createUpscaler(pool) }), timeoutMs });
}

async function jobOf(width: number, height: number, signal = new AbortController().signal): Promise<EnhanceJob> {
  return {
    image: await loadTestPhoto(width, height),
    width: width * 2,
    height: height * 2,
    strength: 1,
    model: "fast",
    signal,
  };
}

describe("enhance engine registry", () => {
  it("switches to sharp when the neural runtime cannot load at all", async () => {
    const pool = new WorkerPool({ script: path.join(FIXTURES, "broken-worker.cjs"), size: 1 });
    const registry = createRegistry(pool);
    try {
      const out = await registry.run(await jobOf(32, 24));
      assert.deepEqual([out.engine, out.width, out.height], ["sharp", 64, 48]);
      assert.match(registry.fallback ?? "", /failed to start/);
    } finally {
      await pool.close();
    }
  });

  it("answers busy, and does not switch to sharp, while a worker that failed to start waits for its retry", async () => {
    const starts = new SharedArrayBuffer(8 + 8 * 32);
    const pool = new WorkerPool({
      script: path.join(FIXTURES, "flaky-worker.cjs"),
      size: 1,
      workerData: { starts, failOn: [1] },
      restartBackoffMs: { initial: 60_000, max: 60_000 },
    });
    const registry = createRegistry(pool);
    try {
      await assert.rejects(registry.run(await jobOf(32, 24)), QueueFull);
      const second = await registry.run(await jobOf(32, 24)).catch((e: unknown) => e);
      assert.ok(second instanceof QueueFull && second.retryAfterS > 30, String(second));
      assert.equal(registry.fallback, undefined);
    } finally {
      await pool.close();
    }
  });

  it("fails a job past its deadline with EnhanceFailed (cause WorkAborted deadline), and its waiting tiles never run", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-deadline-"));
    const pool = new WorkerPool({
      script: path.join(ROOT, "lib/enhance/neural/worker.cjs"),
      size: 1,
      workerData: { root: ROOT, cacheDir: path.join(tmp, "models"), threads: 1, device: "cpu" },
    });
    const registry = createRegistry(pool, 400);
    try {
      const model = { kind: "package", pkg: "esrgan-slim", scale: 2 } as const;
      await pool.run({ type: "info", model }); // the session is open: the deadline is spent on tiles alone
      const before = pool.stats.completed;
      // 768² in 256 px tiles: 9 tiles, seconds of work on one worker.
      const err = await registry.run(await jobOf(768, 768)).catch((e: unknown) => e);
      assert.ok(err instanceof EnhanceFailed, String(err));
      assert.ok(err.cause instanceof WorkAborted && err.cause.reason === "deadline");
      await pool.run({ type: "info", model }); // queued behind the tile that was running, so that one is done
      const tilesRun = pool.stats.completed - before - 1;
      assert.ok(tilesRun < 9, `${tilesRun} of 9 tiles ran`);
      // A job its client abandons is not reported as a deadline.
      const ctl = new AbortController();
      const abandoned = registry.run(await jobOf(768, 768, ctl.signal));
      ctl.abort(new Error("client went away"));
      await assert.rejects(abandoned, /client went away/);
    } finally {
      await pool.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("reads ENHANCE_TIMEOUT_MS: 120 s by default, a bad value stops start", () => {
    assert.equal(parseConfig({}).enhance.timeoutMs, 120_000);
    assert.equal(parseConfig({ ENHANCE_TIMEOUT_MS: "5000" }).enhance.timeoutMs, 5000);
    for (const bad of ["0", "abc", "1.5", "9999999999"])
      assert.throws(
        () => parseConfig({ ENHANCE_TIMEOUT_MS: bad }),
        (e: unknown) => e instanceof ConfigError && /ENHANCE_TIMEOUT_MS/.test(e.message),
      );
  });
});
