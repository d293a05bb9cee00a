// One delivery attempt. The URL is checked again, its host resolved and every address judged before anything is
// sent, and the connection goes to exactly those addresses, so DNS rebinding cannot swap in a private one.
// Redirects are never followed; the whole attempt has one deadline, the connection a shorter one of its own; at most
// 64 KB of the answer is read.
import http from "node:http";
import https from "node:https";
import { InvalidWebhookUrl } from "@/lib/errors";
import {
  firstNonPublic,
  pinnedLookup,
  type ResolvedAddress,
  type Resolver,
  resolveAddresses,
  resolveWithSystem,
} from "@/lib/net/resolve";
import { DELIVERY_POLICY } from "./policy";
import { checkWebhookUrl, isAllowedHost, normalizeHost } from "./url";

/** Every address a host name resolves to. */
export type { ResolvedAddress, Resolver };

export const ATTEMPT_TIMEOUT_MS = DELIVERY_POLICY.attemptTimeoutMs;
export const MAX_RESPONSE_BYTES = 64 * 1024;

export type SendOptions = {
  url: string;
  body: string;
  /** The signed webhook-* headers. */
  headers: Record<string, string>;
  /** WEBHOOK_ALLOW_HOSTS: these hosts may use http and sit on any address. */
  allowHosts: readonly string[];
  /**
   * The deadline for the whole attempt: resolving, connecting, sending and reading the answer.
   * @default 10_000
   */
  timeoutMs?: number;
  /**
   * The deadline for the connection (TCP, and TLS for https) to be made, inside the attempt's.
   * @default 3_000
   */
  connectTimeoutMs?: number;
  /**
   * Bytes of the answer read before the connection is dropped.
   * @default 65_536
   */
  maxResponseBytes?: number;
  /** Defaults to the system resolver (getaddrinfo, as a plain connect would use). */
  resolve?: Resolver;
};

export type SendResult = {
  /** The receiver's HTTP status, or null when there was no answer. */
  status: number | null;
  /** Bytes of the answer body read (never more than maxResponseBytes). */
  bytesRead: number;
  /** Why nothing was sent: the URL or an address it resolves to is not allowed. Not worth retrying. */
  refused?: string;
  /** Why no answer came: a timeout, a network error or a failed resolution. Worth retrying. */
  error?: string;
  /**
   * Why it was refused or got no answer, fit to show the caller in the job record: never an address the host
   * resolved to (that would let a caller map internal names), only what kind it is.
   */
  reason?: string;
};

export function isDelivered(result: SendResult): boolean {
  return result.status !== null && result.status >= 200 && result.status < 300;
}

export async function sendWebhook(opts: SendOptions): Promise<SendResult> {
  let url: URL;
  try {
    url = checkWebhookUrl(opts.url, opts.allowHosts);
  } catch (err) {
    if (err instanceof InvalidWebhookUrl)
      return { status: null, bytesRead: 0, refused: err.message, reason: err.message };
    throw err;
  }
  const host = normalizeHost(url.hostname);
  const anyAddress = isAllowedHost(host, opts.allowHosts);
  const controller = new AbortController();
  const timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    let addresses: ResolvedAddress[];
    try {
      addresses = await resolveAddresses(host, opts.resolve ?? resolveWithSystem, controller.signal);
      if (addresses.length === 0) throw new Error("no address");
    } catch (err) {
      const reason = controller.signal.aborted ? `no answer within ${timeoutMs} ms` : `could not resolve ${host}`;
      return { status: null, bytesRead: 0, error: `could not resolve ${host}: ${messageOf(err)}`, reason };
    }
    const bad = anyAddress ? null : firstNonPublic(addresses);
    if (bad) {
      const reason = `${host} resolves to a ${bad.kind} address; nothing was sent`;
      return { status: null, bytesRead: 0, refused: `${host} is at ${bad.address}, a ${bad.kind} address`, reason };
    }
    return await post(url, host, addresses, { ...opts, timeoutMs }, controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

function post(
  url: URL,
  host: string,
  addresses: ResolvedAddress[],
  opts: SendOptions & { timeoutMs: number },
  signal: AbortSignal,
): Promise<SendResult> {
  const maxBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const connectMs = Math.min(opts.connectTimeoutMs ?? DELIVERY_POLICY.connectTimeoutMs, opts.timeoutMs);
  let connectTimedOut = false;
  const body = Buffer.from(opts.body, "utf8");
  return new Promise((resolve) => {
    let status: number | null = null;
    let bytesRead = 0;
    let settled = false;
    const settle = (error?: string, code?: string) => {
      if (settled) return;
      settled = true;
      const result: SendResult =
        !error || status !== null
          ? { status, bytesRead }
          : {
              status,
              bytesRead,
              error,
              reason: noAnswerReason(connectTimedOut, signal, code, connectMs, opts.timeoutMs),
            };
      // Whatever is left of the answer is not read: the connection goes, and the attempt ends (freeing its place
      // under the caps) once it has gone, so a host never holds more connections than the caps allow.
      const socket = req.socket;
      req.destroy();
      if (socket && !socket.closed) socket.once("close", () => resolve(result));
      else resolve(result);
    };
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: {
          ...opts.headers,
          "content-type": "application/json",
          "content-length": String(body.length),
          "user-agent": "Darkroom-Webhooks/1.1",
        },
        // A connection of its own, closed after the attempt: nothing pooled can outlive the address check.
        agent: false,
        lookup: pinnedLookup(addresses),
        signal,
      },
      (res) => {
        status = res.statusCode ?? null;
        res.on("data", (chunk: Buffer) => {
          bytesRead = Math.min(maxBytes, bytesRead + chunk.length);
          if (bytesRead >= maxBytes) settle();
        });
        res.on("end", () => settle());
        res.on("error", (err) => settle(messageOf(err)));
        res.on("close", () => settle());
      },
    );
    req.on("error", (err) =>
      settle(signal.aborted ? messageOf(signal.reason) : messageOf(err), (err as { code?: string }).code),
    );
    // A host that never accepts the connection fails at the connect deadline, not the attempt's.
    limitConnect(req, url, connectMs, () => {
      connectTimedOut = true;
    });
    req.end(body);
  });
}

/** Why an attempt got no answer, fit to show the caller: no connection in time, no answer in time, or the error. */
function noAnswerReason(
  connectTimedOut: boolean,
  signal: AbortSignal,
  code: string | undefined,
  connectMs: number,
  timeoutMs: number,
): string {
  if (connectTimedOut) return `no connection within ${connectMs} ms`;
  if (signal.aborted) return `no answer within ${timeoutMs} ms`;
  return `the connection failed${code ? ` (${code})` : ""}`;
}

/** Destroys `req` when its socket has not connected (TLS included) within `connectMs`; `timedOut` hears of it. */
function limitConnect(req: http.ClientRequest, url: URL, connectMs: number, timedOut: () => void): void {
  req.on("socket", (socket) => {
    const connected = url.protocol === "https:" ? "secureConnect" : "connect";
    const timer = setTimeout(() => {
      timedOut();
      req.destroy(new Error(`no connection within ${connectMs} ms`));
    }, connectMs);
    socket.once(connected, () => clearTimeout(timer));
    socket.once("close", () => clearTimeout(timer));
  });
}

function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === "string" ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
