// Browser calls to the public API: always as the app's own pages (Free plan), with errors and quota headers parsed once.
export type Quota = { limit: number; remaining: number; resetAtMs: number };

export type ClientError = {
  /** A contract error code, or "network" when no answer came back. */
  code: string;
  message: string;
  status: number;
  requestId?: string;
  retryAfterSec?: number;
};

export type ApiResult<T> =
  | { ok: true; data: T; quota: Quota | null; status: number }
  | { ok: false; error: ClientError; quota: Quota | null };

export const BROWSER_HEADERS = { "X-Requested-With": "XMLHttpRequest" };

function readQuota(headers: Headers): Quota | null {
  const limit = Number(headers.get("X-RateLimit-Limit"));
  const remaining = Number(headers.get("X-RateLimit-Remaining"));
  const reset = Number(headers.get("X-RateLimit-Reset"));
  if (![limit, remaining, reset].every(Number.isFinite) || !headers.has("X-RateLimit-Limit")) return null;
  return { limit, remaining, resetAtMs: reset * 1000 };
}

type ErrorShape = { error?: { code?: unknown; message?: unknown; request_id?: unknown } };

export function readError(status: number, body: unknown, headers: Headers): ClientError {
  const err = (body as ErrorShape | null)?.error;
  const retry = Number(headers.get("Retry-After"));
  return {
    code: typeof err?.code === "string" ? err.code : status >= 500 ? "server_error" : "invalid_request",
    message: typeof err?.message === "string" ? err.message : `The server answered ${status}.`,
    status,
    requestId: typeof err?.request_id === "string" ? err.request_id : (headers.get("X-Request-Id") ?? undefined),
    retryAfterSec: Number.isFinite(retry) && retry > 0 ? retry : undefined,
  };
}

export async function callApi<T>(path: string, init: RequestInit = {}): Promise<ApiResult<T>> {
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers: { ...BROWSER_HEADERS, ...init.headers }, cache: "no-store" });
  } catch {
    return {
      ok: false,
      quota: null,
      error: {
        code: "network",
        status: 0,
        message: "Could not reach the server. Check your connection and try again.",
      },
    };
  }
  const quota = readQuota(res.headers);
  const body: unknown = await res.json().catch(() => null);
  if (res.ok && body && (body as { success?: unknown }).success !== false)
    return { ok: true, data: body as T, quota, status: res.status };
  return { ok: false, error: readError(res.status, body, res.headers), quota };
}

export function postJson<T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<ApiResult<T>> {
  return callApi<T>(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}
