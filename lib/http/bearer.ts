// The one reading of "Authorization: Bearer <token>" (API keys, the admin and metrics tokens, the cron secret).

/** The request's Bearer token; undefined without an Authorization header, or with another scheme or shape. */
export function bearerToken(req: Request): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(req.headers.get("authorization") ?? "")?.[1];
}
