// The console's calls to /api/admin/* from the browser: the session cookie goes along by itself (same origin), and
// the answers' shapes are spelled out once here.
import { type ApiResult, callApi } from "./api";

export type WaitlistEntry = {
  id: string;
  email: string;
  use_case: string | null;
  created_at: string;
  status: "pending" | "invited" | "declined";
  key_id: string | null;
  decided_at: string | null;
};

export type WaitlistPage = {
  entries: WaitlistEntry[];
  total: number;
  counts: Record<WaitlistEntry["status"], number>;
  offset: number;
  next_offset: number | null;
};

export type IssuedKey = {
  key: string;
  key_id: string;
  webhook_secret: string | null;
  emailed: boolean;
  label: string;
  email: string | null;
  last4: string;
  daily_limit: number;
  invitation: { to: string; subject: string; text: string } | null;
  email_error?: string;
};

export type KeyRow = {
  id: string;
  label: string;
  email: string | null;
  last4: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  usage_today: number;
  usage_30d: number;
  daily_limit: number;
  default_limit: boolean;
};

export type UsageSeriesRow = {
  date: string;
  plan: "free" | "pro";
  endpoint: "generate" | "enhance";
  model: string;
  engine: string;
  outcome: "succeeded" | "failed" | "refused";
  count: number;
};

export type UsageDay = {
  date: string;
  total: number;
  succeeded: number;
  failed: number;
  refused: number;
  by_endpoint_plan: Record<string, number>;
  by_model: Record<string, number>;
};

export type AdminUsage = { from: string; to: string; days: UsageDay[]; series: UsageSeriesRow[] };

export type RouteView = {
  route: string;
  models: string[];
  calls: number;
  failures: number;
  recent: boolean[];
  lastFailureAt: string | null;
  p50Ms: number | null;
  p95Ms: number | null;
};

export type QueueView = { running: number; queued: number; concurrency: number; max_queued: number };

export type Overview = {
  routes: RouteView[];
  queues: { generate: QueueView; enhance: QueueView };
  free_caps: { generate: { used: number; limit: number } | null; enhance: { used: number; limit: number } | null };
  store: string;
  preview_models: string[];
  images: {
    stored: number | null;
    retention_days: number;
    sweeps: {
      runs: number;
      totalRemoved: number;
      lastRunAt: string | null;
      lastRemoved: number;
      lastError: string | null;
    };
  };
};

export type AuditRow = {
  id: string;
  time: string;
  action: string;
  target: string;
  ip: string | null;
  /** The IP's /24 or /48: what the console shows. */
  network: string | null;
  actor: string;
  detail: string | null;
};

const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: body === undefined ? {} : { "Content-Type": "application/json" },
  body: body === undefined ? undefined : JSON.stringify(body),
});

export const adminApi = {
  waitlist: (query: URLSearchParams) => callApi<WaitlistPage>(`/api/admin/waitlist?${query}`),
  approve: (id: string) => callApi<IssuedKey>(`/api/admin/waitlist/${encodeURIComponent(id)}/approve`, json("POST")),
  decline: (id: string) =>
    callApi<WaitlistEntry>(`/api/admin/waitlist/${encodeURIComponent(id)}/decline`, json("POST")),
  approveMany: (ids: string[]) =>
    callApi<{
      results: (
        | ({ id: string; ok: true } & IssuedKey)
        | { id: string; ok: false; error: { code: string; message: string } }
      )[];
    }>("/api/admin/waitlist/approve", json("POST", { ids })),
  keys: () => callApi<{ keys: KeyRow[] }>("/api/admin/keys"),
  createKey: (body: { label: string; email?: string; daily_limit?: number }) =>
    callApi<IssuedKey>("/api/admin/keys", json("POST", body)),
  setLimit: (id: string, dailyLimit: number | null) =>
    callApi<KeyRow>(`/api/admin/keys/${encodeURIComponent(id)}`, json("PATCH", { daily_limit: dailyLimit })),
  revoke: (id: string, deleteImages = false) =>
    callApi<KeyRow & { images_deleted?: number }>(
      `/api/admin/keys/${encodeURIComponent(id)}/revoke${deleteImages ? "?delete_images=true" : ""}`,
      json("POST"),
    ),
  usage: (days: number) => callApi<AdminUsage>(`/api/admin/usage?days=${days}`),
  overview: () => callApi<Overview>("/api/admin/overview"),
  audit: () => callApi<{ entries: AuditRow[] }>("/api/admin/audit?limit=200"),
  signIn: (token: string) => callApi<{ expires_at: string }>("/api/admin/session", json("POST", { token })),
  signOut: () => callApi<{ signed_in: false }>("/api/admin/session", json("DELETE")),
};

export type { ApiResult };
