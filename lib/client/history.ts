// The studio's session history: the last 24 results, kept only in this browser's localStorage.
export const HISTORY_KEY = "darkroom.history.v1";
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
};

function isItem(v: unknown): v is HistoryItem {
  if (!v || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  return (
    ["id", "url", "prompt", "model", "style", "ratio", "engine", "createdAt"].every((k) => typeof o[k] === "string") &&
    typeof o.width === "number" &&
    typeof o.height === "number" &&
    typeof o.ai === "boolean"
  );
}

export function loadHistory(): HistoryItem[] {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(HISTORY_KEY) ?? "[]");
    return Array.isArray(parsed) ? parsed.filter(isItem).slice(0, HISTORY_MAX) : [];
  } catch {
    return [];
  }
}

/** Newest first; storage failures (private mode, full quota) only lose persistence, never the result. */
export function saveHistory(items: HistoryItem[]): HistoryItem[] {
  const kept = items.slice(0, HISTORY_MAX);
  try {
    window.localStorage.setItem(HISTORY_KEY, JSON.stringify(kept));
  } catch {
    /* storage unavailable */
  }
  return kept;
}
