// Per-request CSP nonce and security headers for pages; API (/api, /v1, /mcp), CDN and static routes bypass it so uploads
// stream.
import { type NextRequest, NextResponse } from "next/server";

function originOf(raw: string | undefined): string | null {
  if (!raw?.trim()) return null;
  try {
    return new URL(raw.trim()).origin;
  } catch {
    return null;
  }
}

/**
 * Where images may come from besides the app itself: the CDN, or the Vercel Blob store they are saved to. The
 * studio shows them and "Enhance this" fetches them. Read per request so operators can change them without a rebuild.
 */
export function imageOrigins(env: Record<string, string | undefined> = process.env): string[] {
  const origins = new Set<string>();
  const cdn = originOf(env.PUBLIC_CDN_URL);
  if (cdn) origins.add(cdn);
  const token = env.BLOB_READ_WRITE_TOKEN?.trim();
  if (token) {
    // @vercel/blob serves a store's public blobs from this host; the store id is the token's 4th "_" field.
    const storeId = token.split("_")[3];
    if (storeId && /^[A-Za-z0-9-]+$/.test(storeId)) {
      origins.add(`https://${storeId.toLowerCase()}.public.blob.vercel-storage.com`);
    }
    // A Blob-compatible service set with VERCEL_BLOB_API_URL (the tests' local one) serves blobs itself.
    const api = originOf(env.VERCEL_BLOB_API_URL);
    if (api) origins.add(api);
  }
  return [...origins];
}

export function buildCsp(nonce: string, dev: boolean, images: string[]): string {
  const extra = images.map((origin) => ` ${origin}`).join("");
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
  const csp = buildCsp(nonce, process.env.NODE_ENV === "development", imageOrigins());

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
  matcher: ["/((?!api/|api$|v1/|v1$|mcp$|metrics$|cdn/|_next/static|_next/image|favicon\\.ico|icon\\.svg).*)"],
};
