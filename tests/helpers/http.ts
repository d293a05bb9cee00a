// An HTTP client for API tests that can pick its loopback source address (127.0.0.x), as distinct clients.
import http from "node:http";

export type Reply = {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the fields of whichever body came back and assert on them; a wrong shape fails there.
  json: any;
};

export type CallOptions = {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Source address, e.g. "127.0.0.7". */
  from?: string;
  timeoutMs?: number;
  /** A keep-alive agent, so consecutive calls share one connection; by default each call has its own. */
  agent?: http.Agent;
};

export function call(base: string, path: string, opts: CallOptions = {}): Promise<Reply> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      url,
      {
        method: opts.method ?? "GET",
        headers: opts.headers,
        localAddress: opts.from,
        agent: opts.agent ?? false,
        timeout: opts.timeoutMs ?? 60_000,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          const text = body.toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`timeout calling ${path}`)));
    // A server may answer before it has read the whole body (a 429 or 400 on a large upload) and close the
    // connection: writing the rest then fails with EPIPE or ECONNRESET. The answer stands; the response's own
    // errors still reject.
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** Headers the app's own pages send: the Free plan. */
export const BROWSER = { "X-Requested-With": "XMLHttpRequest" };
export const JSON_BROWSER = { ...BROWSER, "Content-Type": "application/json" };

export function generate(base: string, body: unknown, opts: CallOptions = {}): Promise<Reply> {
  return call(base, "/api/generate", {
    method: "POST",
    ...opts,
    headers: { ...JSON_BROWSER, ...opts.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Serialises a multipart form with the platform's own FormData encoder. */
export async function multipart(fields: Record<string, string | { data: Buffer; type: string; name?: string }>) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === "string") form.append(key, value);
    else form.append(key, new Blob([new Uint8Array(value.data)], { type: value.type }), value.name ?? "upload");
  }
  const req = new Request("http://localhost/", { method: "POST", body: form });
  return { body: Buffer.from(await req.arrayBuffer()), contentType: req.headers.get("content-type")! };
}

export async function enhance(
  base: string,
  fields: Parameters<typeof multipart>[0],
  opts: CallOptions = {},
): Promise<Reply> {
  const { body, contentType } = await multipart(fields);
  return call(base, "/api/enhance", {
    method: "POST",
    ...opts,
    headers: { ...BROWSER, "Content-Type": contentType, ...opts.headers },
    body,
  });
}

/**
 * Waits for the next epoch-aligned minute (when the per-minute guards start afresh) unless `needMs` is left in this
 * one, so a test that counts a guard's calls never straddles two windows.
 */
export async function awayFromMinuteEdge(needMs: number) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
}
