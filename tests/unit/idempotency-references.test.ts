// Idempotency records stay small (contract 1.3): a kept /v1 answer holds references to its stored images instead of
// their base64, and a replay reads them back into the very same bytes. On SQLite and on a real redis-server.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Idempotency, type IdempotencyStore } from "@/lib/idempotency/idempotency";
import { ApiError } from "@/lib/schemas/api-error";
import { openUpstashBackend } from "@/lib/store/redis/backend";
import { openSqliteBackend } from "@/lib/store/sqlite/backend";
import { hasRedisServer, type RedisServer, startRedisServer } from "../helpers/redis-server";

const MAX_RECORD_BYTES = 64 * 1024;

/** Four images of 300 KB each, as a library would hold them, and a /v1 answer carrying them as b64_json. */
function answerOf(images: Map<string, Buffer>) {
  const data = [...images].map(([id, bytes], i) => ({
    b64_json: bytes.toString("base64"),
    id,
    seed: i,
    expires_at: null,
    delete_token: `dt_${i}`,
    engine: "preview",
    ai: false,
  }));
  // A prompt that tries to look like a reference stays text.
  const body = JSON.stringify({ created: 1_790_000_000, data, revised_prompt: "\u0000 0 \u0000 \\u00000\\u0000" });
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
}

function suite(name: string, open: () => Promise<{ records: IdempotencyStore; close: () => Promise<void> }>) {
  describe(`Idempotency answers with image references (${name})`, () => {
    let store: Awaited<ReturnType<typeof open>>;
    before(async () => {
      store = await open();
    });
    after(() => store?.close());

    const images = new Map(
      Array.from({ length: 4 }, (_, i) => [
        `img_${crypto.randomBytes(8).toString("hex")}_${i}`,
        crypto.randomBytes(300_000),
      ]),
    );
    const request = (
      key: string,
      readImage = async (id: string) => {
        const bytes = images.get(id);
        if (!bytes) throw new Error("gone");
        return bytes;
      },
    ) =>
      new Idempotency(store.records, { identity: `key:${name}` }, "v1-generations", key, {
        leaseMs: 10_000,
        refund: async () => undefined,
        readImage,
      });

    it("keeps a record under 64 KB for an answer of 1.6 MB, and replays it byte for byte", async () => {
      const answer = answerOf(images);
      const sent = await answer.clone().text();
      assert.ok(sent.length > 1_500_000);
      const first = request("four-images");
      assert.equal(await first.begin(["same request"]), null);
      await first.complete(answer);

      const again = request("four-images");
      const replay = await again.begin(["same request"]);
      assert.ok(replay);
      assert.equal(replay.status, 200);
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      assert.equal(await replay.text(), sent, "the same bytes as the first answer");
      // The record as the store serializes it.
      const kept = lastCompleted ?? "";
      assert.ok(kept.length > 0 && kept.length < MAX_RECORD_BYTES, `the record is ${kept.length} bytes`);
    });

    it("answers 404 on a replay whose image was deleted, instead of other bytes", async () => {
      const first = request("then-deleted");
      await first.begin(["r"]);
      await first.complete(answerOf(images));
      const replay = request("then-deleted", async () => {
        throw new Error("gone");
      });
      await assert.rejects(replay.begin(["r"]), (err) => err instanceof ApiError && err.code === "not_found");
      const changed = request("then-deleted", async () => crypto.randomBytes(300_000));
      await assert.rejects(changed.begin(["r"]), (err) => err instanceof ApiError && err.code === "not_found");
    });

    it("keeps small answers without images whole", async () => {
      const first = request("plain");
      await first.begin(["p"]);
      const body = JSON.stringify({ created: 1, data: [{ url: "https://x.test/cdn/a.png", id: "img_a" }] });
      await first.complete(new Response(body, { status: 200, headers: { "content-type": "application/json" } }));
      const replay = await request("plain", async () => {
        throw new Error("no image is read");
      }).begin(["p"]);
      assert.equal(await replay?.text(), body);
    });
  });
}

let lastCompleted: string | undefined;
/** A store that notes the size of what it is asked to keep, exactly as it serializes it. */
function noting(records: IdempotencyStore): IdempotencyStore {
  return {
    ...records,
    completeIdempotencyKey: (key, token, response, ttlMs) => {
      lastCompleted = JSON.stringify(response);
      return records.completeIdempotencyKey(key, token, response, ttlMs);
    },
  };
}

suite("sqlite", async () => {
  const backend = openSqliteBackend(fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-idem-refs-")));
  return { records: noting(backend.idempotency), close: async () => backend.close() };
});

let redis: RedisServer | undefined;
if (hasRedisServer()) {
  suite("redis", async () => {
    redis = await startRedisServer();
    const backend = openUpstashBackend({ url: redis.url, token: "" });
    return {
      records: noting(backend.idempotency),
      close: async () => {
        await backend.close();
        await redis?.close();
      },
    };
  });
}
