// Each provider route's recent calls: a strip of the last 20 outcomes, failures, the last failure and p50/p95.
import type { RouteView } from "@/lib/client/admin-api";
import { formatWhen } from "./format";
import { HeadRow, ScrollRegion } from "./parts";

const ms = (n: number | null) => (n === null ? "—" : n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${n} ms`);

export function RouteHealthTable({ routes, previewModels }: { routes: RouteView[]; previewModels: string[] }) {
  return (
    <div className="mt-3 space-y-3">
      {routes.length === 0 ? (
        <p className="text-sm text-stone-700 dark:text-stone-300" data-testid="routes-none">
          No provider route is configured: every model renders on the built-in preview engine.
        </p>
      ) : (
        <ScrollRegion label="Provider routes">
          <table className="w-full min-w-[40rem] text-left text-sm" data-testid="routes-table">
            <caption className="sr-only">Provider routes</caption>
            <HeadRow headings={["Route", "Recent calls", "Failures", "Last failure", "p50", "p95"]} />
            <tbody>
              {routes.map((r) => (
                <tr key={r.route} className="border-t border-stone-200 dark:border-stone-800">
                  <th scope="row" className="py-2 pr-3 font-normal">
                    <span className="block font-mono text-xs break-all">{r.route}</span>
                    <span className="text-xs text-stone-600 dark:text-stone-400">{r.models.join(", ")}</span>
                  </th>
                  <td className="py-2 pr-3">
                    <svg
                      viewBox={`0 0 ${Math.max(1, r.recent.length) * 6} 10`}
                      className="h-3 w-32"
                      role="img"
                      aria-label={`${r.recent.filter((ok) => !ok).length} of the last ${r.recent.length} calls failed`}
                    >
                      {r.recent.map((ok, i) => (
                        <rect
                          // biome-ignore lint/suspicious/noArrayIndexKey: a fixed strip of outcomes in call order
                          key={i}
                          x={i * 6}
                          width={5}
                          height={10}
                          rx={1}
                          className={ok ? "fill-emerald-600 dark:fill-emerald-400" : "fill-red-600 dark:fill-red-400"}
                        />
                      ))}
                    </svg>
                  </td>
                  <td className="py-2 pr-3 tabular-nums">
                    {r.failures} / {r.calls}
                  </td>
                  <td className="py-2 pr-3 whitespace-nowrap">{formatWhen(r.lastFailureAt)}</td>
                  <td className="py-2 pr-3 tabular-nums">{ms(r.p50Ms)}</td>
                  <td className="py-2 pr-3 tabular-nums">{ms(r.p95Ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {routes.length > 0 && previewModels.length > 0 && (
        <p className="text-xs text-stone-600 dark:text-stone-400">On the preview engine: {previewModels.join(", ")}.</p>
      )}
    </div>
  );
}
