// Per-request CSP nonce and security headers for pages; API, CDN and static routes bypass it so uploads stream.
import { type NextRequest, NextResponse } from "next/server";

/** The image CDN's origin when images live off-site; read per request so operators can change it without a rebuild. */
function cdnOrigin(): string {
  const raw = process.env.PUBLIC_CDN_URL?.trim();
  if (!raw) return "";
  try {
    return new URL(raw).origin;
  } catch {
    return "";
  }
}

export function buildCsp(nonce: string, dev: boolean, cdn: string): string {
  const extra = cdn ? ` ${cdn}` : "";
  return [
    "default-src 'self'",
    // 'strict-dynamic' lets Next's nonced bootstrap load its chunks; dev needs eval for React's debug stacks.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    // Attribute styles carry no script; the compare slider and meters set widths through them.
    "style-src-attr 'unsafe-inline'",
    `img-src 'self' data: blob:${extra}`,
    `connect-src 'self'${extra}${dev ? " ws: wss:" : ""}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function proxy(request: NextRequest): NextResponse {
  const nonce = btoa(crypto.randomUUID());
  const csp = buildCsp(nonce, process.env.NODE_ENV === "development", cdnOrigin());

  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("Content-Security-Policy", csp);

  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", csp);
  response.headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  response.headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()");
  response.headers.set("X-Content-Type-Options", "nosniff");
  response.headers.set("X-Frame-Options", "DENY");
  return response;
}

export const config = {
  matcher: ["/((?!api/|api$|cdn/|_next/static|_next/image|favicon\\.ico|icon\\.svg).*)"],
};
