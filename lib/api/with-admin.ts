// The wrapper around every /api/admin route: 404 while ADMIN_TOKEN is unset, then the token as a Bearer or the
// console's session cookie (401 otherwise), and for cookie calls that change something, the same-origin check
// (403). Answers are JSON in the usual bodies, never cached.
import { identityOfIp, readClientIp } from "@/lib/api/identify";
import type { Actor } from "@/lib/console/actor";
import { secondsUntil } from "@/lib/quota/types";
import { ApiError } from "@/lib/schemas/api-error";
import { getServices, type Services } from "@/lib/services";
import { isSameOrigin, readCookie, SESSION_COOKIE, SIGN_IN_BUCKET, tokenMatches, verifySession } from "./admin-auth";
import { errorResponse, newRequestId, originOf, respond } from "./with-api";

export type AdminContext = {
  req: Request;
  requestId: string;
  svc: Services;
  actor: Actor;
  /** The dynamic segments of the route, e.g. { id }. */
  params: Record<string, string>;
  /** Where links in invitations point: PUBLIC_APP_URL, else the origin the console was reached on. */
  appUrl: string;
};

type RouteParams = { params?: Promise<Record<string, string | string[]>> };
const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The same 404 as any unknown /api path, so a disabled console is indistinguishable from none. */
export function consoleDisabled(): ApiError {
  return new ApiError("not_found", "No such API endpoint. See /docs.");
}

/**
 * Checks the admin credential of a request; throws 401 (or 403 for a cross-origin cookie call). A wrong Bearer token
 * counts as a failed sign-in of its address, and past the ten an hour every Bearer from there is refused with 429,
 * as on the sign-in form. Right tokens cost nothing, so scripts may call in parallel.
 */
export async function authenticateAdmin(req: Request, svc: Services): Promise<Actor["via"]> {
  const admin = svc.config.admin;
  if (!admin) throw consoleDisabled();
  const auth = req.headers.get("authorization");
  if (auth !== null) {
    const identity = identityOfIp(readClientIp(req, svc));
    const failures = await svc.quota.peek(SIGN_IN_BUCKET, identity);
    if (failures.remaining <= 0) throw tooManyFailures(failures.resetMs);
    const presented = /^Bearer +(\S+) *$/i.exec(auth)?.[1];
    if (presented !== undefined && tokenMatches(presented, admin.token)) return "token";
    const counted = await svc.quota.take(SIGN_IN_BUCKET, identity);
    if (!counted.ok) throw tooManyFailures(counted.resetMs);
    throw new ApiError("unauthorized", "The admin token is missing or wrong.");
  }
  if (verifySession(readCookie(req, SESSION_COOKIE), admin.token, svc.pepper) === null) {
    throw new ApiError("unauthorized", "Sign in at /admin, or send the admin token as a Bearer.");
  }
  if (MUTATING.has(req.method) && !isSameOrigin(req, svc.config.publicAppUrl)) {
    throw new ApiError("forbidden", "A change made with the console's cookie must come from the console's own page.");
  }
  return "session";
}

function tooManyFailures(resetMs: number): ApiError {
  return new ApiError("rate_limited", "Too many failed sign-ins from this address. Try again later.", {
    retryAfter: secondsUntil(resetMs),
  });
}

export function withAdmin(
  handler: (ctx: AdminContext) => Promise<Record<string, unknown> | Response>,
): (req: Request, route?: RouteParams) => Promise<Response> {
  return async (req, route) => {
    const requestId = newRequestId();
    try {
      const svc = getServices();
      const via = await authenticateAdmin(req, svc);
      const raw = (await route?.params) ?? {};
      const params = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Array.isArray(v) ? v.join("/") : v]));
      const result = await handler({
        req,
        requestId,
        svc,
        actor: { via, ip: readClientIp(req, svc) },
        params,
        appUrl: svc.config.publicAppUrl ?? originOf(req),
      });
      if (result instanceof Response) {
        result.headers.set("X-Request-Id", requestId);
        result.headers.set("Cache-Control", "no-store");
        return result;
      }
      return respond(200, { success: true, ...result }, requestId);
    } catch (err) {
      return errorResponse(err, requestId);
    }
  };
}

/** 405 for the methods an admin route does not serve, after the same checks (a disabled console stays a 404). */
export function rejectOtherAdminMethods(allowed: string[]) {
  const refuse = withAdmin(async () => {
    throw new ApiError("method_not_allowed", `Use ${allowed.join(" or ")} on this endpoint.`);
  });
  const handler = async (req: Request): Promise<Response> => {
    const res = await refuse(req);
    if (res.status === 405) res.headers.set("Allow", allowed.join(", "));
    return res;
  };
  const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => !allowed.includes(m));
  return Object.fromEntries(methods.map((m) => [m, handler])) as Record<string, (req: Request) => Promise<Response>>;
}
