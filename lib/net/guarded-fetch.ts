// A fetch for URLs that someone else handed us: it reaches only the hosts a policy allows, on addresses it has
// checked, connects to exactly those addresses (so DNS rebinding cannot swap them) and keeps credentials at home.
import http from "node:http";
import https from "node:https";
import { pipeline, Readable } from "node:stream";
import zlib from "node:zlib";
import {
  bareHostname,
  firstNonPublic,
  pinnedLookup,
  type ResolvedAddress,
  type Resolver,
  resolveAddresses,
  resolveWithSystem,
} from "@/lib/net/resolve";

export type FetchFn = typeof globalThis.fetch;

/** What a policy says about one URL. */
export type UrlVerdict =
  | { allowed: false; reason: string }
  | {
      allowed: true;
      /** The operator configured this origin, so it may sit on a private or loopback address. */
      anyAddress: boolean;
      /** Credential headers may go here. */
      credentials: boolean;
    };

export type UrlPolicy = (url: URL) => UrlVerdict;

/** Every address a host name resolves to. */
export type { ResolvedAddress, Resolver };

/** The URL was not fetched: nothing was sent and no connection was opened. */
export class RefusedUrlError extends Error {
  readonly name = "RefusedUrlError";
}

export type GuardOptions = {
  policy: UrlPolicy;
  /** Defaults to the system resolver (getaddrinfo, as a plain connect would use). */
  resolve?: Resolver;
};

/** Request headers that carry secrets; dropped wherever the policy withholds credentials. */
export const CREDENTIAL_HEADERS = ["authorization", "proxy-authorization", "cookie", "x-key", "x-api-key", "api-key"];

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

export function createGuardedFetch({ policy, resolve = resolveWithSystem }: GuardOptions): FetchFn {
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  return async (input, init) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    // data: URLs never touch the network; fetch itself decodes them.
    if (target.protocol === "data:") return globalThis.fetch(input, init);
    assertPlainHttp(target);
    const request = new Request(input, init);
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined) ?? undefined;
    const headers = new Headers(request.headers);
    let body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    let method = request.method;
    let url = target;
    let credentials = true;
    for (let redirects = 0; ; redirects++) {
      const verdict = checkUrl(url, policy);
      // Once withheld, credentials stay withheld for every later hop.
      credentials &&= verdict.credentials;
      const addresses = await resolveChecked(url, verdict.anyAddress, resolve);
      signal?.throwIfAborted();
      const res = await send({
        url,
        method,
        headers: credentials ? headers : withoutCredentials(headers),
        body,
        addresses,
        signal,
        agent: url.protocol === "https:" ? agents.https : agents.http,
      });
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (!REDIRECT_STATUSES.has(status) || !location) return toResponse(res, method);
      res.resume();
      if (redirects === MAX_REDIRECTS) throw new RefusedUrlError(`${url.origin}: more than ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, url);
      // A redirect is the server's word, not the operator's: credentials never follow it to another origin.
      if (next.origin !== url.origin) credentials = false;
      // As fetch does: 303 turns anything but HEAD into GET, and so do 301/302 for a POST.
      if ((status === 303 && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
        method = "GET";
        body = undefined;
        for (const name of ["content-type", "content-length", "content-encoding", "content-language"])
          headers.delete(name);
      }
      url = next;
    }
  };
}

function assertPlainHttp(url: URL) {
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new RefusedUrlError(`a ${url.protocol} URL`);
  if (url.username || url.password) throw new RefusedUrlError(`${url.origin}: URL carries user info`);
}

function checkUrl(url: URL, policy: UrlPolicy): Extract<UrlVerdict, { allowed: true }> {
  assertPlainHttp(url);
  const verdict = policy(url);
  if (!verdict.allowed) throw new RefusedUrlError(`${url.origin}: ${verdict.reason}`);
  return verdict;
}

/** Every address the host resolves to must be public unless the origin may be anywhere; refuses before connecting. */
async function resolveChecked(url: URL, anyAddress: boolean, resolve: Resolver): Promise<ResolvedAddress[]> {
  const host = bareHostname(url);
  const addresses = await resolveAddresses(host, resolve);
  if (addresses.length === 0) throw new RefusedUrlError(`${url.origin}: ${host} has no address`);
  const bad = anyAddress ? null : firstNonPublic(addresses);
  if (bad) throw new RefusedUrlError(`${url.origin}: ${host} is at ${bad.address}, a ${bad.kind} address`);
  return addresses;
}

function withoutCredentials(headers: Headers): Headers {
  const stripped = new Headers(headers);
  for (const name of CREDENTIAL_HEADERS) stripped.delete(name);
  return stripped;
}

type Outgoing = {
  url: URL;
  method: string;
  headers: Headers;
  body: Buffer | undefined;
  addresses: ResolvedAddress[];
  signal: AbortSignal | undefined;
  agent: http.Agent;
};

/** One HTTP exchange, connecting only to the checked addresses; redirects are the caller's business. */
function send({ url, method, headers, body, addresses, signal, agent }: Outgoing): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: bareHostname(url),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method,
        // A known length rather than chunked encoding, as fetch sends it.
        headers: { ...Object.fromEntries(headers), ...(body ? { "content-length": String(body.length) } : {}) },
        agent,
        lookup: pinnedLookup(addresses),
        signal,
      },
      resolve,
    );
    req.on("error", (err) => {
      // Shaped like fetch's failures, so the AI SDK reports them as connection errors.
      reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: err }));
    });
    req.end(body);
  });
}

function toResponse(res: http.IncomingMessage, method: string): Response {
  const status = res.statusCode ?? 0;
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
  if (status < 200 || status > 599) {
    res.destroy();
    throw new TypeError("fetch failed", { cause: new Error(`unexpected HTTP status ${status}`) });
  }
  if (method === "HEAD" || NULL_BODY_STATUSES.has(status)) {
    res.resume();
    return new Response(null, { status, statusText: res.statusMessage, headers });
  }
  const body = Readable.toWeb(decoded(res)) as unknown as ReadableStream<Uint8Array>;
  return new Response(body, { status, statusText: res.statusMessage, headers });
}

/** Undoes a content-encoding the server applied (fetch does the same); unknown encodings pass through as sent. */
function decoded(res: http.IncomingMessage): Readable {
  const encoding = res.headers["content-encoding"]?.trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip()
      : encoding === "deflate"
        ? zlib.createInflate()
        : encoding === "br"
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return res;
  return pipeline(res, decoder, () => undefined);
}
