// Pro keys in the console: the table (with last use and usage), creating, revoking and per-key daily limits.
import { createApiKey, webhookSecretFor } from "@/lib/auth/keys";
import type { KeyRecord } from "@/lib/auth/types";
import { NotFound } from "@/lib/errors";
import { deleteImagesOf, type LibraryDeps } from "@/lib/images/library";
import { imageOwnerOf } from "@/lib/images/owner";
import { type Buckets, dailyBucketOf } from "@/lib/quota/policies";
import type { QuotaCounters } from "@/lib/quota/types";
import { lastDates, type UsageHistory } from "@/lib/usage/history";
import { type Actor, audit } from "./actor";
import { type ConsoleDeps, deliverKey, type IssuedKey } from "./waitlist";

export type KeyDeps = ConsoleDeps & { quota: QuotaCounters; usage: UsageHistory; buckets: Buckets };

import type { KeyView } from "@/lib/schemas/admin";

export type { KeyView };

/** The quota identity of a key, as identifyCaller counts it. */
const identityOf = (keyId: string) => `key:${keyId}`;

export function toKeyView(
  k: KeyRecord,
  buckets: Buckets,
  figures: { lastUsedAt?: string; today?: number; last30?: number } = {},
): KeyView {
  return {
    id: k.id,
    label: k.label,
    email: k.email ?? null,
    last4: k.last4,
    created_at: k.createdAt,
    revoked_at: k.revokedAt,
    last_used_at: figures.lastUsedAt ?? null,
    usage_today: figures.today ?? 0,
    usage_30d: figures.last30 ?? 0,
    daily_limit: k.dailyLimit ?? buckets.proRequests.limit,
    default_limit: k.dailyLimit === undefined,
  };
}

async function figuresFor(deps: KeyDeps, keys: KeyRecord[]) {
  const dates = lastDates(30);
  const [lastUsed, totals, today] = await Promise.all([
    deps.usage.lastUsed(),
    deps.usage.keyTotals(dates[0], dates[dates.length - 1]),
    Promise.all(
      keys.map((k) => deps.quota.peek(dailyBucketOf(deps.buckets, "generate", "pro", k.dailyLimit), identityOf(k.id))),
    ),
  ]);
  const last30 = new Map<string, number>();
  for (const t of totals) last30.set(t.keyId, (last30.get(t.keyId) ?? 0) + t.succeeded);
  return keys.map((k, i) => ({ lastUsedAt: lastUsed.get(k.id), today: today[i].used, last30: last30.get(k.id) ?? 0 }));
}

/** Every key, newest first. */
export async function listKeyViews(deps: KeyDeps): Promise<KeyView[]> {
  const keys = (await deps.keys.listKeys()).reverse();
  const figures = await figuresFor(deps, keys);
  return keys.map((k, i) => toKeyView(k, deps.buckets, figures[i]));
}

export async function viewKey(deps: KeyDeps, id: string): Promise<KeyView> {
  const key = await deps.keys.findKey(id);
  if (!key) throw new NotFound("No key with that id.");
  return toKeyView(key, deps.buckets, (await figuresFor(deps, [key]))[0]);
}

export async function createConsoleKey(
  deps: KeyDeps,
  input: { label: string; email?: string; dailyLimit?: number },
  actor: Actor,
  appUrl: string,
): Promise<IssuedKey> {
  const { key, record } = await createApiKey(deps.keys, deps.pepper, input.label, {
    email: input.email,
    dailyLimit: input.dailyLimit,
  });
  await audit(deps.audit, actor, "key_create", record.id, record.email ? `for ${record.email}` : null);
  return { key, record, ...(await deliverKey(deps, key, record, appUrl)) };
}

/** Revokes a key (taking effect on its next request); revoking again keeps the first time and logs nothing. */
/**
 * Revokes a key (its next request is refused) and, when asked, deletes every image it made: files and records, on
 * either storage backend. Asking again on a revoked key deletes what is left.
 */
export async function revokeConsoleKey(
  deps: KeyDeps & Partial<Pick<LibraryDeps, "images" | "storage">>,
  id: string,
  actor: Actor,
  opts: { deleteImages?: boolean } = {},
): Promise<KeyView & { images_deleted?: number }> {
  const before = await deps.keys.findKey(id);
  if (!before) throw new NotFound("No key with that id.");
  if (!before.revokedAt) {
    await deps.keys.revokeKey(id, new Date().toISOString());
    await audit(deps.audit, actor, "key_revoke", id);
  }
  if (!opts.deleteImages || !deps.images || !deps.storage) return viewKey(deps, id);
  const library = { images: deps.images, storage: deps.storage, retentionDays: deps.config.images.retentionDays };
  const { removed, failed } = await deleteImagesOf(imageOwnerOf({ keyId: id, identity: "" }, deps.pepper), library);
  await audit(
    deps.audit,
    actor,
    "images_delete",
    id,
    `${removed} image${removed === 1 ? "" : "s"} deleted${failed > 0 ? `, ${failed} left to retry` : ""}`,
  );
  return { ...(await viewKey(deps, id)), images_deleted: removed };
}

/** Sets a key's own daily limit, or with null returns it to PRO_REQUESTS_PER_DAY; in force from its next request. */
export async function setKeyLimit(deps: KeyDeps, id: string, limit: number | null, actor: Actor): Promise<KeyView> {
  const before = await deps.keys.findKey(id);
  if (!before || !(await deps.keys.setKeyDailyLimit(id, limit))) throw new NotFound("No key with that id.");
  const shown = (n: number | undefined) => (n === undefined ? "default" : String(n));
  await audit(deps.audit, actor, "limit_change", id, `${shown(limit ?? undefined)} (was ${shown(before.dailyLimit)})`);
  return viewKey(deps, id);
}

/** The signing secret of a key known only by id (a job's webhook); the derived one if the key is gone. */
export async function signingSecretOf(deps: Pick<ConsoleDeps, "keys" | "pepper">, keyId: string): Promise<string> {
  const key = await deps.keys.findKey(keyId);
  return key ? webhookSecretOf(deps, key) : webhookSecretFor(keyId, deps.pepper);
}

/**
 * A key's signing secret. Keys made since the console have a random one stored with them; an older key keeps the
 * one derived from the pepper (what it was shown until now), stored on first read.
 */

export async function webhookSecretOf(deps: Pick<ConsoleDeps, "keys" | "pepper">, key: KeyRecord): Promise<string> {
  if (key.webhookSecret) return key.webhookSecret;
  const secret = await deps.keys.ensureWebhookSecret(key.id, webhookSecretFor(key.id, deps.pepper));
  if (!secret) throw new NotFound("No key with that id.");
  return secret;
}
