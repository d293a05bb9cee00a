// `npm run keys -- create --label <text> | list | revoke <id>`: manage Pro API keys in the server's own store.
import { parseArgs } from "node:util";
import { createApiKey, webhookSecretFor } from "../lib/auth/keys";
import { loadPepper } from "../lib/auth/pepper";
import { getConfig } from "../lib/config";
import { openStore } from "../lib/services";

const USAGE = `Usage:
  npm run keys -- create --label <text>   create a Pro key (printed once, on the last line)
  npm run keys -- list                    list keys: id, label, last 4, created, revoked
  npm run keys -- revoke <id>             revoke a key; takes effect on the next request`;

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: { label: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  const [command, arg] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const config = getConfig();
  const store = openStore(config);
  try {
    if (command === "create") {
      const label = values.label?.trim();
      if (!label || label.length > 200) {
        console.error("create needs --label <text> (1 to 200 characters)");
        return 2;
      }
      const pepper = loadPepper(config.dataDir, config.keyPepper);
      const { key, record } = await createApiKey(store, pepper, label);
      console.log(`Created key ${record.id} (${record.label}), ending in ${record.last4}.`);
      console.log(`Webhook signing secret: ${webhookSecretFor(record.id, pepper)} (GET /api/account shows it again)`);
      console.log("Copy the key now: it is shown only once and stored only as a hash.");
      console.log(key);
      return 0;
    }
    if (command === "list") {
      const keys = await store.listKeys();
      if (keys.length === 0) {
        console.log("No keys yet. Create one with: npm run keys -- create --label <text>");
        return 0;
      }
      const rows = keys.map((k) => [k.id, k.label, `…${k.last4}`, k.createdAt, k.revokedAt ?? "-"]);
      printTable(["id", "label", "last4", "created", "revoked"], rows);
      return 0;
    }
    if (command === "revoke") {
      if (!arg) {
        console.error("revoke needs a key id (see `npm run keys -- list`)");
        return 2;
      }
      const found = await store.revokeKey(arg, new Date().toISOString());
      if (!found) {
        console.error(`No key with id ${arg}.`);
        return 1;
      }
      console.log(`Revoked ${arg}.`);
      return 0;
    }
    console.error(`Unknown command "${command}".\n${USAGE}`);
    return 2;
  } finally {
    await store.close();
  }
}

export function printTable(head: string[], rows: string[][]) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  console.log(line(head));
  for (const row of rows) console.log(line(row));
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
