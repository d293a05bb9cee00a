// The console's overview: the last 30 days of use in charts, and the service right now: provider routes, queues and
// the Free plan's global caps. Refreshes every 30 seconds, or on demand.
"use client";
import { useCallback, useEffect, useState } from "react";
import { Gauge } from "@/components/charts/gauge";
import { COLORS } from "@/components/charts/palette";
import { ShareBars } from "@/components/charts/share-bars";
import { StackedBars } from "@/components/charts/stacked-bars";
import { panel, secondaryButton } from "@/components/ui/styles";
import { type AdminUsage, adminApi, type Overview } from "@/lib/client/admin-api";
import { useStatus } from "@/lib/client/use-status";
import { EnhanceModesTable } from "./enhance-modes";
import { Notice } from "./parts";
import { RouteHealthTable } from "./route-health";

const REFRESH_MS = 30_000;

const STACKS = [
  { key: "generate/free", label: "Generate · Free", color: COLORS.sky },
  { key: "generate/pro", label: "Generate · Pro", color: COLORS.navy },
  { key: "enhance/free", label: "Enhance · Free", color: COLORS.amber },
  { key: "enhance/pro", label: "Enhance · Pro", color: COLORS.rust },
];

/** The usage and the service's state now, read together on load, every 30 seconds and on Refresh. */
function useOverview() {
  const [usage, setUsage] = useState<AdminUsage | null>(null);
  const [now, setNow] = useState<Overview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loadedAt, setLoadedAt] = useState<Date | null>(null);

  const load = useCallback(async () => {
    const [u, o] = await Promise.all([adminApi.usage(30), adminApi.overview()]);
    if (u.ok) setUsage(u.data);
    if (o.ok) setNow(o.data);
    setError(!u.ok ? u.error.message : !o.ok ? o.error.message : null);
    setLoadedAt(new Date());
  }, []);

  useEffect(() => {
    void load();
    const timer = window.setInterval(() => void load(), REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [load]);
  return { usage, now, error, loadedAt, load };
}

/** The last 30 days in charts: requests by endpoint and plan, outcomes, and each model's share. */
function UsageCharts({ days, models }: { days: AdminUsage["days"]; models: Map<string, number> }) {
  const labels = days.map((d) => d.date);
  return (
    <>
      <section className={`${panel} p-4 sm:p-5`} aria-label="Requests per day">
        <StackedBars
          title="Requests per day, by endpoint and plan"
          labels={labels}
          testId="chart-requests"
          series={STACKS.map((s) => ({ ...s, values: days.map((d) => d.by_endpoint_plan[s.key] ?? 0) }))}
        />
      </section>
      <section className={`${panel} p-4 sm:p-5`} aria-label="Outcomes per day">
        <StackedBars
          title="Success and failure per day"
          labels={labels}
          testId="chart-outcomes"
          series={[
            { key: "succeeded", label: "Succeeded", color: COLORS.green, values: days.map((d) => d.succeeded) },
            { key: "failed", label: "Failed", color: COLORS.red, values: days.map((d) => d.failed) },
            {
              key: "refused",
              label: "Refused (input, filter, quota)",
              color: COLORS.grey,
              values: days.map((d) => d.refused),
            },
          ]}
        />
      </section>
      <section className={`${panel} p-4 sm:p-5`} aria-label="Models">
        <ShareBars
          title="Share of each model, 30 days"
          testId="chart-models"
          items={[...models].map(([label, value]) => ({ label, value }))}
        />
      </section>
    </>
  );
}

/** The service now: queues, the Free plan's global caps today, and the image library. */
function NowSection({ now }: { now: Overview | null }) {
  return (
    <section className={`${panel} space-y-5 p-4 sm:p-5`} aria-label="Now">
      <div>
        <h2 className="text-sm font-semibold">Queues now (this instance)</h2>
        {now && (
          <div className="mt-3 grid gap-4 sm:grid-cols-2">
            <Gauge
              label="Generations running"
              used={now.queues.generate.running}
              limit={now.queues.generate.concurrency}
              detail={`${now.queues.generate.queued} waiting of ${now.queues.generate.max_queued}`}
              testId="queue-generate"
            />
            <Gauge
              label="Enhancements running"
              used={now.queues.enhance.running}
              limit={now.queues.enhance.concurrency}
              detail={`${now.queues.enhance.queued} waiting of ${now.queues.enhance.max_queued}`}
            />
          </div>
        )}
      </div>
      <div>
        <h2 className="text-sm font-semibold">Free plan&apos;s global caps, today</h2>
        {now && (
          <div className="mt-3 grid gap-4 sm:grid-cols-2">
            {(["generate", "enhance"] as const).map((e) => {
              const cap = now.free_caps[e];
              const label = e === "generate" ? "Free generations" : "Free enhancements";
              return cap ? (
                <Gauge key={e} label={label} used={cap.used} limit={cap.limit} testId={`cap-${e}`} />
              ) : (
                <p key={e} className="text-sm">
                  {label}: no global cap
                </p>
              );
            })}
          </div>
        )}
      </div>
      <div>
        <h2 className="text-sm font-semibold">Image library</h2>
        {now?.images && (
          <p className="mt-2 text-sm" data-testid="images-overview">
            {now.images.stored === null ? "Stored images: unknown" : `${now.images.stored} images stored`}
            {" · "}
            {now.images.retention_days > 0 ? `kept ${now.images.retention_days} days` : "kept until deleted"}
            {" · "}
            {now.images.sweeps.lastRunAt
              ? `last sweep ${new Date(now.images.sweeps.lastRunAt).toLocaleString()} removed ${now.images.sweeps.lastRemoved} (${now.images.sweeps.totalRemoved} since this instance started)`
              : "no sweep on this instance yet"}
            {now.images.sweeps.lastError && ` · last sweep failed: ${now.images.sweeps.lastError}`}
          </p>
        )}
      </div>
    </section>
  );
}

export function OverviewPanel() {
  const { usage, now, error, loadedAt, load } = useOverview();
  // Loaded once: the modes change only with the configuration, and the status guard allows 60 calls a minute.
  const { status } = useStatus();
  const days = usage?.days ?? [];
  const today = days.at(-1);
  const total = days.reduce((n, d) => n + d.total, 0);
  const succeeded = days.reduce((n, d) => n + d.succeeded, 0);
  const models = new Map<string, number>();
  for (const d of days) {
    for (const [m, n] of Object.entries(d.by_model)) if (m !== "unknown") models.set(m, (models.get(m) ?? 0) + n);
  }

  return (
    <div className="space-y-6" data-testid="overview">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 className="text-lg font-semibold">Last 30 days</h2>
        <div className="flex items-center gap-3 text-sm text-stone-600 dark:text-stone-400">
          {loadedAt && <span aria-live="polite">Updated {loadedAt.toISOString().slice(11, 19)} UTC</span>}
          <button type="button" className={secondaryButton} onClick={() => void load()}>
            Refresh
          </button>
        </div>
      </div>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        <Figure label="Requests today" value={today?.total ?? 0} testId="requests-today" />
        <Figure label="Succeeded today" value={today?.succeeded ?? 0} />
        <Figure label="Requests, 30 days" value={total} />
        <Figure label="Success rate, 30 days" value={total ? `${Math.round((succeeded / total) * 100)}%` : "—"} />
      </dl>
      {error && <Notice tone="error">{error}</Notice>}

      <div className="grid gap-6 lg:grid-cols-2">
        <UsageCharts days={days} models={models} />
        <NowSection now={now} />
      </div>
      <section className={`${panel} p-4 sm:p-5`} aria-labelledby="routes-title">
        <h2 id="routes-title" className="text-sm font-semibold">
          Provider routes (this instance, last 100 calls each)
        </h2>
        {now && <RouteHealthTable routes={now.routes} previewModels={now.preview_models} />}
      </section>
      <section className={`${panel} p-4 sm:p-5`} aria-labelledby="enhance-modes-title">
        <h2 id="enhance-modes-title" className="text-sm font-semibold">
          Enhance modes
        </h2>
        {status && <EnhanceModesTable modes={status.enhance_modes} />}
      </section>
    </div>
  );
}

function Figure({ label, value, testId }: { label: string; value: number | string; testId?: string }) {
  return (
    <div className={`${panel} px-3 py-2`}>
      <dt className="text-xs text-stone-600 dark:text-stone-400">{label}</dt>
      <dd className="text-xl font-semibold tabular-nums" data-testid={testId}>
        {typeof value === "number" ? value.toLocaleString("en-US") : value}
      </dd>
    </div>
  );
}
