// POST /api/admin/session – sign in to the console with the admin token ({ "token" }); GET – the session; DELETE –
// sign out, which ends the session on the server. Wrong tokens count per address in a sliding hour: past ten,
// further wrong ones get 429, while the right token still signs in.

import { audit } from "@/lib/console/actor";
import { openSession } from "@/lib/console/sessions";
import { attemptAdminToken } from "@/lib/console/sign-in";
import { parseAdminBody } from "@/lib/features/admin/parse";
import {
  clearedSessionCookie,
  isSameOrigin,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
  sessionCookieValue,
  sessionIdOf,
} from "@/lib/http/admin-auth";
import { identityOfIp, isSecureRequest, readClientIp } from "@/lib/http/identify";
import {
  authenticateAdmin,
  consoleDisabled,
  rejectOtherAdminMethods,
  tooManyFailures,
  withAdmin,
} from "@/lib/http/with-admin";
import { errorResponse, newRequestId, respond } from "@/lib/http/with-api";
import { type SessionView, type SignedOut, signInSchema } from "@/lib/schemas/admin";
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
    const secure = isSecureRequest(req, svc);
    // A sign-in needs no cookie, but a page of another site must not sign a browser in (login CSRF).
    if (req.headers.get("origin") !== null && !isSameOrigin(req, svc.config.publicAppUrl, secure)) {
      throw new ApiError("forbidden", "Sign in from the console's own page.");
    }
    const { token } = await parseAdminBody(req, signInSchema);
    const actor = { via: "session" as const, ip: readClientIp(req, svc) };
    const outcome = await attemptAdminToken(svc, actor, identityOfIp(actor.ip), token, admin.token);
    if (!outcome.ok) {
      if (outcome.locked) throw tooManyFailures(outcome.retryAtMs);
      throw new ApiError("unauthorized", "That is not the admin token.");
    }
    const session = await openSession(svc.sessions, admin.token, svc.pepper, actor.ip);
    await audit(svc.audit, actor, "sign_in", "console");
    const body: SessionView = {
      signed_in: true,
      via: "session",
      expires_at: new Date(session.expiresAt).toISOString(),
    };
    const res = respond(200, { success: true, ...body }, requestId);
    res.headers.append("Set-Cookie", sessionCookie(sessionCookieValue(session.id, admin.token, svc.pepper), secure));
    return res;
  } catch (err) {
    return errorResponse(toApiError(err, requestId), requestId);
  }
}

export const GET = withAdmin(async ({ actor, session }): Promise<SessionView> => {
  return {
    signed_in: true,
    via: actor.via === "session" ? "session" : "token",
    expires_at: session ? new Date(session.expiresAt).toISOString() : null,
  };
});

/**
 * Signs out: the session the cookie names is deleted from the store, so a copy of the cookie stops working too; the
 * cookie is cleared whatever its state, and a live session's end is audited.
 */
export async function DELETE(req: Request): Promise<Response> {
  const requestId = newRequestId();
  try {
    const svc = getServices();
    const admin = svc.config.admin;
    if (!admin) throw consoleDisabled();
    const auth = await Promise.resolve()
      .then(() => authenticateAdmin(req, svc))
      .catch((err: unknown) => {
        if (err instanceof ApiError && (err.code === "forbidden" || err.code === "rate_limited")) throw err;
        return null;
      });
    const id = sessionIdOf(readCookie(req, SESSION_COOKIE), admin.token, svc.pepper);
    if (id !== null) await svc.sessions.deleteSession(id);
    if (auth) await audit(svc.audit, { via: auth.via, ip: readClientIp(req, svc) }, "sign_out", "console");
    const body: SignedOut = { signed_in: false };
    const res = respond(200, { success: true, ...body }, requestId);
    res.headers.append("Set-Cookie", clearedSessionCookie(isSecureRequest(req, svc)));
    return res;
  } catch (err) {
    return errorResponse(err, requestId);
  }
}

export const { PUT, PATCH } = rejectOtherAdminMethods(["GET", "POST", "DELETE"]);
