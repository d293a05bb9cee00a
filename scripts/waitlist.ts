// `npm run waitlist -- list [--format csv|json]`: export the waitlist from the server's own store.
import { parseArgs } from "node:util";
import { getConfig } from "../lib/config";
import { openStore } from "../lib/services";

function csvCell(value: string | null): string {
  const text = value ?? "";
  // Quote everything that could break the row, and defuse spreadsheet formulas.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe;
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: { format: { type: "string", default: "csv" } },
  });
  if (positionals[0] !== "list" || !["csv", "json"].includes(values.format ?? "")) {
    console.log("Usage: npm run waitlist -- list [--format csv|json]");
    return 2;
  }
  const store = openStore(getConfig());
  try {
    const entries = await store.listWaitlist();
    if (values.format === "json") {
      console.log(
        JSON.stringify(
          entries.map((e) => ({ email: e.email, use_case: e.useCase, created_at: e.createdAt })),
          null,
          2,
        ),
      );
    } else {
      console.log("email,use_case,created_at");
      for (const e of entries) console.log([e.email, e.useCase, e.createdAt].map(csvCell).join(","));
    }
    return 0;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
