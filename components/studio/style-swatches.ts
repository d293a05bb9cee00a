// A distinct gradient per style preset, so the style chips read at a glance; unknown presets get a neutral one.
const SWATCHES: Record<string, string> = {
  Photorealistic: "bg-linear-to-br from-sky-300 via-emerald-200 to-amber-200",
  Cinematic: "bg-linear-to-br from-teal-700 via-slate-800 to-orange-500",
  Illustration: "bg-linear-to-br from-rose-200 via-amber-100 to-sky-200",
  Anime: "bg-linear-to-br from-pink-400 via-fuchsia-300 to-sky-400",
  "Digital Art": "bg-linear-to-br from-violet-600 via-blue-500 to-cyan-300",
  Fantasy: "bg-linear-to-br from-indigo-900 via-purple-600 to-amber-300",
  "Comic Book": "bg-linear-to-br from-yellow-300 via-red-500 to-blue-600",
  "Line Art": "bg-linear-to-br from-white via-stone-200 to-stone-500",
  "Pixel Art": "bg-linear-to-br from-lime-400 via-green-600 to-emerald-900",
  "3D Render": "bg-radial-[at_30%_30%] from-white via-stone-300 to-stone-600",
  "Analog Film": "bg-linear-to-br from-amber-200 via-orange-300 to-rose-400",
  "Neon Punk": "bg-linear-to-br from-fuchsia-600 via-purple-900 to-cyan-400",
  Isometric: "bg-conic from-sky-300 via-indigo-400 to-sky-300",
  Watercolor: "bg-linear-to-br from-sky-200 via-violet-200 to-rose-200",
};

export function swatchFor(style: string): string {
  return SWATCHES[style] ?? "bg-linear-to-br from-stone-300 to-stone-500";
}
