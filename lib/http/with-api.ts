// The thin wrapper around every API route: what is the same for all of them — the request id, who is calling,
// the rate-limit headers on every answer, and turning anything thrown into the contract's error body.
// Each route spells out its own steps (parse, filter, take quota, work, respond) in order.
import crypto from "node:crypto";
import { type OpenedCall, openAccount, settleFailure } from "@/lib/account/account";
import type { Caller } from "@/lib/auth/types";
import { type Credential, freeCallerOf, identifyCaller, readClientIp } from "@/lib/http/identify";
import type { Idempotency } from "@/lib/idempotency/idempotency";
import { chargesFor, Quota } from "@/lib/quota/ledger";
import type { Endpoint } from "@/lib/quota/policies";
import { DAY_MS, emptyUsage, secondsUntil, type Usage } from "@/lib/quota/types";
import { ApiError, toApiError } from "@/lib/schemas/api-error";
import type { ErrorBody } from "@/lib/schemas/errors";
import { getServices, type Services } from "@/lib/services";
import { enforceCallGuard } from "./call-guard";
import { rateLimitHeaders } from "./headers";
import { keepAlive } from "./keep-alive";

export type RouteContext = {
  req: Request;
  requestId: string;
  caller: Caller;
  svc: Services;
  /** This request's quota: take before costly work; the wrapper settles it and reports it in the headers. */
  quota: Quota;
  /** Aborts when the client disconnects, or when a shutdown's grace is over (the unit then goes back). */
  readonly signal: AbortSignal;
  /** The app's own origin, for URLs when no CDN base is set. */
  readonly origin: string;
  /** This request's Idempotency-Key, if it sent one: the wrapper keeps its answer, or frees the key on an error. */
  idempotency: Idempotency;
};

/**
 * An answer written while its work runs (an event stream). The wrapper sends its headers at once and settles the
 * request when `settled` does: with the text to keep for Idempotency-Key replays once the work succeeded, or with
 * the error that ended it (the quota gives the units back as for any failed request, and the key is freed).
 */
export class StreamedAnswer {
  constructor(
    readonly response: Response,
    readonly settled: Promise<{ replay: string } | { error: unknown }>,
  ) {}
}

/** A 200 JSON body (an object, or JSON text already serialised), a whole Response for other statuses, or a stream. */
export type RouteResult = Record<string, unknown> | string | Response | StreamedAnswer;

/**
 * How a family of routes writes the envelope of its answers: the contract's (the default), or another API's that
 * Darkroom also speaks (OpenAI's for /v1). The work, quota and headers of the contract stay the same.
 */
export type Dialect = {
  /** The error answer, with the contract's headers (see `respond`). */
  errorResponse: (err: ApiError, requestId: string, usage: Usage) => Response;
  /** Headers added to every answer beside the contract's. */
  headers: (usage: Usage) => Record<string, string>;
};

const CONTRACT_DIALECT: Dialect = { errorResponse, headers: () => ({}) };

/** A route's access policy, declared where the route is: the wrapper applies it before the handler runs. */
export type ApiPolicy = {
  /** The daily bucket the route takes from or reports on in X-RateLimit-*; "waitlist" counts signups per IP. */
  quota: Endpoint | "waitlist";
  /** A per-minute guard counted before the handler runs (429 past it), and what its message calls the route. */
  guard?: { bucket: "statusGuard" | "jobReadGuard"; what: string };
  /** Only a Pro key may call (401 otherwise); the value names the route in the message. */
  proOnly?: string;
  /**
   * The credentials the route accepts; "anyone" needs none and counts every caller as Free on its address.
   * @default ["key", "browser"]
   */
  accepts?: readonly (Credential | "anyone")[];
  /**
   * The envelope of the answers.
   * @default the contract's
   */
  dialect?: Dialect;
};

const POLICIES: Record<Endpoint | "waitlist", ApiPolicy> = {
  generate: { quota: "generate" },
  enhance: { quota: "enhance" },
  status: { quota: "status" },
  waitlist: { quota: "waitlist", accepts: ["anyone"] },
};

