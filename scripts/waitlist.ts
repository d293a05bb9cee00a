// `npm run waitlist -- list [--format csv|json] | approve <id> | decline <id> | limit <key id> <n>`: the waitlist in
// the server's own store, and the console's actions on it.
import { parseArgs } from "node:util";
import { parseConfig } from "../lib/config";
import { csvCell } from "../lib/console/waitlist";
import { waitlistEntryJson } from "../lib/features/admin/answer";
import { waitlistEntryView } from "../lib/schemas/admin";
import { createServices } from "../lib/services";
import { CONSOLE_USAGE, runConsoleCommand } from "./console-commands";

const USAGE = `Usage:
  npm run waitlist -- list [--format csv|json]  export the list: email, use case, signed up, id, status
  npm run waitlist -- ${CONSOLE_USAGE.trimStart()}`;

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ allowPositionals: true; options: { format: { type: "string" } } }>>;
  try {
    parsed = parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: { format: { type: "string", default: "csv" } },
    });
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : err}\n${USAGE}`);
    return 2;
  }
  const { positionals, values } = parsed;
  const [command] = positionals;
  if (!command || (command === "list" && !["csv", "json"].includes(values.format ?? ""))) {
    console.log(USAGE);
    return 2;
  }
  const config = parseConfig(process.env);
  const svc = createServices(config);
  try {
    const handled = await runConsoleCommand(command, positionals.slice(1), svc);
    if (handled !== null) return handled;
    if (command !== "list") {
      console.error(`Unknown command "${command}".\n${USAGE}`);
      return 2;
    }
    const entries = await svc.waitlist.listWaitlist();
    if (values.format === "json") {
      // Each entry as GET /api/admin/waitlist shows it, checked against the same schema.
      console.log(JSON.stringify(waitlistEntryView.array().parse(entries.map(waitlistEntryJson)), null, 2));
    } else {
      console.log("email,use_case,created_at,id,status,key_id");
      for (const e of entries) {
        console.log([e.email, e.useCase, e.createdAt, e.id, e.status, e.keyId].map(csvCell).join(","));
      }
    }
    return 0;
  } finally {
    await svc.backend.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
