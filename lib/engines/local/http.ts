// HTTP to operator-run GPU servers: their base URLs are trusted configuration (often private or loopback), so this
// uses the platform fetch directly, bounding only time and size, and turns failures into typed ones.

import type { FailureKind } from "@/lib/engines/failures";
import { ProviderError } from "@/lib/engines/failures";

/** Generous for a PNG or a base64 JSON answer at ≤ 2 MP, small enough that a broken server cannot flood memory. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Bookkeeping calls (queue, history, progress, view) get this long; generation itself has the route's deadline. */
export const CALL_TIMEOUT_MS = 15_000;

/** A GPU server's failure; `refused` takes the server out of its pool at once. */
export class LocalServerError extends ProviderError {
  constructor(
    kind: FailureKind,
    message: string,
    readonly details: { status?: number; refused?: boolean } = {},
  ) {
    super(kind, message, details.status);
  }
}

export type HttpReply = { status: number; headers: Headers; body: Buffer };

export type HttpCall = {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  json?: unknown;
  /** A multipart body (ComfyUI's /upload/image); fetch sets its Content-Type with the boundary. */
  form?: FormData;
  signal: AbortSignal;
  /** Extra bound for calls that are not the generation itself. */
  timeoutMs?: number;
  maxBytes?: number;
};

export async function httpCall(url: string, call: HttpCall): Promise<HttpReply> {
  const signal = call.timeoutMs ? AbortSignal.any([call.signal, AbortSignal.timeout(call.timeoutMs)]) : call.signal;
  let res: Response;
  try {
    res = await fetch(url, {
      method: call.method ?? "GET",
      headers: { ...(call.json !== undefined && { "Content-Type": "application/json" }), ...call.headers },
      body: call.form ?? (call.json === undefined ? undefined : JSON.stringify(call.json)),
      signal,
      redirect: "manual",
    });
  } catch (err) {
    if (call.signal.aborted) throw err;
    throw networkError(err, url);
  }
  try {
    return { status: res.status, headers: res.headers, body: await readLimited(res, call.maxBytes ?? MAX_BODY_BYTES) };
  } catch (err) {
    if (call.signal.aborted || err instanceof LocalServerError) throw err;
    throw networkError(err, url);
  }
}

/** Parses a JSON answer; anything else from a 2xx is a malformed answer. */
export function jsonOf(reply: HttpReply, what: string): unknown {
  try {
    return JSON.parse(reply.body.toString("utf8"));
  } catch {
    throw new LocalServerError("malformed", `${what}: the answer is not JSON`, { status: reply.status });
  }
}

/** True when the error (or any cause under it) is a refused TCP connection. */
export function isRefused(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof LocalServerError && e.details.refused) return true;
    if ((e as { code?: unknown }).code === "ECONNREFUSED") return true;
  }
  return false;
}

export function networkError(err: unknown, url: string): LocalServerError {
  const where = new URL(url).host;
  if (isRefused(err)) return new LocalServerError("network", `${where} refused the connection`, { refused: true });
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
  return new LocalServerError("network", `${where}: ${reason}`);
}

async function readLimited(res: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new LocalServerError("malformed", `answer of ${declared} bytes exceeds ${maxBytes}`, { status: res.status });
  }
  if (!res.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new LocalServerError("malformed", `answer exceeds ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Names a log line shows from a server's list before it says how many more: a big server lists hundreds of files. */
export const LISTED_NAMES_SHOWN = 12;

/** "a, b, c" for what a server lists, capped at LISTED_NAMES_SHOWN ("…, and 40 more"), or "none". */
export function listedNames(names: readonly string[]): string {
  if (names.length === 0) return "none";
  const shown = names.slice(0, LISTED_NAMES_SHOWN).join(", ");
  const more = names.length - LISTED_NAMES_SHOWN;
  return more > 0 ? `${shown}, and ${more} more` : shown;
}
