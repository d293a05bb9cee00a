// The console's data and the usage history on Upstash, on a real redis-server behind the REST bridge.
import { after } from "node:test";
import { openUpstashConsoleStore } from "@/lib/store/console-upstash";
import { openUpstashStore } from "@/lib/store/upstash";
import { openUpstashUsageHistory } from "@/lib/store/usage-history-upstash";
import { runConsoleStoreSuite } from "@/tests/helpers/console-store-suite";
import { hasRedisServer, type RedisServer, startRedisServer } from "@/tests/helpers/redis-server";
import { startUpstashBridge, type UpstashBridge } from "@/tests/helpers/upstash-bridge";

const skip = hasRedisServer() ? false : "redis-server is not on PATH (apt-get install -y redis-server)";
let env: { redis: RedisServer; bridge: UpstashBridge } | undefined;

after(async () => {
  await env?.bridge.close();
  await env?.redis.close();
});

runConsoleStoreSuite(
  "upstash",
  async () => {
    const redis = await startRedisServer();
    const bridge = await startUpstashBridge({ redisPort: redis.port });
    env = { redis, bridge };
    const opts = { url: bridge.url, token: bridge.token };
    return {
      store: openUpstashStore(opts),
      console: openUpstashConsoleStore(opts),
      usage: openUpstashUsageHistory({ ...opts, keepDays: 90 }),
    };
  },
  { skip },
);
