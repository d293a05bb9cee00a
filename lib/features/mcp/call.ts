// An image tool's work is a request to /api/generate or /api/enhance made for the MCP caller: the same handler,
// so the same order of checks (shape, filter, quota, body), the same units, limits, library and usage history.
// The request carries the caller's own credential and peer headers, so it is counted on the caller's buckets.
import { PEER_IP_HEADER, PEER_PROTO_HEADER, PEER_TOKEN_HEADER } from "@/lib/net/peer";

/** The /api handlers a tool calls: passed in by the /mcp route, which may import them. */
export type ApiHandlers = {
  generate: (req: Request) => Promise<Response>;
  enhance: (req: Request) => Promise<Response>;
};

/** What an /api answer said: its status and JSON body. */
export type ApiAnswer = { status: number; body: Record<string, unknown> };

/** The headers of the MCP request that say who is calling and from where; nothing else carries over. */
const CARRIED = ["authorization", "host", PEER_IP_HEADER, PEER_PROTO_HEADER, PEER_TOKEN_HEADER];

export type CallOrigin = { req: Request; signal: AbortSignal };

function requestTo(from: CallOrigin, path: string, body: string | FormData, opts: { async: boolean }): Request {
  const headers = new Headers();
  for (const name of CARRIED) {
    const value = from.req.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (typeof body === "string") headers.set("content-type", "application/json");
  if (opts.async) headers.set("prefer", "respond-async");
  return new Request(new URL(path, from.req.url), { method: "POST", headers, body, signal: from.signal });
}

/**
 * A multipart body as a Request would send it, with its Content-Length known, so /api's upload gate refuses an
 * over-large upload by its declared size before looking at the quota.
 */
async function sized(request: Request): Promise<Request> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  const headers = new Headers(request.headers);
  headers.set("content-length", String(bytes.byteLength));
  return new Request(request.url, { method: "POST", headers, body: bytes, signal: request.signal });
}

async function answerOf(res: Response): Promise<ApiAnswer> {
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { success: false, error: { code: "server_error", message: "The answer was not JSON." } };
  }
  return { status: res.status, body };
}

export async function callApi(
  handler: (req: Request) => Promise<Response>,
  from: CallOrigin,
  path: string,
  body: Record<string, unknown> | FormData,
  opts: { async: boolean },
): Promise<ApiAnswer> {
  const request =
    body instanceof FormData
      ? await sized(requestTo(from, path, body, opts))
      : requestTo(from, path, JSON.stringify(body), opts);
  return answerOf(await handler(request));
}
