// From the waitlist to a Pro key: list and search the signups, approve one (a key tied to the email, shown once and
// emailed when mail is set up) or decline it. An entry is approved at most once, even by two operators at once.
import { prepareApiKey } from "@/lib/auth/keys";
import type { KeyRecord, KeyRepository } from "@/lib/auth/types";
import type { Config } from "@/lib/config";
import type { AuditLog, WaitlistPage, WaitlistQuery, WaitlistRecord, WaitlistRepository } from "@/lib/console/types";
import { Conflict, NotFound } from "@/lib/errors";
import { type Actor, audit } from "./actor";
import { buildInvitation, type Invitation, type Mailer } from "./invitation";

export type ConsoleDeps = {
  keys: KeyRepository;
  waitlist: WaitlistRepository;
  audit: AuditLog;
  pepper: string;
  config: Config;
  /** null when SMTP_URL and MAIL_FROM are not set. */
  mailer: Mailer | null;
};

/** A page of the waitlist, searched and paged in the store; an empty search is none. */
export async function queryWaitlist(deps: Pick<ConsoleDeps, "waitlist">, q: WaitlistQuery): Promise<WaitlistPage> {
  const search = q.search?.trim().toLowerCase() || undefined;
  return deps.waitlist.queryWaitlist({ ...q, search });
}

export type IssuedKey = {
  key: string;
  record: KeyRecord;
  /** The effective daily limit. */
  dailyLimit: number;
  emailed: boolean;
  /** The invitation, to send by hand when it was not emailed. */
  invitation: Invitation | null;
  emailError?: string;
};

/** Emails the invitation when mail is configured; the message is returned either way. */
export async function deliverKey(
  deps: Pick<ConsoleDeps, "config" | "mailer">,
  key: string,
  record: KeyRecord,
  appUrl: string,
): Promise<Omit<IssuedKey, "key" | "record">> {
  const dailyLimit = record.dailyLimit ?? deps.config.limits.proRequestsPerDay;
  if (!record.email) return { dailyLimit, emailed: false, invitation: null };
  const invitation = buildInvitation({ to: record.email, key, dailyLimit, appUrl });
  if (!deps.mailer) return { dailyLimit, emailed: false, invitation };
  const sent = await deps.mailer.send(invitation);
  return { dailyLimit, emailed: sent.sent, invitation, ...(sent.error && { emailError: sent.error }) };
}

/**
 * Approves an entry: the entry moves to invited and its key is stored in one atomic step, so a second approval is a
 * Conflict and never makes a second key, and a key that cannot be stored leaves the entry as it was.
 */
export async function approveEntry(deps: ConsoleDeps, id: string, actor: Actor, appUrl: string): Promise<IssuedKey> {
  const entry = await deps.waitlist.findWaitlistEntry(id);
  if (!entry) throw new NotFound("No waitlist entry with that id.");
  if (entry.status === "invited") throw new Conflict("This entry was already approved.");
  const { key, record } = prepareApiKey(deps.pepper, entry.email, { email: entry.email });
  const outcome = await deps.waitlist.approveWaitlistEntry(id, record);
  if (outcome === "missing") throw new NotFound("No waitlist entry with that id.");
  if (outcome === "conflict") throw new Conflict("This entry was already approved.");
  await audit(deps.audit, actor, "approve", id, `key ${record.id}`);
  return { key, record, ...(await deliverKey(deps, key, record, appUrl)) };
}

export async function declineEntry(deps: ConsoleDeps, id: string, actor: Actor): Promise<WaitlistRecord> {
  const outcome = await deps.waitlist.decideWaitlistEntry(id, {
    from: ["pending"],
    to: "declined",
    keyId: null,
    at: new Date().toISOString(),
  });
  if (outcome === "missing") throw new NotFound("No waitlist entry with that id.");
  const entry = await deps.waitlist.findWaitlistEntry(id);
  if (outcome === "conflict" || !entry) {
    throw new Conflict(
      entry?.status === "invited"
        ? "This entry was approved; revoke its key instead."
        : "This entry was already declined.",
    );
  }
  await audit(deps.audit, actor, "decline", id);
  return entry;
}

/** A CSV cell: quoted when it could break the row, and defused when a spreadsheet would read it as a formula. */
export function csvCell(value: string | null): string {
  const text = value ?? "";
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function waitlistCsv(entries: WaitlistRecord[]): string {
  const head = "id,email,use_case,created_at,status,key_id,decided_at";
  const rows = entries.map((e) =>
    [e.id, e.email, e.useCase, e.createdAt, e.status, e.keyId, e.decidedAt].map(csvCell).join(","),
  );
  return `${[head, ...rows].join("\r\n")}\r\n`;
}