/** Who the policy lets in; throws the contract's 401 for anyone else. */
async function callerFor(req: Request, svc: Services, ip: string | null, policy: ApiPolicy): Promise<Caller> {
  const accepts = policy.accepts ?? ["key", "browser"];
  if (accepts.includes("anyone")) return freeCallerOf(ip);
  const caller = await identifyCaller(req, svc, ip, accepts as Credential[]);
  if (policy.proOnly && (caller.plan !== "pro" || !caller.keyId)) {
    throw new ApiError("unauthorized", `${policy.proOnly} needs a Pro key: send Authorization: Bearer <key>.`);
  }
  if (policy.guard) {
    const { bucket, what } = policy.guard;
    await enforceCallGuard(svc.statusGuard, svc.buckets[bucket], caller, what);
  }
  return caller;
}

/**
 * Wraps a route under its declared policy (or the named one of an endpoint): who may call, the daily bucket it
 * counts on, the per-minute guard, Pro only.
 */
export function withApi(
  declared: Endpoint | "waitlist" | ApiPolicy,
  handler: (ctx: RouteContext) => Promise<RouteResult>,
): (req: Request) => Promise<Response> {
  const policy = typeof declared === "string" ? POLICIES[declared] : declared;
  const dialect = policy.dialect ?? CONTRACT_DIALECT;
  return async (req) => {
    const taken: OpenedCall = { requestId: newRequestId(), plan: "free" };
    try {
      const ctx = await openRequest(req, policy, taken);
      const result = await handler(ctx);
      return await answerResult(result, ctx, taken, dialect);
    } catch (err) {
      return answerError(err, taken, policy.quota, dialect);
    }
  };
}

/** The steps before the handler: who calls, its quota, the drain, its Idempotency-Key; the handler's context. */
async function openRequest(req: Request, policy: ApiPolicy, taken: OpenedCall): Promise<RouteContext> {
  const endpoint = policy.quota;
  const svc = getServices();
  taken.stopping = svc.drain.stopping;
  const ip = readClientIp(req, svc);
  const abandoned = () => req.signal.aborted;
  // A 401 describes the caller IP's Free generation bucket.
  const anonymous = freeCallerOf(ip);
  taken.quota = new Quota(svc.quota, chargesFor(svc.buckets, "generate", anonymous).slice(0, 1), abandoned);
  const caller = await callerFor(req, svc, ip, policy);
  taken.plan = caller.plan;
  // A call arriving while the server drains (server.ts lets API_ROUTES through) is turned away with the headers of
  // the bucket the caller counts on.
  const { quota, idempotency } = openAccount(svc, taken, caller, endpoint, {
    abandoned,
    idempotencyKey: req.headers.get("idempotency-key"),
    makes: req.method === "POST",
  });
  return {
    req,
    requestId: taken.requestId,
    caller,
    svc,
    quota,
    idempotency,
    // Building these costs something in Next; only the routes that need them read them.
    get signal() {
      return AbortSignal.any([req.signal, svc.drain.stopping]);
    },
    get origin() {
      return originOf(req);
    },
  };
}

/** The handler's result as the answer, with the contract's headers; the Idempotency-Key keeps it. */
async function answerResult(
  result: RouteResult,
  ctx: RouteContext,
  taken: OpenedCall,
  dialect: Dialect,
): Promise<Response> {
  const { requestId, quota, idempotency, svc } = ctx;
  const { recordUsage } = taken;
  if (result instanceof StreamedAnswer) {
    // The drain waits for the stream's refund or record too, so the store does not close before they are written.
    const settling = svc.drain.track(settleStream(result, { requestId, quota, idempotency, recordUsage }));
    keepAlive(settling);
    return withHeaders(result.response, requestId, await quota.usageForHeaders(), dialect);
  }
  await recordUsage?.(result);
  const usage = await quota.usageForHeaders();
  const response =
    result instanceof Response
      ? withHeaders(result, requestId, usage, dialect)
      : withHeaders(respond(200, result, requestId, usage), requestId, usage, dialect);
  if (response.headers.get("idempotent-replayed") === null) {
    // The work is done and paid for: a store hiccup here only means the key cannot be replayed.
    await idempotency.complete(response).catch(() => idempotency.release().catch(() => undefined));
  }
  return response;
}

/** Anything thrown as the dialect's error answer, once the call is settled (see settleFailure). */
async function answerError(
  err: unknown,
  taken: OpenedCall,
  endpoint: ApiPolicy["quota"],
  dialect: Dialect,
): Promise<Response> {
  const apiError = await settleFailure(err, taken, endpoint);
  const usage = (await taken.quota?.usageForHeaders().catch(() => undefined)) ?? noUsage();
  return withHeaders(dialect.errorResponse(apiError, taken.requestId, usage), taken.requestId, usage, dialect);
}

