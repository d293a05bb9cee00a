// The console's actions on the command line, shared by `npm run keys` and `npm run waitlist`: approve <id>,
// decline <id> (waitlist entries) and limit <key id> <n | default>. Each is audited as done from the CLI.

import { CLI_ACTOR } from "../lib/console/actor";
import { setKeyLimit } from "../lib/console/keys";
import { approveEntry, declineEntry } from "../lib/console/waitlist";
import { Conflict, NotFound } from "../lib/errors";
import { DAILY_LIMIT_MAX, dailyLimitSchema } from "../lib/schemas/admin";
import type { Services } from "../lib/services";

export const CONSOLE_USAGE = `  approve <waitlist id>                   approve an entry: a Pro key for its email (printed once, on the last line)
  decline <waitlist id>                   decline a pending entry
  limit <key id> <n | default>            set a key's own daily limit, or return it to PRO_REQUESTS_PER_DAY`;

export type CliDeps = Pick<
  Services,
  "config" | "keys" | "waitlist" | "audit" | "quota" | "usage" | "pepper" | "buckets" | "mailer"
>;

/** Runs a console command; null when `command` is not one of them. */
export async function runConsoleCommand(command: string, args: string[], deps: CliDeps): Promise<number | null> {
  if (!["approve", "decline", "limit"].includes(command)) return null;
  try {
    if (command === "approve") return await approve(args[0], deps);
    if (command === "decline") return await decline(args[0], deps);
    return await limit(args[0], args[1], deps);
  } catch (err) {
    if (err instanceof NotFound || err instanceof Conflict) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
}

async function approve(id: string | undefined, deps: CliDeps): Promise<number> {
  if (!id) {
    console.error("approve needs a waitlist id (see `npm run waitlist -- list`)");
    return 2;
  }
  const appUrl = deps.config.publicAppUrl ?? `http://localhost:${deps.config.port}`;
  const issued = await approveEntry(deps, id, CLI_ACTOR, appUrl);
  console.log(`Approved ${issued.record.email}: key ${issued.record.id}, ending in ${issued.record.last4}.`);
  if (issued.emailed) console.log("The invitation with the key was emailed.");
  else if (deps.config.mail) console.log(`The invitation was not emailed: ${issued.emailError}`);
  else console.log("Not emailed (SMTP_URL and MAIL_FROM are not set): send the key yourself.");
  console.log(`Webhook signing secret: ${issued.record.webhookSecret} (GET /api/account shows it again)`);
  console.log("Copy the key now: it is shown only once and stored only as a hash.");
  console.log(issued.key);
  return 0;
}

async function decline(id: string | undefined, deps: CliDeps): Promise<number> {
  if (!id) {
    console.error("decline needs a waitlist id (see `npm run waitlist -- list`)");
    return 2;
  }
  const entry = await declineEntry(deps, id, CLI_ACTOR);
  console.log(`Declined ${entry.email}.`);
  return 0;
}

async function limit(id: string | undefined, value: string | undefined, deps: CliDeps): Promise<number> {
  // The same bounds as PATCH /api/admin/keys/{id}.
  const n = value === "default" ? null : dailyLimitSchema.safeParse(Number(value)).data;
  if (!id || n === undefined) {
    console.error(`limit needs a key id and a whole number from 0 to ${DAILY_LIMIT_MAX}, or "default"`);
    return 2;
  }
  const view = await setKeyLimit(deps, id, n ?? null, CLI_ACTOR);
  console.log(`${id} may now make ${view.daily_limit} requests a day${view.default_limit ? " (the default)" : ""}.`);
  return 0;
}
