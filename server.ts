// The production server behind `npm start`: builds when needed, then serves Next through a plain
// node:http server that records each socket's address where clients cannot forge it.
import crypto from "node:crypto";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import next from "next";
import { serveCdnRequest } from "./app/cdn/serve-node";
import { licenceLines } from "./lib/catalog/enhance-routes";
import { ConfigError, parseConfig } from "./lib/config";
import { ShuttingDown } from "./lib/errors";
import { API_ROUTES } from "./lib/http/api-routes";
import { REFUSED_BODY_LINGER_MS } from "./lib/http/discard-body";
import { startImageSweeps } from "./lib/images/scheduler";
import { sweepImages } from "./lib/images/sweep";
import { describeError, log } from "./lib/log";
import { timeRequest } from "./lib/metrics/http";
import { loadRouteMatcher } from "./lib/metrics/routes";
import { parseTrustedProxies, resolveClientIp, resolveClientProto } from "./lib/net/client-ip";
import { PEER_IP_HEADER, PEER_PROTO_HEADER, PEER_TOKEN_ENV, PEER_TOKEN_HEADER } from "./lib/net/peer";
import { ensureBuild, ensureNextTsconfig } from "./lib/ops/build";
import { getServices } from "./lib/services";
import { checkTierRedis } from "./lib/tier/redis";

async function main() {
  const dev = process.argv.includes("--dev");
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  const root = path.resolve(__dirname);
  // Bundled route code cannot use __dirname; the enhance worker pool finds its files from here.
  process.env.DARKROOM_ROOT ??= root;

  const config = parseConfig(process.env);
  await checkWorkTier(config);
  logFaceModelLicences(config);
  const proxies = parseTrustedProxies(config.trustedProxies);
  const host = config.listen.host;
  warnIgnoredHostname(config.listen.ignoredHostname);
  ensureNextTsconfig(root);
  if (!dev) process.env.DARKROOM_DIST_DIR = ensureBuild(root);

  // Route handlers run in this process and accept the peer headers only with this token.
  const token = crypto.randomBytes(32).toString("hex");
  process.env[PEER_TOKEN_ENV] = token;

  const app = next({ dev, dir: root, hostname: host ?? "localhost", port: config.port });
  await app.prepare();
  const handle = app.getRequestHandler();

  // The process's services, shared with the route handlers (one store connection, one storage). Stored images are
  // served here, before Next, which would drop their Content-Length. Creating the storage now also clears what a
  // crash left half-written.
  const svc = getServices();
  const storage = svc.storage;
  // Local and S3 images are served at /cdn (S3 streamed from the bucket: see docs/storage.md); Blob's from its CDN.
  const cdn = storage.kind === "vercel-blob" ? null : storage;
  // A storage that cannot be used (wrong secret, no bucket) says so at start; /api/ready keeps saying it.
  storage.check().catch((err: unknown) => {
    console.error(`darkroom: the image storage (${storage.kind}) cannot be used: ${(err as Error).message}`);
  });

  const routeOf = loadRouteMatcher(path.resolve(root, process.env.DARKROOM_DIST_DIR ?? ".next"));
  const drain = svc.drain;
  /** Set once the store starts closing: from then on no request reaches a route, withApi's included. */
  let closing = false;
  const server = http.createServer((req, res) => {
    timeRequest(req, res, routeOf);
    // While draining, each answer closes its connection, so keep-alive clients reconnect to another instance.
    if (drain.draining) res.setHeader("Connection", "close");
    if (cdn && serveCdnRequest(cdn, req, res)) return;
    // A request that arrives while draining (on a connection already open) is turned away before any work: here, or
    // by withApi on its routes, whose answers carry the rate-limit headers of the caller's bucket.
    const route = routeOf((req.url ?? "/").split("?")[0]);
    if (drain.draining && (closing || !API_ROUTES.has(route))) {
      return sendError(res, "busy", new ShuttingDown(), req.url);
    }
    // A request is in flight until its answer is sent, a streamed one (/v1 with `stream`) until its last event. Only
    // a job's event stream, which stays open by design while another instance may run the job, is not waited for.
    if (route !== JOB_EVENTS_ROUTE) drain.track(new Promise((done) => res.once("close", done)));
    signPeer(req, proxies, token);
    lingerAfterEarlyAnswer(req, res);
    handOff(handle, req, res);
  });
  // Uploads are streamed and capped by the routes; these only bound idle and header time.
  server.headersTimeout = 30_000;
  server.requestTimeout = 300_000;
  server.keepAliveTimeout = 5_000;

  drainOnSignals(svc, config.shutdownGraceMs, () => {
    closing = true;
  });

  listen(server, config, dev, () =>
    // Retention: a sweep now and then every hour.
    startImageSweeps(() =>
      sweepImages({
        images: svc.images,
        storage,
        retentionDays: config.images.retentionDays,
        sweepStats: svc.sweepStats,
      }),
    ),
  );
}

