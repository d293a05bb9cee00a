// The console's data and the usage history on Upstash, on a real redis-server behind the REST bridge.
import { openUpstashBackend } from "@/lib/store/upstash-backend";
import { runConsoleStoreSuite } from "@/tests/helpers/console-store-suite";
import { sharedUpstashBridge } from "@/tests/helpers/upstash-bridge";

const { skip, setup } = sharedUpstashBridge();

runConsoleStoreSuite(
  "upstash",
  async () => {
    const { bridge } = await setup();
    return openUpstashBackend({ url: bridge.url, token: bridge.token, usageHistoryDays: 90 });
  },
  { skip },
);
