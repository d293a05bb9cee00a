// The request wrapper: error shape, refunds when work fails, and no leaked internals.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { before, describe, it } from "node:test";

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-wrapper-"));
process.env.DARKROOM_PEER_TOKEN = "unit-test-token";

type WithApi = typeof import("@/lib/api/with-api").withApi;
let withApi: WithApi;
let ApiError: typeof import("@/lib/api/errors").ApiError;

before(async () => {
  ({ withApi } = await import("@/lib/api/with-api"));
  ({ ApiError } = await import("@/lib/api/errors"));
});

function browserRequest(ip: string) {
  return new Request("http://localhost/api/generate", {
    method: "POST",
    headers: {
      "X-Requested-With": "XMLHttpRequest",
      "x-darkroom-client-ip": ip,
      "x-darkroom-peer-token": "unit-test-token",
    },
  });
}

describe("withApi", () => {
  it("gives the unit back when the work fails", async () => {
    const handler = withApi({
      policy: "generate",
      parse: async () => null,
      run: async () => {
        throw new ApiError("generation_failed");
      },
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
    const handler = withApi({
      policy: "generate",
      parse: async () => null,
      run: async () => {
        throw new Error(secret);
      },
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
    const handler = withApi({
      policy: "generate",
      parse: async () => null,
      run: async () => {
        await new Promise((r) => setTimeout(r, 5));
        if (n++ % 2 === 0) throw new ApiError("generation_failed");
        return { ok: true };
      },
    });
    const replies = await Promise.all(Array.from({ length: 20 }, () => handler(browserRequest("192.0.2.12"))));
    const ok = replies.filter((r) => r.status === 200).length;
    assert.ok(ok <= 5);
    const after = await handler(browserRequest("192.0.2.99"));
    assert.equal(after.status === 200 || after.status === 500, true);
    const { getServices } = await import("@/lib/services");
    const svc = getServices();
    const usage = await svc.store.peek(svc.buckets.freeGenerations, "ip:192.0.2.12");
    assert.equal(usage.used, ok, "only successes keep their unit");
  });
});
