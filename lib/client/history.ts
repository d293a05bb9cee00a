// The pages' local histories: the last 24 results of the studio and of the enhance page, kept only in this
// browser's localStorage, each with its expiry and the delete token its answer carried.
export const HISTORY_KEY = "darkroom.history.v1";
export const ENHANCE_HISTORY_KEY = "darkroom.enhance-history.v1";
export const HISTORY_MAX = 24;

export type HistoryItem = {
  id: string;
  url: string;
  prompt: string;
  model: string;
  style: string;
  ratio: string;
  width: number;
  height: number;
  engine: string;
  ai: boolean;
  createdAt: string;
  seed?: number;
  /** ISO 8601; null when kept forever; absent for items saved before images expired. */
  expiresAt?: string | null;
  /** Deletes the image (X-Delete-Token); absent for images listed with a Pro key, which the key deletes. */
  deleteToken?: string;
  /** Set when the image is an edit of an uploaded one: its strength, and whether a mask limited the change. */
  edit?: { strength: number; masked: boolean };
};

export type EnhanceHistoryItem = {
  id: string;
  url: string;
  originalSize: string;
  enhancedSize: string;
  strength: number;
  scale: number;
  model: string;
  engine: string;
  fileName: string;
  createdAt: string;
  expiresAt?: string | null;
  deleteToken?: string;
};

const strings = (o: Record<string, unknown>, keys: string[]) => keys.every((k) => typeof o[k] === "string");

/** Fields added later are optional, so histories saved before them still load. */
function hasOptionalFields(o: Record<string, unknown>): boolean {
  return (
    (o.expiresAt === undefined || o.expiresAt === null || typeof o.expiresAt === "string") &&
    (o.deleteToken === undefined || typeof o.deleteToken === "string") &&
    (o.seed === undefined || typeof o.seed === "number")
  );
}

function isEditFacts(v: unknown): boolean {
  const o = v as Record<string, unknown> | null;
  return typeof o === "object" && o !== null && typeof o.strength === "number" && typeof o.masked === "boolean";
}

function isItem(v: unknown): v is HistoryItem {
  if (!v || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  return (
    strings(o, ["id", "url", "prompt", "model", "style", "ratio", "engine", "createdAt"]) &&
    typeof o.width === "number" &&
    typeof o.height === "number" &&
    typeof o.ai === "boolean" &&
    hasOptionalFields(o) &&
    (o.edit === undefined || isEditFacts(o.edit))
  );
}

function isEnhanceItem(v: unknown): v is EnhanceHistoryItem {
  if (!v || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  return (
    strings(o, ["id", "url", "originalSize", "enhancedSize", "model", "engine", "fileName", "createdAt"]) &&
    typeof o.strength === "number" &&
    typeof o.scale === "number" &&
    hasOptionalFields(o)
  );
}

/** True once an image is past its expiry: the server has removed it (or will at its next sweep). */
export function isExpired(item: { expiresAt?: string | null }, now = Date.now()): boolean {
  return typeof item.expiresAt === "string" && Date.parse(item.expiresAt) <= now;
}

function load<T extends { expiresAt?: string | null }>(key: string, valid: (v: unknown) => v is T): T[] {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(key) ?? "[]");
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter(valid)
      .filter((item) => !isExpired(item))
      .slice(0, HISTORY_MAX);
  } catch {
    return [];
  }
}

/** Newest first; storage failures (private mode, full quota) only lose persistence, never the result. */
function save<T>(key: string, items: T[]): T[] {
  const kept = items.slice(0, HISTORY_MAX);
  try {
    window.localStorage.setItem(key, JSON.stringify(kept));
  } catch {
    /* storage unavailable */
  }
  return kept;
}

/** The studio's history, without images that have expired since. */
export const loadHistory = (): HistoryItem[] => load(HISTORY_KEY, isItem);
export const saveHistory = (items: HistoryItem[]): HistoryItem[] => save(HISTORY_KEY, items);

/** The enhance page's history. */
export const loadEnhanceHistory = (): EnhanceHistoryItem[] => load(ENHANCE_HISTORY_KEY, isEnhanceItem);
export const saveEnhanceHistory = (items: EnhanceHistoryItem[]): EnhanceHistoryItem[] =>
  save(ENHANCE_HISTORY_KEY, items);
