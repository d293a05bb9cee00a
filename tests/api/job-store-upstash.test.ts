// The JobStore contract on a real redis-server through the Upstash REST bridge.
import { openUpstashJobStore } from "@/lib/store/jobs-upstash";
import { runJobStoreSuite } from "@/tests/helpers/job-store-suite";
import { sharedUpstashBridge } from "@/tests/helpers/upstash-bridge";

const { setup } = sharedUpstashBridge();

runJobStoreSuite("upstash", async () => {
  const { bridge } = await setup();
  return openUpstashJobStore({ url: bridge.url, token: bridge.token });
});
