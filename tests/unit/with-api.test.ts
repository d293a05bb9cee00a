// The request wrapper and the quota it owns: error shape, refunds when work fails, abandoned work keeps its unit.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { before, describe, it } from "node:test";

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-wrapper-"));
process.env.DARKROOM_PEER_TOKEN = "unit-test-token";

let withApi: typeof import("@/lib/http/with-api").withApi;
let ApiError: typeof import("@/lib/schemas/api-error").ApiError;
let errors: typeof import("@/lib/errors");
let getServices: typeof import("@/lib/services").getServices;

before(async () => {
  ({ withApi } = await import("@/lib/http/with-api"));
  ({ ApiError } = await import("@/lib/schemas/api-error"));
  errors = await import("@/lib/errors");
  ({ getServices } = await import("@/lib/services"));
});

function browserRequest(ip: string, signal?: AbortSignal) {
  return new Request("http://localhost/api/generate", {
    method: "POST",
    signal,
    headers: {
      "X-Requested-With": "XMLHttpRequest",
      "x-darkroom-client-ip": ip,
      "x-darkroom-peer-token": "unit-test-token",
    },
  });
}

async function usedBy(ip: string) {
  const svc = getServices();
  return (await svc.quota.peek(svc.buckets.freeGenerations, `ip:${ip}`)).used;
}

describe("withApi", () => {
  it("gives the unit back when the work fails", async () => {
    const handler = withApi("generate", async ({ quota }) => {
      await quota.take();
      throw new errors.GenerationFailed("provider down");
    });
    for (let i = 0; i < 8; i++) {
      const res = await handler(browserRequest("192.0.2.10"));
      assert.equal(res.status, 500);
      const body = await res.json();
      assert.equal(body.error.code, "generation_failed");
      assert.equal(res.headers.get("x-ratelimit-remaining"), "5");
    }
  });

  it("hides unexpected errors behind server_error and logs them with the request id", async () => {
    const secret = "provider said: token sk-123 is invalid at /srv/app.js:10";
    const handler = withApi("generate", async () => {
      throw new Error(secret);
    });
    const logged: string[] = [];
    const original = console.error;
    console.error = (line: string) => logged.push(line);
    try {
      const res = await handler(browserRequest("192.0.2.11"));
      const body = await res.json();
      assert.equal(res.status, 500);
      assert.equal(body.error.code, "server_error");
      assert.ok(!JSON.stringify(body).includes("sk-123"));
      assert.ok(logged.some((l) => l.includes(body.error.request_id) && l.includes("sk-123")));
    } finally {
      console.error = original;
    }
  });

  it("keeps the quota exact when parallel requests partly fail", async () => {
    let n = 0;
    const handler = withApi("generate", async ({ quota }) => {
      await quota.take();
      await new Promise((r) => setTimeout(r, 5));
      if (n++ % 2 === 0) throw new ApiError("generation_failed");
      return { ok: true };
    });
    const replies = await Promise.all(Array.from({ length: 20 }, () => handler(browserRequest("192.0.2.12"))));
    const ok = replies.filter((r) => r.status === 200).length;
    assert.ok(ok <= 5);
    assert.equal(await usedBy("192.0.2.12"), ok, "only successes keep their unit");
  });

  it("keeps the unit when the caller leaves after the work started", async () => {
    const controller = new AbortController();
    const handler = withApi("generate", async ({ quota, signal }) => {
      await quota.take();
      quota.markStarted();
      controller.abort();
      signal.throwIfAborted();
      return { ok: true };
    });
    const res = await handler(browserRequest("192.0.2.13", controller.signal));
    assert.equal(res.status, 500);
    assert.equal(await usedBy("192.0.2.13"), 1, "the cost was spent, so the unit is kept");
  });

  it("gives the unit back when the caller leaves before the work started", async () => {
    const controller = new AbortController();
    const handler = withApi("generate", async ({ quota, signal }) => {
      await quota.take();
      controller.abort();
      signal.throwIfAborted();
      return { ok: true };
    });
    await handler(browserRequest("192.0.2.14", controller.signal));
    assert.equal(await usedBy("192.0.2.14"), 0);
  });

  it("gives the unit back when started work fails through no act of the caller", async () => {
    const handler = withApi("generate", async ({ quota }) => {
      await quota.take();
      quota.markStarted();
      throw new errors.StorageUnavailable("ENOSPC");
    });
    const res = await handler(browserRequest("192.0.2.15"));
    assert.equal(res.status, 503);
    assert.ok(Number(res.headers.get("retry-after")) > 0);
    assert.equal(await usedBy("192.0.2.15"), 0);
  });

  it("maps each domain error to its contract code", async () => {
    const cases: [Error, number, string][] = [
      [new errors.QueueFull(), 503, "busy"],
      [new errors.StoreUnavailable(), 503, "busy"],
      [new errors.Moderated(), 422, "content_filtered"],
      [new errors.ChainExhausted(false), 500, "generation_failed"],
      [new errors.ChainExhausted(true, 7), 503, "busy"],
      [new errors.InvalidImage("bad"), 400, "invalid_image"],
      [new errors.ImageTooLarge("big"), 413, "image_too_large"],
      [new errors.NotFound(), 404, "not_found"],
      [new errors.EnhanceFailed("x"), 500, "server_error"],
    ];
    for (const [i, [err, status, code]] of cases.entries()) {
      const res = await withApi("generate", async () => {
        throw err;
      })(browserRequest(`192.0.2.${100 + i}`));
      assert.equal(res.status, status, err.name);
      assert.equal((await res.json()).error.code, code, err.name);
    }
  });
});
