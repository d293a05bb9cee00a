// The operators' console API and the Pro account endpoints: request bodies and query parameters, every bound
// explicit. Shared by the routes and the console's forms.
import { z } from "zod";
import { emailSchema } from "./fields";

export const WAITLIST_STATUSES = ["pending", "invited", "declined"] as const;

export const AUDIT_ACTIONS = [
  "sign_in",
  "sign_out",
  "sign_out_everywhere",
  "sign_in_failed",
  "lockout",
  "approve",
  "decline",
  "key_create",
  "key_revoke",
  "limit_change",
  "images_delete",
] as const;

export const DAILY_LIMIT_MAX = 1_000_000_000;
export const dailyLimitSchema = z.int().min(0).max(DAILY_LIMIT_MAX);

const normalisedEmail = z.preprocess((v) => (typeof v === "string" ? v.trim().toLowerCase() : v), emailSchema);

export const signInSchema = z.object({ token: z.string().min(1).max(1000) });

export const createKeySchema = z
  .object({
    label: z.string().trim().min(1).max(200).optional(),
    email: normalisedEmail.optional(),
    daily_limit: dailyLimitSchema.optional(),
  })
  .refine((v) => v.label !== undefined || v.email !== undefined, { message: "label is required", path: ["label"] });

export const revokeQuerySchema = z.object({ delete_images: z.enum(["true", "false"]).optional() });

export const patchKeySchema = z.object({ daily_limit: dailyLimitSchema.nullable() });

export const bulkApproveSchema = z.object({ ids: z.array(z.string().min(1).max(64)).min(1).max(100) });

export const waitlistQuerySchema = z.object({
  status: z.enum(WAITLIST_STATUSES).optional(),
  q: z.string().max(200).optional(),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  format: z.enum(["json", "csv"]).default("json"),
});

export const daysQuerySchema = z.coerce.number().int().min(1).max(90).default(30);

export const auditQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(200) });

// Answers of the admin API, one definition each: the route handlers type their bodies with them, the console's
// client code parses what comes back with them, and the CLIs print the same shapes (`npm run waitlist -- list
// --format json`, `npm run keys -- list --json`). Every answer also has `success: true`, which the wrapper adds.

const isoTime = z.string();
const counts = z.record(z.string(), z.number());

export const waitlistEntryView = z.object({
  id: z.string(),
  email: z.string(),
  use_case: z.string().nullable(),
  created_at: isoTime,
  status: z.enum(WAITLIST_STATUSES),
  key_id: z.string().nullable(),
  decided_at: isoTime.nullable(),
});
export type WaitlistEntryView = z.infer<typeof waitlistEntryView>;

export const waitlistPageView = z.object({
  entries: z.array(waitlistEntryView),
  total: z.number().int(),
  counts: z.object({ pending: z.number().int(), invited: z.number().int(), declined: z.number().int() }),
  offset: z.number().int(),
  next_offset: z.number().int().nullable(),
});
export type WaitlistPageView = z.infer<typeof waitlistPageView>;

export const invitationView = z.object({ to: z.string(), subject: z.string(), text: z.string() });

/** A key as issued (created or approved): the key itself is in this answer only. */
export const issuedKeyView = z.object({
  key: z.string(),
  key_id: z.string(),
  webhook_secret: z.string().nullable(),
  emailed: z.boolean(),
  label: z.string(),
  email: z.string().nullable(),
  last4: z.string(),
  created_at: isoTime,
  daily_limit: z.number().int(),
  /** The ready-to-send invitation, when it was not emailed. */
  invitation: invitationView.nullable(),
  email_error: z.string().optional(),
});
export type IssuedKeyView = z.infer<typeof issuedKeyView>;

export const bulkApproveView = z.object({
  results: z.array(
    z.union([
      issuedKeyView.extend({ id: z.string(), ok: z.literal(true) }),
      z.object({ id: z.string(), ok: z.literal(false), error: z.object({ code: z.string(), message: z.string() }) }),
    ]),
  ),
});
export type BulkApproveView = z.infer<typeof bulkApproveView>;

export const keyView = z.object({
  id: z.string(),
  label: z.string(),
  email: z.string().nullable(),
  last4: z.string(),
  created_at: isoTime,
  revoked_at: isoTime.nullable(),
  last_used_at: isoTime.nullable(),
  /** Units used today on the key's counter, as the quota counts them. */
  usage_today: z.number().int(),
  /** Succeeded requests over the last 30 UTC days, today included. */
  usage_30d: z.number().int(),
  /** The limit in force: the key's own, else PRO_REQUESTS_PER_DAY. */
  daily_limit: z.number().int(),
  /** True when the key has no limit of its own. */
  default_limit: z.boolean(),
});
export type KeyView = z.infer<typeof keyView>;

