// Readiness: each reason on its own, with the other checks healthy; a hung probe is "not ready" within its bound.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { parseConfig } from "@/lib/config";
import { createEngineShared } from "@/lib/engines";
import { EJECT_MS } from "@/lib/engines/local/pool";
import { WorkerPool } from "@/lib/enhance/neural/pool";
import { createEnhanceRoutes } from "@/lib/enhance/routes/remote-chain";
import { checkReadiness, type ReadinessProbes, storageAnswers } from "@/lib/ops/readiness";
import { createLocalStorage } from "@/lib/storage/local";
import { tempDataDir } from "../helpers/app";

const healthy = (): ReadinessProbes => ({
  store: async () => true,
  storage: async () => true,
  enhance: () => null,
  routes: [
    { model: "alpha-pro", route: "bfl:flux-pro-1.1", failing: true, ejected: true },
    { model: "alpha-pro", route: "fal:fal-ai/flux-pro/v1.1", failing: false, ejected: false },
    { model: "beta-3", route: "preview", failing: false, ejected: false },
  ],
  enhanceChains: [
    { mode: "fast", routes: [{ route: "onnx:esrgan-slim", out: null }] },
    {
      mode: "faces",
      routes: [
        { route: "a1111:Nope", out: 'server 1 has no upscaler named "Nope"' },
        { route: "fal:fal-ai/codeformer", out: null },
      ],
    },
  ],
  queues: [
    { name: "generate", running: 8, queued: 63, concurrency: 8, maxQueued: 64 },
    { name: "enhance", running: 0, queued: 0, concurrency: 2, maxQueued: 0 },
  ],
});

describe("checkReadiness", () => {
  it("is ready when everything answers, even with one of a model's or an enhance mode's routes out", async () => {
    assert.deepEqual(await checkReadiness(healthy()), { ready: true, reasons: [] });
  });

  const faults: [string, (p: ReadinessProbes) => void, RegExp][] = [
    ["a store that answers false", (p) => (p.store = async () => false), /^The store does not answer\.$/],
    [
      "a store that throws",
      (p) =>
        (p.store = async () => {
          throw new Error("ECONNREFUSED");
        }),
      /^The store does not answer\.$/,
    ],
    [
      "a storage that throws",
      (p) =>
        (p.storage = async () => {
          throw new Error("EIO");
        }),
      /^The image storage does not answer\.$/,
    ],
    ["an enhance runtime not loaded", (p) => (p.enhance = () => "The enhance runtime is still loading."), /loading/],
    [
      "a model with every route ejected",
      (p) => (p.routes[1] = { ...p.routes[1], failing: true, ejected: true }),
      /^Every route of alpha-pro is failing or out: bfl:flux-pro-1\.1, fal:fal-ai\/flux-pro\/v1\.1\.$/,
    ],
    [
      "an enhance mode with every route out",
      (p) => (p.enhanceChains[1].routes[1].out = "every server of A1111_URLS is out"),
      /^Every route of the enhance mode faces is out: a1111:Nope \(server 1 has no upscaler named "Nope"\), fal:fal-ai\/codeformer \(every server of A1111_URLS is out\)\.$/,
    ],
    [
      "a full queue",
      (p) => (p.queues[0] = { ...p.queues[0], queued: 64 }),
      /^The generate queue is full \(8 running, 64 waiting\)\.$/,
    ],
  ];
  for (const [name, inject, reason] of faults) {
    it(`is not ready with ${name}, and says why`, async () => {
      const probes = healthy();
      inject(probes);
      const result = await checkReadiness(probes);
      assert.equal(result.ready, false);
      assert.equal(result.reasons.length, 1, result.reasons.join(" | "));
      assert.match(result.reasons[0], reason);
    });
  }

  it("counts a queue with no waiting room as full only while every slot is busy", async () => {
    const probes = healthy();
    probes.queues[1] = { ...probes.queues[1], running: 2 };
    assert.deepEqual((await checkReadiness(probes)).reasons, ["The enhance queue is full (2 running, 0 waiting)."]);
  });

  it("answers within its bound when a probe hangs", async () => {
    const probes = healthy();
    probes.store = () => new Promise(() => undefined);
    const t = performance.now();
    const result = await checkReadiness(probes, 200);
    assert.ok(performance.now() - t < 1500);
    assert.deepEqual(result.reasons, ["The store does not answer."]);
  });

  it("lists every reason at once", async () => {
    const probes = healthy();
    probes.store = async () => false;
    probes.storage = async () => false;
    probes.enhance = () => "The neural enhance runtime could not load.";
    assert.equal((await checkReadiness(probes)).reasons.length, 3);
  });
});

