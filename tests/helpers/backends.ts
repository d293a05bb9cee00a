// The production backends for API tests: a real redis-server, reached through the Upstash REST bridge ("upstash") or
// directly over TCP with REDIS_URL ("redis"), and the Blob server.
import crypto from "node:crypto";
import { type FakeBlobServer, startFakeBlobServer } from "./fake-blob-server";
import { hasRedisServer, type RedisServer, startRedisServer } from "./redis-server";
import { startUpstashBridge, type UpstashBridge } from "./upstash-bridge";

export type Backend = "embedded" | "upstash" | "redis";

export type Backends = {
  /** Environment for the app: the production store and storage, with one shared pepper. */
  env: Record<string, string>;
  redis: RedisServer;
  /** The REST bridge, on the "upstash" transport only. */
  bridge?: UpstashBridge;
  blob: FakeBlobServer;
  /** Origin image URLs are served from. */
  blobOrigin: string;
  close(): Promise<void>;
};

export { hasRedisServer };

export async function startBackends(transport: Exclude<Backend, "embedded"> = "upstash"): Promise<Backends> {
  const redis = await startRedisServer();
  const bridge = transport === "upstash" ? await startUpstashBridge({ redisPort: redis.port }) : undefined;
  const blob = await startFakeBlobServer();
  return {
    env: {
      ...(bridge
        ? { UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token }
        : { REDIS_URL: redis.url }),
      BLOB_READ_WRITE_TOKEN: blob.token,
      VERCEL_BLOB_API_URL: blob.apiUrl,
      KEY_PEPPER: crypto.randomBytes(32).toString("hex"),
      // The bridge runs in the test process, which shares two cores with several apps under test: a call may wait
      // far past the 1.5 s default there. Tests of an unavailable store stop Redis, which fails at once.
      REDIS_TIMEOUT_MS: "10000",
    },
    redis,
    bridge,
    blob,
    blobOrigin: new URL(blob.apiUrl).origin,
    async close() {
      await bridge?.close();
      await blob.close();
      await redis.close();
    },
  };
}
