// Usage series from the daily aggregates: the console's (every plan, endpoint, model, engine and outcome) and a Pro
// key's own, one entry per UTC day including days with no use, oldest first.
import { lastDates, type UsageHistory, type UsageRow } from "@/lib/usage/history";

export const MAX_USAGE_DAYS = 90;

type Counts = Record<string, number>;
const add = (into: Counts, key: string, n: number) => {
  into[key] = (into[key] ?? 0) + n;
};

export type AdminUsageDay = {
  date: string;
  total: number;
  succeeded: number;
  failed: number;
  refused: number;
  by_plan: Counts;
  by_endpoint: Counts;
  /** Keys "generate/free", "enhance/pro", …: what the stacked chart draws. */
  by_endpoint_plan: Counts;
  by_model: Counts;
};

export type AdminUsage = {
  from: string;
  to: string;
  days: AdminUsageDay[];
  /** Every non-zero counter: date, plan, endpoint, model, engine, outcome, count. */
  series: UsageRow[];
};

export async function adminUsage(usage: UsageHistory, days: number, keyId?: string): Promise<AdminUsage> {
  const dates = lastDates(days);
  const from = dates[0];
  const to = dates[dates.length - 1];
  const rows = keyId ? await usage.readKey(keyId, from, to) : await usage.read(from, to);
  const byDate = new Map(
    dates.map((date): [string, AdminUsageDay] => [
      date,
      {
        date,
        total: 0,
        succeeded: 0,
        failed: 0,
        refused: 0,
        by_plan: {},
        by_endpoint: {},
        by_endpoint_plan: {},
        by_model: {},
      },
    ]),
  );
  for (const r of rows) {
    const day = byDate.get(r.date);
    if (!day) continue;
    day.total += r.count;
    day[r.outcome] += r.count;
    add(day.by_plan, r.plan, r.count);
    add(day.by_endpoint, r.endpoint, r.count);
    add(day.by_endpoint_plan, `${r.endpoint}/${r.plan}`, r.count);
    add(day.by_model, r.model || "unknown", r.count);
  }
  return { from, to, days: [...byDate.values()], series: rows };
}

export type AccountUsageDay = {
  date: string;
  generate: number;
  enhance: number;
  failed: number;
  refused: number;
  by_model: Counts;
};

/**
 * A Pro key's own use: succeeded generations and enhancements (the units its quota counted), failed requests, and
 * the succeeded ones per model. `total` is the succeeded requests over the period.
 */
export async function accountUsage(
  usage: UsageHistory,
  keyId: string,
  days: number,
  now = Date.now(),
): Promise<{ days: AccountUsageDay[]; total: number }> {
  const dates = lastDates(days, now);
  const rows = await usage.readKey(keyId, dates[0], dates[dates.length - 1]);
  const byDate = new Map(
    dates.map((date): [string, AccountUsageDay] => [
      date,
      { date, generate: 0, enhance: 0, failed: 0, refused: 0, by_model: {} },
    ]),
  );
  let total = 0;
  for (const r of rows) {
    const day = byDate.get(r.date);
    if (!day) continue;
    if (r.outcome === "succeeded") {
      day[r.endpoint] += r.count;
      add(day.by_model, r.model, r.count);
      total += r.count;
    } else day[r.outcome] += r.count;
  }
  return { days: [...byDate.values()], total };
}
