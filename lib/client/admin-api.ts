// The console's calls to /api/admin/* from the browser: the session cookie goes along by itself (same origin), and
// every answer is parsed with the admin API's response schemas (lib/schemas/admin.ts), the same ones the routes
// type their bodies with, so the page never works on a shape the server did not send.
import type { z } from "zod";
import {
  type AdminUsageView,
  type AuditEntryView,
  adminUsageView,
  auditListView,
  bulkApproveView,
  type IssuedKeyView,
  issuedKeyView,
  type KeyView,
  keyListView,
  keyView,
  type OverviewView,
  overviewView,
  revokedKeyView,
  sessionsEndedView,
  sessionView,
  signedOutView,
  type WaitlistEntryView,
  type WaitlistPageView,
  waitlistEntryView,
  waitlistPageView,
} from "@/lib/schemas/admin";
import { type ApiResult, callApi } from "./api";

export type WaitlistEntry = WaitlistEntryView;
export type WaitlistPage = WaitlistPageView;
export type IssuedKey = IssuedKeyView;
export type KeyRow = KeyView;
export type AdminUsage = AdminUsageView;
export type Overview = OverviewView;
export type RouteView = OverviewView["routes"][number];
export type AuditRow = AuditEntryView;

const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: body === undefined ? {} : { "Content-Type": "application/json" },
  body: body === undefined ? undefined : JSON.stringify(body),
});

/** Calls an admin endpoint and parses its answer with `schema`; an answer of another shape is an error. */
async function call<S extends z.ZodType>(schema: S, path: string, init?: RequestInit): Promise<ApiResult<z.infer<S>>> {
  const res = await callApi<unknown>(path, init);
  if (!res.ok) return res;
  const parsed = schema.safeParse(res.data);
  if (parsed.success) return { ...res, data: parsed.data };
  return {
    ok: false,
    quota: res.quota,
    error: { code: "server_error", status: res.status, message: `Unexpected answer from ${path}.` },
  };
}

const entry = (id: string) => `/api/admin/waitlist/${encodeURIComponent(id)}`;
const key = (id: string) => `/api/admin/keys/${encodeURIComponent(id)}`;

export const adminApi = {
  waitlist: (query: URLSearchParams) => call(waitlistPageView, `/api/admin/waitlist?${query}`),
  approve: (id: string) => call(issuedKeyView, `${entry(id)}/approve`, json("POST")),
  decline: (id: string) => call(waitlistEntryView, `${entry(id)}/decline`, json("POST")),
  approveMany: (ids: string[]) => call(bulkApproveView, "/api/admin/waitlist/approve", json("POST", { ids })),
  keys: () => call(keyListView, "/api/admin/keys"),
  createKey: (body: { label: string; email?: string; daily_limit?: number }) =>
    call(issuedKeyView, "/api/admin/keys", json("POST", body)),
  setLimit: (id: string, dailyLimit: number | null) =>
    call(keyView, key(id), json("PATCH", { daily_limit: dailyLimit })),
  revoke: (id: string, deleteImages = false) =>
    call(revokedKeyView, `${key(id)}/revoke${deleteImages ? "?delete_images=true" : ""}`, json("POST")),
  usage: (days: number) => call(adminUsageView, `/api/admin/usage?days=${days}`),
  overview: () => call(overviewView, "/api/admin/overview"),
  audit: () => call(auditListView, "/api/admin/audit?limit=200"),
  signIn: (token: string) => call(sessionView, "/api/admin/session", json("POST", { token })),
  signOut: () => call(signedOutView, "/api/admin/session", json("DELETE")),
  signOutEverywhere: () => call(sessionsEndedView, "/api/admin/sessions", json("DELETE")),
};

export type { ApiResult };
