// The models and enhance modes of the API reference, rendered from the catalogues the server validates against.
import { DEFAULT_ENHANCE_MODE, IN_PROCESS_MODES, toNpmName } from "@/lib/catalog/enhance-modes";
import { DEFAULT_MODEL, MODEL_CATALOG, RATIOS } from "@/lib/catalog/models";
import { mono, SimpleTable } from "./simple-table";

const note = "block text-xs text-stone-600 dark:text-stone-400";
const defaultMark = (isDefault: boolean) => (isDefault ? <span className={note}>default</span> : null);

export function ModelsTable() {
  return (
    <SimpleTable
      caption="Models"
      testId="models-table"
      head={["Model", "Stands for", "Size per ratio", "Variable and routes, in default order"]}
      rows={MODEL_CATALOG.map((m) => ({
        key: m.name,
        cells: [
          <>
            {mono(m.name)}
            {defaultMark(m.name === DEFAULT_MODEL)}
          </>,
          <>
            {m.family}
            <span className={note}>{m.description}</span>
          </>,
          RATIOS.map((r) => (
            <span key={r} className="block whitespace-nowrap">
              {r} · {m.sizes[r].width}×{m.sizes[r].height}
            </span>
          )),
          <>
            {mono(m.env)}
            {m.routes.map((route) => (
              <span key={route} className="block">
                {mono(route)}
              </span>
            ))}
          </>,
        ],
      }))}
    />
  );
}

export function EnhanceModesTable() {
  return (
    <SimpleTable
      caption="Enhance modes"
      testId="enhance-modes-table"
      head={["Mode", "Network", "Package", "Relative compute"]}
      rows={IN_PROCESS_MODES.map((m) => ({
        key: m.name,
        cells: [
          <>
            {mono(m.name)}
            {defaultMark(m.name === DEFAULT_ENHANCE_MODE)}
          </>,
          m.network,
          mono(toNpmName(m.package)),
          m.relativeCompute === 1 ? "1×" : `about ${m.relativeCompute}×`,
        ],
      }))}
    />
  );
}
