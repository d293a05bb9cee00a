// POST /api/admin/session – sign in to the console with the admin token ({ "token" }); GET – the session; DELETE –
// sign out. Ten failed sign-ins per hour per client address, then 429.
import {
  clearedSessionCookie,
  isSameOrigin,
  isSecureRequest,
  issueSession,
  readCookie,
  SESSION_COOKIE,
  SIGN_IN_BUCKET,
  sessionCookie,
  tokenMatches,
  verifySession,
} from "@/lib/api/admin-auth";
import { identityOfIp, readClientIp } from "@/lib/api/identify";
import { parseAdminBody } from "@/lib/api/parse-admin";
import { authenticateAdmin, consoleDisabled, rejectOtherAdminMethods, withAdmin } from "@/lib/api/with-admin";
import { errorResponse, newRequestId, respond } from "@/lib/api/with-api";
import { audit } from "@/lib/console/actor";
import { log } from "@/lib/log";
import { secondsUntil } from "@/lib/quota/types";
import { signInSchema } from "@/lib/schemas/admin";
import { ApiError, toApiError } from "@/lib/schemas/api-error";
import { getServices } from "@/lib/services";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(req: Request): Promise<Response> {
  const requestId = newRequestId();
  try {
    const svc = getServices();
    const admin = svc.config.admin;
    if (!admin) throw consoleDisabled();
    // A sign-in needs no cookie, but a page of another site must not sign a browser in (login CSRF).
    if (req.headers.get("origin") !== null && !isSameOrigin(req, svc.config.publicAppUrl)) {
      throw new ApiError("forbidden", "Sign in from the console's own page.");
    }
    const { token } = await parseAdminBody(req, signInSchema);
    const ip = readClientIp(req, svc);
    // Every attempt takes a unit first, so parallel guesses cannot pass the limit; a right token gives it back.
    const attempt = await svc.quota.take(SIGN_IN_BUCKET, identityOfIp(ip));
    if (!attempt.ok) {
      throw new ApiError("rate_limited", "Too many failed sign-ins from this address. Try again later.", {
        retryAfter: secondsUntil(attempt.resetMs),
      });
    }
    if (!tokenMatches(token, admin.token)) {
      log.warn("admin sign-in failed", { client_ip: ip, attempts_left: attempt.remaining });
      throw new ApiError("unauthorized", "That is not the admin token.");
    }
    await svc.quota.refund(SIGN_IN_BUCKET, identityOfIp(ip), attempt.windowStart);
    const session = issueSession(admin.token, svc.pepper);
    await audit(svc.audit, { via: "session", ip }, "sign_in", "console");
    const res = respond(200, { success: true, expires_at: new Date(session.expiresAt).toISOString() }, requestId);
    res.headers.append("Set-Cookie", sessionCookie(session.value, isSecureRequest(req)));
    return res;
  } catch (err) {
    return errorResponse(toApiError(err, requestId), requestId);
  }
}

export const GET = withAdmin(async ({ req, svc, actor }) => {
  const admin = svc.config.admin;
  const expiresAt = admin && verifySession(readCookie(req, SESSION_COOKIE), admin.token, svc.pepper);
  return { signed_in: true, via: actor.via, expires_at: expiresAt ? new Date(expiresAt).toISOString() : null };
});

/** Signs out: the cookie is cleared whatever its state; a valid session's end is audited. */
export async function DELETE(req: Request): Promise<Response> {
  const requestId = newRequestId();
  try {
    const svc = getServices();
    if (!svc.config.admin) throw consoleDisabled();
    const via = await Promise.resolve()
      .then(() => authenticateAdmin(req, svc))
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.code === "forbidden") throw err;
        return null;
      });
    if (via) await audit(svc.audit, { via, ip: readClientIp(req, svc) }, "sign_out", "console");
    const res = respond(200, { success: true, signed_in: false }, requestId);
    res.headers.append("Set-Cookie", clearedSessionCookie(isSecureRequest(req)));
    return res;
  } catch (err) {
    return errorResponse(err, requestId);
  }
}

export const { PUT, PATCH } = rejectOtherAdminMethods(["GET", "POST", "DELETE"]);
