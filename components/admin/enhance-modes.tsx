// The enhance modes as this deployment serves them (from /api/status): each mode's routes in the order they are
// tried, whether it is AI or generative, and the licence terms of the face models it uses, so an operator sees
// before offering a mode commercially that its model's licence may not allow it.
"use client";
import type { StatusResponse } from "@/lib/schemas/status";
import { HeadRow, ScrollRegion } from "./parts";

type ModeRow = StatusResponse["enhance_modes"][number];

function kindOf(mode: ModeRow): string {
  if (!mode.available) return "Not served";
  if (mode.generative) return "Generative AI";
  return mode.ai ? "AI" : "Not AI";
}

export function EnhanceModesTable({ modes }: { modes: ModeRow[] }) {
  return (
    <ScrollRegion label="Enhance modes" className="mt-3">
      <table className="w-full min-w-[40rem] text-left text-sm" data-testid="enhance-modes-table">
        <caption className="sr-only">Enhance modes</caption>
        <HeadRow headings={["Mode", "Routes, in order", "Kind", "Licence terms"]} />
        <tbody>
          {modes.map((m) => (
            <tr key={m.name} className="border-t border-stone-200 dark:border-stone-800" data-mode={m.name}>
              <th scope="row" className="py-2 pr-3 font-normal">
                {m.label} <span className="font-mono text-xs text-stone-600 dark:text-stone-400">{m.name}</span>
              </th>
              <td className="py-2 pr-3">
                {m.engines.length === 0 ? (
                  <span className="text-stone-600 dark:text-stone-400">No route (ENHANCE_{m.name.toUpperCase()})</span>
                ) : (
                  <span className="block font-mono text-xs break-all">{m.engines.join(" → ")}</span>
                )}
              </td>
              <td className="py-2 pr-3 whitespace-nowrap">{kindOf(m)}</td>
              <td className="py-2 pr-3 text-xs" data-testid={`licence-${m.name}`}>
                {m.licence_notes ?? "—"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
