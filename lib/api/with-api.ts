// The one wrapper around every quota'd route: identify → input → filter → quota → work → error mapping.
import crypto from "node:crypto";
import { type Caller, identifyCaller, identityOfIp, readClientIp } from "@/lib/auth/identify";
import { StoreUnavailable } from "@/lib/errors";
import { describeError, log } from "@/lib/log";
import { dailyBucketOf, type PolicyName } from "@/lib/quota/policies";
import type { ErrorBody } from "@/lib/schemas/errors";
import { getServices, type Services } from "@/lib/services";
import type { Bucket, Take, Usage } from "@/lib/store/types";
import { ApiError, toApiError } from "./errors";
import { nextUtcMidnightMs, rateLimitHeaders, secondsUntil } from "./headers";

export type Context = {
  req: Request;
  requestId: string;
  caller: Caller;
  svc: Services;
  /** The daily bucket this endpoint counts on for this caller. */
  bucket: Bucket;
  /** The unit taken for this request (generate/enhance only). */
  lease?: Take;
  /** Aborts when the client disconnects. */
  signal: AbortSignal;
  /** The app's own origin, for URLs when no CDN base is set. */
  origin: string;
  /** Lets work that already read the daily bucket (status) hand it to the headers instead of a second read. */
  reportUsage: (usage: Usage) => void;
};

type Spec<I> = {
  policy: PolicyName;
  parse: (req: Request, ctx: Omit<Context, "lease">) => Promise<I>;
  /** Throws ApiError("content_filtered") to reject. */
  filter?: (input: I) => void;
  run: (input: I, ctx: Context) => Promise<Record<string, unknown>>;
  /** Serialises the 200 body; status splices in its pre-serialised catalogue instead of re-encoding it. */
  serialize?: (body: Record<string, unknown>) => string;
};

export function newRequestId(): string {
  // randomUUID draws from a cached entropy pool: unique ids without a syscall per request.
  return `req_${crypto.randomUUID().replaceAll("-", "")}`;
}

export function withApi<I>(spec: Spec<I>): (req: Request) => Promise<Response> {
  return async (req) => {
    const requestId = newRequestId();
    let svc: Services | undefined;
    let usage: Usage | undefined;
    let reportOn: { bucket: Bucket; identity: string } | undefined;
    try {
      svc = getServices();
      const services = svc;
      let caller: Caller;
      try {
        caller = await identifyCaller(req, services);
      } catch (err) {
        // A 401 describes the caller IP's Free generation bucket.
        reportOn = { bucket: services.buckets.freeGenerations, identity: identityOfIp(readClientIp(req, services)) };
        throw err;
      }
      const bucket = dailyBucketOf(services.buckets, spec.policy, caller.plan);
      reportOn = { bucket, identity: caller.identity };
      const reportUsage = (u: Usage) => {
        usage = u;
      };
      // The abort signal and origin cost something to build in Next; only the work that needs them reads them.
      const base = {
        req,
        requestId,
        caller,
        svc: services,
        bucket,
        reportUsage,
        get signal() {
          return req.signal;
        },
        get origin() {
          return originOf(req);
        },
      };

      const input = await spec.parse(req, base);
      spec.filter?.(input);

      let lease: Take | undefined;
      if (spec.policy === "status") {
        // Status must keep answering (as "degraded") while the store is down, so the guard alone fails open.
        const guard = await services.statusGuard.take(services.buckets.statusGuard, caller.identity).catch((err) => {
          if (err instanceof StoreUnavailable) return null;
          throw err;
        });
        if (guard && !guard.ok) {
          throw new ApiError("rate_limited", `Too many status calls: at most ${guard.limit} per minute.`, {
            retryAfter: secondsUntil(guard.resetMs),
          });
        }
      } else {
        lease = await services.store.take(bucket, caller.identity);
        usage = lease;
        if (!lease.ok) throw quotaError(lease, caller);
      }

      let body: Record<string, unknown>;
      try {
        body = await spec.run(input, Object.assign(base, { lease }));
      } catch (err) {
        if (lease?.ok) {
          await services.store
            .refund(bucket, caller.identity, lease.windowStart)
            .catch((e) => log.error("refund failed", { request_id: requestId, ...describeError(e) }));
          usage = { ...lease, used: lease.used - 1, remaining: lease.remaining + 1 };
        }
        throw err;
      }
      usage ??= await services.store.peek(bucket, caller.identity).catch(() => fallbackUsage(bucket));
      return respond(200, spec.serialize ? spec.serialize(body) : body, requestId, usage);
    } catch (err) {
      if (!usage && reportOn && svc) {
        usage = await svc.store.peek(reportOn.bucket, reportOn.identity).catch(() => undefined);
      }
      return errorResponse(err, requestId, usage ?? fallbackUsage(reportOn?.bucket));
    }
  };
}

/**
 * The contract's error body for any thrown value; unexpected errors are logged and never echoed.
 * Without `usage` (paths outside the three endpoints) no rate-limit headers are sent.
 */
export function errorResponse(err: unknown, requestId: string, usage?: Usage): Response {
  const apiError = toApiError(err, requestId);
  const body: ErrorBody = {
    success: false,
    error: { code: apiError.code, message: apiError.message, request_id: requestId },
  };
  return respond(apiError.status, body, requestId, usage, apiError.retryAfter);
}

function quotaError(lease: Take, caller: Caller): ApiError {
  const resetAt = new Date(lease.resetMs).toISOString();
  const message =
    caller.plan === "free"
      ? `Daily free limit of ${lease.limit} reached. It resets at ${resetAt} (midnight UTC). For more, join the Pro waitlist at /waitlist.`
      : `Daily limit of ${lease.limit} requests for this key reached. It resets at ${resetAt} (midnight UTC).`;
  return new ApiError("rate_limited", message, { retryAfter: secondsUntil(lease.resetMs) });
}

function fallbackUsage(bucket: Bucket | undefined): Usage {
  const limit = bucket?.limit ?? 0;
  return { limit, used: 0, remaining: 0, resetMs: nextUtcMidnightMs() };
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
export function rejectOtherMethods(allowed: string[]) {
  const handler = async (req: Request): Promise<Response> => {
    const requestId = newRequestId();
    let usage: Usage | undefined;
    try {
      const svc = getServices();
      usage = await svc.store
        .peek(svc.buckets.freeGenerations, identityOfIp(readClientIp(req, svc)))
        .catch(() => undefined);
    } catch {
      usage = undefined;
    }
    const res = errorResponse(
      new ApiError("method_not_allowed", `Use ${allowed.join(" or ")} on this endpoint.`),
      requestId,
      usage ?? fallbackUsage(undefined),
    );
    res.headers.set("Allow", allowed.join(", "));
    return res;
  };
  const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => !allowed.includes(m));
  return Object.fromEntries(methods.map((m) => [m, handler])) as Record<string, (req: Request) => Promise<Response>>;
}