export const keyListView = z.object({ keys: z.array(keyView) });
export type KeyListView = z.infer<typeof keyListView>;

export const revokedKeyView = keyView.extend({ images_deleted: z.number().int().optional() });
export type RevokedKeyView = z.infer<typeof revokedKeyView>;

export const usageSeriesRowView = z.object({
  date: z.string(),
  plan: z.enum(["free", "pro"]),
  endpoint: z.enum(["generate", "enhance"]),
  model: z.string(),
  engine: z.string(),
  outcome: z.enum(["succeeded", "failed", "refused"]),
  count: z.number().int(),
});

export const adminUsageView = z.object({
  from: z.string(),
  to: z.string(),
  key_id: z.string().optional(),
  days: z.array(
    z.object({
      date: z.string(),
      total: z.number().int(),
      succeeded: z.number().int(),
      failed: z.number().int(),
      refused: z.number().int(),
      by_plan: counts,
      by_endpoint: counts,
      /** Keys "generate/free", "enhance/pro", …: what the stacked chart draws. */
      by_endpoint_plan: counts,
      by_model: counts,
    }),
  ),
  series: z.array(usageSeriesRowView),
});
export type AdminUsageView = z.infer<typeof adminUsageView>;

const queueView = z.object({
  running: z.number().int(),
  queued: z.number().int(),
  concurrency: z.number().int(),
  max_queued: z.number().int(),
});
const capView = z.object({ used: z.number().int(), limit: z.number().int() }).nullable();

export const overviewView = z.object({
  routes: z.array(
    z.object({
      route: z.string(),
      models: z.array(z.string()),
      calls: z.number().int(),
      failures: z.number().int(),
      recent: z.array(z.boolean()),
      lastFailureAt: z.string().nullable(),
      p50Ms: z.number().nullable(),
      p95Ms: z.number().nullable(),
    }),
  ),
  queues: z.object({ generate: queueView, enhance: queueView }),
  /** null: the cap is off (0). */
  free_caps: z.object({ generate: capView, enhance: capView }),
  /** The store that runs: SQLite, Redis over Upstash's REST API, or Redis over TCP (REDIS_URL). */
  store: z.enum(["sqlite", "upstash", "redis"]),
  /** Models served by the built-in preview engine alone. */
  preview_models: z.array(z.string()),
  images: z.object({
    stored: z.number().int().nullable(),
    retention_days: z.number(),
    sweeps: z.object({
      runs: z.number().int(),
      totalRemoved: z.number().int(),
      totalFailed: z.number().int(),
      lastRunAt: z.string().nullable(),
      lastRemoved: z.number().int(),
      lastError: z.string().nullable(),
    }),
  }),
  /** The work tier (WORK_TIER): inline, or BullMQ with its workers and queues; `error` when Redis cannot say. */
  work_tier: z.object({
    kind: z.enum(["inline", "bullmq"]),
    workers_alive: z.number().int().nullable(),
    queues: z.array(
      z.object({
        name: z.string(),
        depth: z.number().int(),
        running: z.number().int(),
        oldest_age_seconds: z.number(),
      }),
    ),
    stalls: z.number().int().nullable(),
    outcomes: z.record(z.string(), z.number().int()),
    error: z.string().optional(),
  }),
});
export type OverviewView = z.infer<typeof overviewView>;

export const auditEntryView = z.object({
  id: z.string(),
  time: isoTime,
  action: z.string(),
  target: z.string(),
  ip: z.string().nullable(),
  /** The IP's /24 or /48: what the console shows. */
  network: z.string().nullable(),
  actor: z.string(),
  detail: z.string().nullable(),
});
export type AuditEntryView = z.infer<typeof auditEntryView>;
export const auditListView = z.object({ entries: z.array(auditEntryView) });
export type AuditListView = z.infer<typeof auditListView>;

export const sessionView = z.object({
  signed_in: z.literal(true),
  via: z.enum(["session", "token"]),
  /** When the console session ends at the latest; null for a Bearer call. */
  expires_at: isoTime.nullable(),
});
export type SessionView = z.infer<typeof sessionView>;

export const signedOutView = z.object({ signed_in: z.literal(false) });
export type SignedOut = z.infer<typeof signedOutView>;

export const sessionsEndedView = signedOutView.extend({ sessions_ended: z.number().int() });
export type SessionsEnded = z.infer<typeof sessionsEndedView>;
