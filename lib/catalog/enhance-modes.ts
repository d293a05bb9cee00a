// The enhance modes: each value of /api/enhance's `model` field and the packaged network behind it. The request
// schema, the status record, OpenAPI, the messages, the enhance page, the docs and the model converter derive
// from ENHANCE_MODES, so adding a mode is one entry here. Zod-free, and worker code imports it by relative path.

/** A mode's in-process network: the default route of fast and quality (`onnx:<package>`). */
export type InProcessNetwork = {
  /** The network, in words. */
  network: string;
  /** `@upscalerjs/<package>`: its layers models (2× and 4×) are converted to ONNX on first use. */
  package: string;
  /** Compute per pixel relative to the cheapest mode, rounded; shown so callers can weigh speed against detail. */
  relativeCompute: number;
};

export type EnhanceModeRow = {
  /** The public value of the `model` field. */
  name: string;
  /** The picker's label. */
  label: string;
  /** Whether the mode invents detail (contract 1.3: creative). */
  generative: boolean;
  /**
   * What `strength` means: "blend" mixes the engine's output over the lanczos3 base after the engine, in process or
   * remote (the faithful modes); "engine" passes it to the engine (the restorer's weight, the invention's).
   */
  strength: "blend" | "engine";
  /** The network its default route runs in process, or null: then only ENHANCE_<MODE> routes serve it. */
  inProcess: InProcessNetwork | null;
  /** What the mode does, in a sentence for the enhance page: honest about what is invented. */
  summary: string;
  /** What the two ends of the strength slider mean in this mode (the contract's meaning of `strength`). */
  strengthEnds: readonly [string, string];
};

/**
 * Every mode of the `model` field (contract 1.3), in the order pages and /api/status list them: the one table. `fast`
 * and `quality` run their in-process networks unless ENHANCE_FAST / ENHANCE_QUALITY say otherwise; `faces` and
 * `creative` are served only by the routes an operator configures, so without them they are listed as unavailable
 * and refused.
 */
export const ENHANCE_MODES = [
  {
    name: "fast",
    label: "Fast",
    generative: false,
    strength: "blend",
    inProcess: { network: "ESRGAN slim", package: "esrgan-slim", relativeCompute: 1 },
    summary: "Faithful super-resolution: sharpens the detail the photo holds and adds none.",
    strengthEnds: ["0 · faithful resize", "1 · strongest"],
  },
  {
    name: "quality",
    label: "Quality",
    generative: false,
    strength: "blend",
    inProcess: { network: "ESRGAN medium", package: "esrgan-medium", relativeCompute: 3 },
    summary: "Faithful super-resolution with a larger network: finer edges and textures, adds no detail.",
    strengthEnds: ["0 · faithful resize", "1 · strongest"],
  },
  {
    name: "faces",
    label: "Faces",
    generative: false,
    strength: "engine",
    inProcess: null,
    summary:
      "Face restoration: a face model finds each face and redraws blurred or damaged eyes, skin and teeth, then the whole photo is upscaled. Restored faces are cleaner but may look slightly unlike the person.",
    strengthEnds: ["0 · faces as they were", "1 · fully restored"],
  },
  {
    name: "creative",
    label: "Creative",
    generative: true,
    strength: "engine",
    inProcess: null,
    summary:
      "Generative upscaling: an AI model invents detail the photo does not hold (texture, fine lines, lettering). It looks sharper, but the new detail was never there, so don't use it as a record.",
    strengthEnds: ["0 · invents little", "1 · invents the most"],
  },
] as const satisfies readonly EnhanceModeRow[];

/** Every mode an enhance route may serve; the route interface (lib/enhance/routes/types.ts) names it. */
export type EnhanceModeName = (typeof ENHANCE_MODES)[number]["name"];
export const ALL_ENHANCE_MODE_NAMES = ENHANCE_MODES.map((m) => m.name) as [EnhanceModeName, ...EnhanceModeName[]];

type InProcessRow = Extract<(typeof ENHANCE_MODES)[number], { inProcess: InProcessNetwork }>;
/** A mode with an in-process network, flattened: what the converter, the engine and the picker's hints read. */
export type EnhanceModeEntry = { name: InProcessRow["name"]; label: string } & InProcessRow["inProcess"];
/** The modes with an in-process network (fast and quality), derived from the table above. */
export const IN_PROCESS_MODES: readonly EnhanceModeEntry[] = ENHANCE_MODES.filter(
  (m): m is InProcessRow => m.inProcess !== null,
).map((m) => ({ name: m.name, label: m.label, ...m.inProcess }));

/** A mode with an in-process network. */
export type EnhanceMode = EnhanceModeEntry["name"];
export type EnhancePackage = EnhanceModeEntry["package"];

export const ENHANCE_MODE_NAMES = IN_PROCESS_MODES.map((m) => m.name) as [EnhanceMode, ...EnhanceMode[]];
export const DEFAULT_ENHANCE_MODE: EnhanceMode = "fast";
/** Each packaged network once, in table order (two modes may share one). */
export const ENHANCE_PACKAGES: readonly EnhancePackage[] = [...new Set(IN_PROCESS_MODES.map((m) => m.package))];

const BY_NAME = Object.fromEntries(IN_PROCESS_MODES.map((m) => [m.name, m])) as Record<EnhanceMode, EnhanceModeEntry>;

export function findEnhanceMode(name: EnhanceMode): EnhanceModeEntry {
  return BY_NAME[name];
}

/** The npm package a mode's network comes from. */
export function toNpmName(pkg: EnhancePackage): string {
  return `@upscalerjs/${pkg}`;
}

/** "fast (default, ESRGAN slim) or quality (ESRGAN medium, about 3× the compute)", for schemas and docs. */
export function describeEnhanceModes(): string {
  return joinWithOr(
    IN_PROCESS_MODES.map((m) => {
      const notes: string[] = [m.network];
      if (m.name === DEFAULT_ENHANCE_MODE) notes.unshift("default");
      if (m.relativeCompute > 1) notes.push(`about ${m.relativeCompute}× the compute`);
      return `${m.name} (${notes.join(", ")})`;
    }),
  );
}

/** "a or b", "a, b or c". */
export function joinWithOr(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

/** The 400 message for a mode this table knows but no route serves here: it names the modes available. */
export function unconfiguredModeMessage(name: string, served: readonly string[]): string | undefined {
  const row = ENHANCE_MODES.find((m) => m.name === name);
  if (!row || served.includes(row.name)) return undefined;
  return `The ${row.name} mode has no engine on this server (ENHANCE_${row.name.toUpperCase()} is not set); the modes available are ${joinWithOr(served)}.`;
}
