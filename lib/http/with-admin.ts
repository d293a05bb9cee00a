// The wrapper around every /api/admin route: 404 while ADMIN_TOKEN is unset, then the token as a Bearer or the
// console's session cookie (401 otherwise), and for cookie calls that change something, the same-origin check
// (403). Answers are JSON in the usual bodies, never cached.

import type { Actor } from "@/lib/console/actor";
import { type AdminSession, liveSession } from "@/lib/console/sessions";
import { attemptAdminToken } from "@/lib/console/sign-in";
import { identityOfIp, isSecureRequest, readClientIp } from "@/lib/http/identify";
import { secondsUntil } from "@/lib/quota/types";
import { ApiError } from "@/lib/schemas/api-error";
import { getServices, type Services } from "@/lib/services";
import { isSameOrigin, readCookie, SESSION_COOKIE, sessionIdOf } from "./admin-auth";
import { bearerToken } from "./bearer";
import { errorResponse, newRequestId, originOf, respond } from "./with-api";

export type AdminContext = {
  req: Request;
  requestId: string;
  svc: Services;
  actor: Actor;
  /** The console session the call came with; null for a Bearer call. */
  session: AdminSession | null;
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

/** The live session a session cookie's value stands for (signed by us, in the store, unexpired, today's token). */
export async function sessionOfCookie(
  value: string | undefined,
  svc: Pick<Services, "config" | "pepper" | "sessions">,
): Promise<AdminSession | null> {
  const admin = svc.config.admin;
  const id = admin ? sessionIdOf(value, admin.token, svc.pepper) : null;
  return admin && id ? liveSession(svc.sessions, id, admin.token, svc.pepper) : null;
}

export type AdminAuth = { via: "token"; session: null } | { via: "session"; session: AdminSession };

/**
 * Checks the admin credential of a request; throws 401 (or 403 for a cross-origin cookie call). A Bearer token is
 * an attempt of its address (see lib/console/sign-in.ts): past ten wrong ones in a sliding hour, wrong tokens get
 * 429 while the right one still opens the API.
 */
export async function authenticateAdmin(req: Request, svc: Services): Promise<AdminAuth> {
  const admin = svc.config.admin;
  if (!admin) throw consoleDisabled();
  if (req.headers.has("authorization")) {
    const ip = readClientIp(req, svc);
    const presented = bearerToken(req);
    const outcome = await attemptAdminToken(svc, { via: "token", ip }, identityOfIp(ip), presented, admin.token);
    if (outcome.ok) return { via: "token", session: null };
    if (outcome.locked) throw tooManyFailures(outcome.retryAtMs);
    throw new ApiError("unauthorized", "The admin token is missing or wrong.");
  }
  const session = await sessionOfCookie(readCookie(req, SESSION_COOKIE), svc);
  if (!session) throw new ApiError("unauthorized", "Sign in at /admin, or send the admin token as a Bearer.");
  if (MUTATING.has(req.method) && !isSameOrigin(req, svc.config.publicAppUrl, isSecureRequest(req, svc))) {
    throw new ApiError("forbidden", "A change made with the console's cookie must come from the console's own page.");
  }
  return { via: "session", session };
}

export function tooManyFailures(retryAtMs: number): ApiError {
  return new ApiError("rate_limited", "Too many failed sign-ins from this address. Try again later.", {
    retryAfter: secondsUntil(retryAtMs),
  });
}

export function withAdmin(
  handler: (ctx: AdminContext) => Promise<Record<string, unknown> | Response>,
): (req: Request, route?: RouteParams) => Promise<Response> {
  return async (req, route) => {
    const requestId = newRequestId();
    try {
      const svc = getServices();
      const { via, session } = await authenticateAdmin(req, svc);
      const raw = (await route?.params) ?? {};
      const params = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Array.isArray(v) ? v.join("/") : v]));
      const result = await handler({
        req,
        requestId,
        svc,
        actor: { via, ip: readClientIp(req, svc) },
        session,
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
