// Who did an admin action, and how it is written to the audit log.
import type { AuditAction, AuditLog } from "@/lib/console/types";

export type Actor = {
  /** How the actor was let in: the console's session cookie, the token as a Bearer, or the command line. */
  via: "session" | "token" | "cli";
  ip: string | null;
};

export const CLI_ACTOR: Actor = { via: "cli", ip: null };

/**
 * Appends one entry to the audit log: time, action, target and the actor's IP. The operator's own log keeps the
 * address, as the contract says; the console shows only its network (IPv4 /24, IPv6 /48).
 */
export async function audit(
  log: Pick<AuditLog, "appendAudit">,
  actor: Actor,
  action: AuditAction,
  target: string,
  detail: string | null = null,
): Promise<void> {
  await log.appendAudit({
    at: new Date().toISOString(),
    action,
    target,
    ip: actor.ip,
    actor: actor.via,
    detail,
  });
}
