// Usage history on Upstash Redis: a hash per day (field: plan|endpoint|model|engine|outcome), a hash per Pro key
// and day, and the day's succeeded requests per key; one script adds 1 to each, once, and they expire after the
// retention. HINCRBY is atomic, so the counts are exact under any concurrency.

import { DAY_MS } from "@/lib/quota/types";
import {
  cleanDimension,
  type KeyDayTotal,
  type UsageHistory,
  type UsageOutcome,
  type UsageRow,
  utcDate,
} from "@/lib/usage/history";
import { call, MARKER_TTL_MS, markerKey, pairs } from "./call";
import type { RedisClient } from "./client";
import { RECORD_USAGE } from "./lua/usage";

const dayKey = (date: string) => `darkroom:usage:${date}`;
const keyDayKey = (date: string, keyId: string) => `darkroom:usage:${date}:key:${keyId}`;
const keyTotalsKey = (date: string) => `darkroom:usage:${date}:keys`;
const LAST_USED = "darkroom:usage:last-used"; // hash: key id → ISO time

/** The dates from `from` to `to`, inclusive. */
function datesBetween(from: string, to: string): string[] {
  const out: string[] = [];
  const end = Date.parse(`${to}T00:00:00.000Z`);
  for (let t = Date.parse(`${from}T00:00:00.000Z`); t <= end && out.length <= 3660; t += DAY_MS) out.push(utcDate(t));
  return out;
}

function toRows(date: string, raw: unknown, plan?: "pro"): UsageRow[] {
  return pairs(raw).flatMap(([field, value]): UsageRow[] => {
    const parts = field.split("|");
    const [p, endpoint, model, engine, outcome] = plan ? [plan, ...parts] : parts;
    if (outcome === undefined) return [];
    return [
      {
        date,
        plan: p as UsageRow["plan"],
        endpoint: endpoint as UsageRow["endpoint"],
        model,
        engine,
        outcome: outcome as UsageOutcome,
        count: Number(value),
      },
    ];
  });
}

export function openUpstashUsageHistory(redis: RedisClient, opts: { keepDays: number }): UsageHistory {
  const record = redis.createScript<number>(RECORD_USAGE);
  const ttlSeconds = String((opts.keepDays + 1) * 86_400);

  return {
    async record(e) {
      const date = utcDate(e.at);
      const tail = [e.endpoint, cleanDimension(e.model), cleanDimension(e.engine), e.outcome].join("|");
      const keyId = e.keyId ?? "";
      await call("record usage", () =>
        record.exec(
          [dayKey(date), keyDayKey(date, keyId), keyTotalsKey(date), LAST_USED, markerKey()],
          [
            `${e.plan}|${tail}`,
            keyId ? tail : "",
            keyId,
            e.outcome === "succeeded" ? "1" : "0",
            new Date(e.at).toISOString(),
            ttlSeconds,
            String(MARKER_TTL_MS),
          ],
        ),
      );
    },
    async read(from, to) {
      const dates = datesBetween(from, to);
      // Issued together, these go out as one auto-pipelined request.
      const days = await call("read usage", () => Promise.all(dates.map((d) => redis.hgetall(dayKey(d)))));
      return dates.flatMap((d, i) => toRows(d, days[i]));
    },
    async readKey(keyId, from, to) {
      const dates = datesBetween(from, to);
      const days = await call("read key usage", () =>
        Promise.all(dates.map((d) => redis.hgetall(keyDayKey(d, keyId)))),
      );
      return dates.flatMap((d, i) => toRows(d, days[i], "pro"));
    },
    async keyTotals(from, to) {
      const dates = datesBetween(from, to);
      const days = await call("read key totals", () => Promise.all(dates.map((d) => redis.hgetall(keyTotalsKey(d)))));
      return dates.flatMap((date, i) =>
        pairs(days[i]).map(([keyId, n]): KeyDayTotal => ({ keyId, date, succeeded: Number(n) })),
      );
    },
    async lastUsed() {
      return new Map(pairs(await call("read last use", () => redis.hgetall(LAST_USED))));
    },
    async close() {
      // The HTTP client is shared by the process.
    },
  };
}