describe("storageAnswers", () => {
  it("reads an absent image from local storage, and throws when the images folder cannot be read", async () => {
    const dataDir = tempDataDir("ready-storage");
    assert.equal(await storageAnswers(createLocalStorage(dataDir, undefined)), true);
    const fs = await import("node:fs");
    fs.rmSync(path.join(dataDir, "images"), { recursive: true, force: true });
    fs.writeFileSync(path.join(dataDir, "images"), "not a folder");
    await assert.rejects(storageAnswers(createLocalStorage(dataDir, undefined)));
  });
});

describe("an enhance mode's readiness from its routes' health", () => {
  it("counts only a mode with no usable step: a failing route before an onnx step keeps the instance ready", async () => {
    const config = parseConfig({
      NODE_ENV: "test",
      FAL_KEY: "fal-test-key",
      ENHANCE_QUALITY: "fal:fal-ai/esrgan,onnx:esrgan-medium",
      ENHANCE_FACES: "fal:fal-ai/codeformer",
    });
    const shared = createEngineShared();
    const routes = createEnhanceRoutes(config, shared);
    const probes = { ...healthy(), enhanceChains: routes.describe() };
    assert.deepEqual(await checkReadiness(probes), { ready: true, reasons: [] }, "no route has failed yet");

    // Generation's rule: three failures in a row make a route failing, out for the time a GPU server is out.
    for (const route of ["fal:fal-ai/esrgan", "fal:fal-ai/codeformer"]) {
      for (let i = 0; i < 3; i++) shared.health.record(route, false, 10);
    }
    const chains = routes.describe();
    assert.deepEqual(chains.find((c) => c.mode === "quality")?.routes, [
      { route: "fal:fal-ai/esrgan", failing: true, out: "its last calls all failed" },
      { route: "onnx:esrgan-medium", failing: false, out: null },
    ]);
    assert.deepEqual(await checkReadiness({ ...healthy(), enhanceChains: chains }), {
      ready: false,
      reasons: ["Every route of the enhance mode faces is out: fal:fal-ai/codeformer (its last calls all failed)."],
    });

    // Past that time the route may be tried again, so the mode counts as able.
    const later = routes.describe(Date.now() + EJECT_MS + 1_000);
    assert.deepEqual(await checkReadiness({ ...healthy(), enhanceChains: later }), { ready: true, reasons: [] });
    shared.health.record("fal:fal-ai/codeformer", true, 10);
    assert.equal(routes.describe().find((c) => c.mode === "faces")?.routes[0].out, null, "one answer brings it back");
  });
});

describe("the enhance pool's readiness", () => {
  const FIXTURES = path.resolve(__dirname, "../fixtures");
  it("warm() starts a worker; loaded turns true once it is ready", async () => {
    const pool = new WorkerPool({ script: path.join(FIXTURES, "crash-worker.cjs"), size: 1 });
    try {
      assert.equal(pool.loaded, false);
      pool.warm();
      for (let i = 0; i < 100 && !pool.loaded; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(pool.loaded, true);
      assert.equal(pool.stats.started, 1);
      pool.warm();
      assert.equal(pool.stats.started, 1, "a live worker is not started twice");
    } finally {
      await pool.close();
    }
  });

  it("warm() on a runtime that cannot load sets the start failure and never loads", async () => {
    const pool = new WorkerPool({ script: path.join(FIXTURES, "broken-worker.cjs"), size: 1 });
    try {
      pool.warm();
      for (let i = 0; i < 100 && !pool.startFailure; i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(pool.startFailure);
      assert.equal(pool.loaded, false);
    } finally {
      await pool.close();
    }
  });
});