/** Next answers the request; a crash in its handler is a 500, or a dropped connection once the answer began. */
function handOff(
  handle: ReturnType<ReturnType<typeof next>["getRequestHandler"]>,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): void {
  handle(req, res).catch((err: unknown) => {
    log.error("request handler crashed", describeError(err));
    if (!res.headersSent) {
      sendError(res, "server_error", new Error("Unexpected server error."), req.url);
    } else {
      res.destroy();
    }
  });
}

/**
 * An answer sent before its request's body ended (a refusal: too large, over quota, a deadline) on a connection that
 * closes after it. Node would close the socket as soon as the answer is written; the client, still sending, would
 * then get a reset, which can destroy the answer before the client reads it. Instead the socket sends its FIN and goes
 * on reading (the routes drop what arrives) for a short while: the "lingering close" of RFC 9112, section 9.6.
 */
function lingerAfterEarlyAnswer(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.once("prefinish", () => {
    if (req.complete) return;
    const socket = req.socket;
    socket.destroySoon = () => {
      socket.end();
      setTimeout(() => socket.destroy(), REFUSED_BODY_LINGER_MS).unref();
    };
  });
}

/** A start line for each enhance mode whose routes use a face model with licence terms (contract 1.3). */
function logFaceModelLicences(config: ReturnType<typeof parseConfig>): void {
  for (const line of licenceLines(config.enhance.chains, config.enhance.faceRestorer)) console.log(`darkroom: ${line}`);
}

/** With WORK_TIER=bullmq, Redis must answer and keep every key (noeviction), or the server does not start. */
async function checkWorkTier(config: ReturnType<typeof parseConfig>): Promise<void> {
  if (config.tier.kind !== "bullmq") return;
  try {
    await checkTierRedis(config.tier.redisUrl);
  } catch (err) {
    console.error(`darkroom: WORK_TIER=bullmq: ${(err as Error).message}`);
    process.exit(1);
  }
  console.log("darkroom: work tier: BullMQ on REDIS_URL (maxmemory-policy noeviction); jobs run on `npm run worker`");
}

function warnIgnoredHostname(hostname: string | undefined): void {
  if (!hostname) return;
  console.warn(
    `darkroom: HOSTNAME=${hostname} is not an IP address or localhost (Docker sets it to the container id), so it is not used as the listen address; set LISTEN_HOST to choose one.`,
  );
}

/** Signs the client's address and protocol for the route handlers, over whatever the request claimed. */
function signPeer(req: http.IncomingMessage, proxies: ReturnType<typeof parseTrustedProxies>, token: string): void {
  delete req.headers[PEER_IP_HEADER];
  delete req.headers[PEER_TOKEN_HEADER];
  delete req.headers[PEER_PROTO_HEADER];
  // Signed even when the address is unusable, so routes can tell "unknown client" from "not behind this server".
  req.headers[PEER_IP_HEADER] =
    resolveClientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"], proxies) ?? "";
  req.headers[PEER_PROTO_HEADER] = resolveClientProto(
    "encrypted" in req.socket && req.socket.encrypted === true,
    req.socket.remoteAddress,
    req.headers["x-forwarded-proto"],
    proxies,
  );
  req.headers[PEER_TOKEN_HEADER] = token;
}

