// Chart colours as full class names (so Tailwind finds them): each series has a fill for the SVG and a swatch for the
// legend, chosen to stay apart from each other and readable on light and dark backgrounds.
export type SeriesColor = { fill: string; swatch: string };

export const COLORS = {
  sky: { fill: "fill-sky-400 dark:fill-sky-300", swatch: "bg-sky-400 dark:bg-sky-300" },
  navy: { fill: "fill-sky-800 dark:fill-sky-600", swatch: "bg-sky-800 dark:bg-sky-600" },
  amber: { fill: "fill-amber-400 dark:fill-amber-300", swatch: "bg-amber-400 dark:bg-amber-300" },
  rust: { fill: "fill-orange-700 dark:fill-orange-500", swatch: "bg-orange-700 dark:bg-orange-500" },
  green: { fill: "fill-emerald-600 dark:fill-emerald-400", swatch: "bg-emerald-600 dark:bg-emerald-400" },
  red: { fill: "fill-red-600 dark:fill-red-400", swatch: "bg-red-600 dark:bg-red-400" },
  grey: { fill: "fill-stone-400 dark:fill-stone-500", swatch: "bg-stone-400 dark:bg-stone-500" },
  violet: { fill: "fill-violet-600 dark:fill-violet-400", swatch: "bg-violet-600 dark:bg-violet-400" },
} satisfies Record<string, SeriesColor>;

/** Colours for an open-ended list (models), in order. */
export const CYCLE: SeriesColor[] = [COLORS.sky, COLORS.amber, COLORS.green, COLORS.violet, COLORS.rust, COLORS.navy];
