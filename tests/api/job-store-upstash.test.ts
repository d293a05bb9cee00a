// The job store and idempotency contracts on a real redis-server through the Upstash REST bridge.
import { openUpstashBackend } from "@/lib/store/redis/backend";
import { runJobStoreSuite } from "@/tests/helpers/job-store-suite";
import { sharedUpstashBridge } from "@/tests/helpers/upstash-bridge";

const { setup } = sharedUpstashBridge();

runJobStoreSuite("upstash", async () => {
  const { bridge } = await setup();
  return openUpstashBackend({ url: bridge.url, token: bridge.token });
});