/** Drains on SIGTERM and SIGINT, then closes the store (`onClosing` first) and exits. */
function drainOnSignals(svc: ReturnType<typeof getServices>, graceMs: number, onClosing: () => void): void {
  // SIGTERM drains: from then on every new request, on a new connection or one already open, is answered 503 busy
  // with Retry-After and Connection: close, and starts no work (the socket keeps listening, so clients and load
  // balancers get that answer rather than a refused connection). The requests and this instance's jobs in flight
  // finish within their own deadlines, up to SHUTDOWN_GRACE_MS. What still runs then is stopped through its own
  // error path (a 503 for a request, a failed job; units given back, Idempotency-Keys released), the store closes,
  // and the process exits 0. Repeated signals (npm and tsx relay the one a process group gets) change nothing.
  const shutdown = async (signal: NodeJS.Signals) => {
    if (svc.drain.draining) return;
    svc.drain.begin();
    console.log(`darkroom: ${signal}: draining ${svc.drain.inFlight()} in-flight request(s) and job(s)…`);
    if (!(await svc.drain.whenIdle(graceMs))) {
      console.log(`darkroom: ${svc.drain.inFlight()} still in flight after ${graceMs} ms; stopping them (refunded)`);
      svc.drain.stopRemaining();
      await svc.drain.whenIdle(STOP_WAIT_MS);
    }
    // The store's background work stops (and writes what it holds) before the process goes.
    onClosing();
    await svc.tier.close().catch((err: unknown) => log.error("closing the work queues failed", describeError(err)));
    await svc.backend.close().catch((err: unknown) => log.error("closing the store failed", describeError(err)));
    console.log(
      svc.drain.inFlight() === 0
        ? "darkroom: drained; exiting"
        : `darkroom: ${svc.drain.inFlight()} still in flight after being stopped; exiting`,
    );
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

/** Listens on the configured address and port, or exits 1 with why it cannot; `onReady` once it listens. */
function listen(server: http.Server, config: ReturnType<typeof parseConfig>, dev: boolean, onReady: () => void): void {
  const host = config.listen.host;
  const failToListen = (err: NodeJS.ErrnoException) => {
    console.error(
      `darkroom: cannot listen on ${host ?? "all interfaces"} port ${config.port}: ${err.code ?? err.message}`,
    );
    process.exit(1);
  };
  server.once("error", failToListen);
  server.listen(config.port, host, () => {
    server.off("error", failToListen);
    const addr = server.address();
    const port = typeof addr === "object" && addr ? addr.port : config.port;
    const shown = !host ? "localhost" : net.isIPv6(host) ? `[${host}]` : host;
    console.log(
      `darkroom: ready on http://${shown}:${port} (${dev ? "dev" : "production"}, data in ${config.dataDir})`,
    );
    onReady();
  });
}

/** The route whose answers the drain does not wait for: a job's event stream, open until the job ends. */
const JOB_EVENTS_ROUTE = "/api/jobs/[id]/events";

/** How long work stopped at the end of the grace has to answer and give its units back. */
const STOP_WAIT_MS = 5_000;

/**
 * The contract's error body, for answers given here before any route runs; under /v1, OpenAI's body (both are
 * server errors there, `type: "server_error"`).
 */
function sendError(
  res: http.ServerResponse,
  code: "busy" | "server_error",
  err: Error & { retryAfterS?: number },
  url = "",
) {
  const requestId = `req_${crypto.randomUUID().replaceAll("-", "")}`;
  res.statusCode = code === "busy" ? 503 : 500;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Request-Id", requestId);
  if (err.retryAfterS !== undefined) res.setHeader("Retry-After", String(err.retryAfterS));
  const body = /^\/v1(\/|$|\?)/.test(url)
    ? { error: { message: err.message, type: "server_error", param: null, code } }
    : { success: false, error: { code, message: err.message, request_id: requestId } };
  res.end(JSON.stringify(body));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error("darkroom: failed to start:", err instanceof Error ? err.message : err);
  process.exit(1);
});
