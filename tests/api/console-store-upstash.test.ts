// The console's data and the usage history on Upstash, on a real redis-server behind the REST bridge.
import { openUpstashConsoleStore } from "@/lib/store/console-upstash";
import { openUpstashStore } from "@/lib/store/upstash";
import { openUpstashUsageHistory } from "@/lib/store/usage-history-upstash";
import { runConsoleStoreSuite } from "@/tests/helpers/console-store-suite";
import { sharedUpstashBridge } from "@/tests/helpers/upstash-bridge";

const { skip, setup } = sharedUpstashBridge();

runConsoleStoreSuite(
  "upstash",
  async () => {
    const { bridge } = await setup();
    const opts = { url: bridge.url, token: bridge.token };
    return {
      store: openUpstashStore(opts),
      console: openUpstashConsoleStore(opts),
      usage: openUpstashUsageHistory({ ...opts, keepDays: 90 }),
    };
  },
  { skip },
);
