// The JSON shapes of the console API (snake_case, as in the contract).

import type { AuditEntry, WaitlistRecord } from "@/lib/console/types";
import type { IssuedKey } from "@/lib/console/waitlist";
import { truncateIp } from "@/lib/log";
import type { AuditEntryView, IssuedKeyView, WaitlistEntryView } from "@/lib/schemas/admin";

export function waitlistEntryJson(e: WaitlistRecord): WaitlistEntryView {
  return {
    id: e.id,
    email: e.email,
    use_case: e.useCase,
    created_at: e.createdAt,
    status: e.status,
    key_id: e.keyId,
    decided_at: e.decidedAt,
  };
}

/** The key is in this answer only: it is stored as a hash and never shown again. */
export function issuedKeyJson(issued: IssuedKey): IssuedKeyView {
  return {
    key: issued.key,
    key_id: issued.record.id,
    webhook_secret: issued.record.webhookSecret ?? null,
    emailed: issued.emailed,
    label: issued.record.label,
    email: issued.record.email ?? null,
    last4: issued.record.last4,
    created_at: issued.record.createdAt,
    daily_limit: issued.dailyLimit,
    invitation: issued.emailed ? null : issued.invitation,
    ...(issued.emailError && { email_error: issued.emailError }),
  };
}

/** `network` is what the console shows: the address's /24 or /48 (entries written before 1.1.x kept only that). */
export function auditEntryJson(e: AuditEntry): AuditEntryView {
  const network = e.ip === null ? null : e.ip.includes("/") ? e.ip : truncateIp(e.ip);
  return {
    id: e.id,
    time: e.at,
    action: e.action,
    target: e.target,
    ip: e.ip,
    network,
    actor: e.actor,
    detail: e.detail,
  };
}
