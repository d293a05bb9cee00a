// Daily usage aggregates, for the console's charts and the Pro callers' own usage. One counter per UTC day, plan,
// endpoint, model, engine and outcome; Pro requests are also counted per key, Free ones only in aggregate (no
// per-address history). lib/store/sqlite/usage.ts and lib/store/redis/usage.ts implement it.
import { DAY_MS } from "@/lib/quota/types";

export const USAGE_OUTCOMES = ["succeeded", "failed", "refused"] as const;
export type UsageOutcome = (typeof USAGE_OUTCOMES)[number];

export type UsageEvent = {
  /** Unix ms; the UTC day it falls in is the day counted. */
  at: number;
  plan: "free" | "pro";
  /** Pro only. */
  keyId: string | null;
  endpoint: "generate" | "enhance";
  /** "" when the request was refused before its model was known. */
  model: string;
  /** "" when no engine ran. */
  engine: string;
  outcome: UsageOutcome;
};

export type UsageRow = {
  date: string;
  plan: "free" | "pro";
  endpoint: "generate" | "enhance";
  model: string;
  engine: string;
  outcome: UsageOutcome;
  count: number;
};

export type KeyDayTotal = { keyId: string; date: string; succeeded: number };

export interface UsageHistory {
  /** Counts one request, exactly once, also when callers record in parallel. */
  record(event: UsageEvent): Promise<void>;
  /** Every plan in aggregate, for the UTC dates `from` to `to` (YYYY-MM-DD, inclusive). */
  read(from: string, to: string): Promise<UsageRow[]>;
  /** One Pro key's rows. */
  readKey(keyId: string, from: string, to: string): Promise<UsageRow[]>;
  /** Succeeded requests per key and day, for the keys table. */
  keyTotals(from: string, to: string): Promise<KeyDayTotal[]>;
  /** When each key last made a generate or enhance request (ISO 8601). */
  lastUsed(): Promise<Map<string, string>>;
  close(): Promise<void>;
}

/** The UTC date of a time, YYYY-MM-DD. */
export function utcDate(ms: number): string {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/** The `days` UTC dates ending today, oldest first. */
export function lastDates(days: number, now = Date.now()): string[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return Array.from({ length: days }, (_, i) => utcDate(today - (days - 1 - i) * DAY_MS));
}

/** Field values are joined with "|" on Upstash and kept apart in SQLite; neither may hold it. */
export function cleanDimension(value: string): string {
  return value.replaceAll("|", "/").slice(0, 120);
}

/** The history that records nothing, when the operator turned it off (USAGE_HISTORY_DAYS=0). */
export const noUsageHistory: UsageHistory = {
  record: async () => undefined,
  read: async () => [],
  readKey: async () => [],
  keyTotals: async () => [],
  lastUsed: async () => new Map(),
  close: async () => undefined,
};
