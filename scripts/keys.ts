// `npm run keys -- create --label <text> | list | revoke <id> | limit <id> <n> | approve <id> | decline <id>`:
// manage Pro API keys in the server's own store.
import { parseArgs } from "node:util";
import { parseConfig } from "../lib/config";
import { audit, CLI_ACTOR } from "../lib/console/actor";
import { createConsoleKey, listKeyViews } from "../lib/console/keys";
import { createKeySchema, DAILY_LIMIT_MAX, keyListView } from "../lib/schemas/admin";
import { createServices } from "../lib/services";
import { CONSOLE_USAGE, runConsoleCommand } from "./console-commands";

const USAGE = `Usage:
  npm run keys -- create --label <text> [--email <address>] [--limit <n>]
                                          create a Pro key (printed once, on the last line)
  npm run keys -- list [--json]           list keys: id, label, last 4, created, revoked, email, daily limit
                                          (--json: what GET /api/admin/keys answers, with usage)
  npm run keys -- revoke <id>             revoke a key; takes effect on the next request
  npm run keys -- ${CONSOLE_USAGE.trimStart()}`;

function readArgs() {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: {
        label: { type: "string" },
        email: { type: "string" },
        limit: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : err}\n${USAGE}`);
    return null;
  }
}

async function main(): Promise<number> {
  const args = readArgs();
  if (!args) return 2;
  const { positionals, values } = args;
  const [command, arg, extra] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const config = parseConfig(process.env);
  const svc = createServices(config);
  try {
    const handled = await runConsoleCommand(command, positionals.slice(1), svc);
    if (handled !== null) return handled;
    if (command === "create") {
      // The same validation as POST /api/admin/keys, and the same key, audit entry and invitation.
      const body = createKeySchema.safeParse({
        label: values.label,
        email: values.email,
        daily_limit: values.limit === undefined ? undefined : Number(values.limit),
      });
      if (!body.success || body.data.label === undefined) {
        console.error(
          `create needs --label <text> (1 to 200 characters), an optional --email <address> and an optional --limit <n> (0 to ${DAILY_LIMIT_MAX})`,
        );
        return 2;
      }
      const appUrl = config.publicAppUrl ?? `http://localhost:${config.port}`;
      const { email, daily_limit: dailyLimit } = body.data;
      const { key, record, emailed } = await createConsoleKey(
        svc,
        { label: body.data.label, email, dailyLimit },
        CLI_ACTOR,
        appUrl,
      );
      if (emailed) console.log(`The invitation with the key was emailed to ${email}.`);
      console.log(`Created key ${record.id} (${record.label}), ending in ${record.last4}.`);
      console.log(`Webhook signing secret: ${record.webhookSecret} (GET /api/account shows it again)`);
      console.log("Copy the key now: it is shown only once and stored only as a hash.");
      console.log(key);
      return 0;
    }
    if (command === "list" && values.json) {
      // What GET /api/admin/keys answers, checked against the same schema.
      console.log(JSON.stringify(keyListView.parse({ keys: await listKeyViews(svc) }).keys, null, 2));
      return 0;
    }
    if (command === "list") {
      const keys = await svc.keys.listKeys();
      if (keys.length === 0) {
        console.log("No keys yet. Create one with: npm run keys -- create --label <text>");
        return 0;
      }
      const rows = keys.map((k) => [
        k.id,
        k.label,
        `…${k.last4}`,
        k.createdAt,
        k.revokedAt ?? "-",
        k.email ?? "-",
        String(k.dailyLimit ?? `${config.limits.proRequestsPerDay} (default)`),
      ]);
      printTable(["id", "label", "last4", "created", "revoked", "email", "daily limit"], rows);
      return 0;
    }
    if (command === "revoke") {
      if (!arg || extra) {
        console.error("revoke needs a key id (see `npm run keys -- list`)");
        return 2;
      }
      const before = await svc.keys.findKey(arg);
      const found = await svc.keys.revokeKey(arg, new Date().toISOString());
      if (!found) {
        console.error(`No key with id ${arg}.`);
        return 1;
      }
      if (!before?.revokedAt) await audit(svc.audit, CLI_ACTOR, "key_revoke", arg);
      console.log(`Revoked ${arg}.`);
      return 0;
    }
    console.error(`Unknown command "${command}".\n${USAGE}`);
    return 2;
  } finally {
    await svc.backend.close();
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