/** Settles a streamed answer once its work ends, as the wrapper settles any other request when it answers. */
async function settleStream(
  answer: StreamedAnswer,
  request: {
    requestId: string;
    quota: Quota;
    idempotency: Idempotency;
    recordUsage?: (answer: unknown) => Promise<void>;
  },
): Promise<void> {
  const { requestId, quota, idempotency, recordUsage } = request;
  const outcome = await answer.settled;
  if ("error" in outcome) {
    const apiError = toApiError(outcome.error, requestId);
    // As for any failed request: a caller who closed the stream after the work started keeps the unit used.
    await quota.fail().catch((e) => toApiError(e, requestId));
    await idempotency.release().catch((e) => toApiError(e, requestId));
    await recordUsage?.(apiError.status);
    return;
  }
  await recordUsage?.(200);
  const kept = new Response(outcome.replay, {
    headers: { "Content-Type": answer.response.headers.get("content-type") ?? "" },
  });
  await idempotency.complete(kept).catch(() => idempotency.release().catch(() => undefined));
}

export function newRequestId(): string {
  // randomUUID draws from a cached entropy pool: unique ids without a syscall per request.
  return `req_${crypto.randomUUID().replaceAll("-", "")}`;
}

/**
 * The contract's error body for any thrown value; unexpected errors are logged and never echoed.
 * Without `usage` (paths outside the three endpoints) no rate-limit headers are sent.
 */
export function errorResponse(err: unknown, requestId: string, usage?: Usage): Response {
  const apiError = toApiError(err, requestId);
  const body: ErrorBody = {
    success: false,
    error: {
      code: apiError.code,
      message: apiError.message,
      ...(apiError.param !== undefined && { param: apiError.param }),
      request_id: requestId,
    },
  };
  return respond(apiError.status, body, requestId, usage, apiError.retryAfter);
}

/** A JSON response with the contract's headers; `body` may be already-serialised JSON text. */
export function respond(
  status: number,
  body: unknown,
  requestId: string,
  usage?: Usage,
  retryAfter?: number,
): Response {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "Cache-Control": "no-store",
    "X-Request-Id": requestId,
    ...(usage && rateLimitHeaders(usage)),
  };
  const wait = retryAfter ?? (usage && secondsUntil(usage.resetMs));
  if ((status === 429 || status === 503) && wait !== undefined) headers["Retry-After"] = String(wait);
  return new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers });
}

function withHeaders(res: Response, requestId: string, usage: Usage, dialect = CONTRACT_DIALECT): Response {
  res.headers.set("X-Request-Id", requestId);
  const headers = { ...rateLimitHeaders(usage), ...dialect.headers(usage) };
  for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
  return res;
}

/** Rate-limit headers for an answer given before any bucket is known (the configuration failed to load). */
function noUsage(): Usage {
  return emptyUsage({ name: "none", limit: 0, windowMs: DAY_MS });
}

const HOST_PATTERN = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** The origin clients reached us on; a malformed Host header falls back to the request URL. */
export function originOf(req: Request): string {
  const host = req.headers.get("host");
  const url = new URL(req.url);
  if (host && HOST_PATTERN.test(host)) return `${url.protocol}//${host}`;
  return url.origin;
}

/**
 * Handlers for the methods an endpoint does not serve: the contract's error body and headers (describing the
 * caller IP's Free generation bucket, as for a 401) instead of the framework's empty 405.
 */
export function rejectOtherMethods(allowed: string[], dialect?: Dialect) {
  // Anyone: a 405 never verifies a key, and reports on the IP's Free bucket.
  const refuse = withApi({ quota: "status", accepts: ["anyone"], dialect }, async () => {
    throw new ApiError("method_not_allowed", `Use ${allowed.join(" or ")} on this endpoint.`);
  });
  const handler = async (req: Request): Promise<Response> => {
    const res = await refuse(req);
    res.headers.set("Allow", allowed.join(", "));
    return res;
  };
  const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => !allowed.includes(m));
  return Object.fromEntries(methods.map((m) => [m, handler])) as Record<string, (req: Request) => Promise<Response>>;
}
