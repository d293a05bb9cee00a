// What every Redis repository shares: a failed command is the store being unavailable, replies read as pairs, the
// markers that make a retried script idempotent, and the creation order of listed records.
import crypto from "node:crypto";
import { StoreUnavailable } from "@/lib/errors";

/** Where a script remembers its answer to one call, so a retried request doesn't apply the call twice. */
export const markerKey = () => `darkroom:op:${crypto.randomUUID()}`;

export const MARKER_TTL_MS = 60_000;

/** Runs one store command: any failure is the store being unavailable, named `upstash: <what> failed`. */
export async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StoreUnavailable) throw err;
    throw new StoreUnavailable(`upstash: ${what} failed: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}

/** HGETALL replies come back as a flat [field, value, …] array with deserialization off. */
export function pairs(raw: unknown): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) out.push([String(raw[i]), String(raw[i + 1])]);
  } else if (raw && typeof raw === "object") {
    for (const [k, v] of Object.entries(raw)) out.push([k, typeof v === "string" ? v : JSON.stringify(v)]);
  }
  return out;
}

export const byCreated =
  <T extends { createdAt: string }>(tie: (x: T) => string) =>
  (a: T, b: T) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : tie(a) < tie(b) ? -1 : tie(a) > tie(b) ? 1 : 0;

/** `call` for one repository: its commands are named under `scope` ("jobs ", "images.", "webhooks: "). */
export const callIn =
  (scope: string) =>
  <T>(what: string, fn: () => Promise<T>): Promise<T> =>
    call(`${scope}${what}`, fn);
