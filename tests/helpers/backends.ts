// The production backends for API tests: real redis-server behind the Upstash REST bridge, and the Blob server.
import crypto from "node:crypto";
import { type FakeBlobServer, startFakeBlobServer } from "./fake-blob-server";
import { hasRedisServer, type RedisServer, startRedisServer } from "./redis-server";
import { startUpstashBridge, type UpstashBridge } from "./upstash-bridge";

export type Backend = "embedded" | "upstash";

export type Backends = {
  /** Environment for the app: the production store and storage, with one shared pepper. */
  env: Record<string, string>;
  redis: RedisServer;
  bridge: UpstashBridge;
  blob: FakeBlobServer;
  /** Origin image URLs are served from. */
  blobOrigin: string;
  close(): Promise<void>;
};

export { hasRedisServer };

export async function startBackends(): Promise<Backends> {
  const redis = await startRedisServer();
  const bridge = await startUpstashBridge({ redisPort: redis.port });
  const blob = await startFakeBlobServer();
  return {
    env: {
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      BLOB_READ_WRITE_TOKEN: blob.token,
      VERCEL_BLOB_API_URL: blob.apiUrl,
      KEY_PEPPER: crypto.randomBytes(32).toString("hex"),
    },
    redis,
    bridge,
    blob,
    blobOrigin: new URL(blob.apiUrl).origin,
    async close() {
      await bridge.close();
      await blob.close();
      await redis.close();
    },
  };
}
