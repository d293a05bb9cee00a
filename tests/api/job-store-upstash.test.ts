// The JobStore contract on a real redis-server through the Upstash REST bridge.
import { after } from "node:test";
import { openUpstashJobStore } from "@/lib/store/jobs-upstash";
import { runJobStoreSuite } from "@/tests/helpers/job-store-suite";
import { type RedisServer, startRedisServer } from "@/tests/helpers/redis-server";
import { startUpstashBridge, type UpstashBridge } from "@/tests/helpers/upstash-bridge";

let env: Promise<{ redis: RedisServer; bridge: UpstashBridge }> | undefined;
after(async () => {
  if (!env) return;
  const { redis, bridge } = await env;
  await bridge.close();
  await redis.close();
});

runJobStoreSuite("upstash", async () => {
  env ??= (async () => {
    const redis = await startRedisServer();
    return { redis, bridge: await startUpstashBridge({ redisPort: redis.port }) };
  })();
  const { bridge } = await env;
  return openUpstashJobStore({ url: bridge.url, token: bridge.token });
});
