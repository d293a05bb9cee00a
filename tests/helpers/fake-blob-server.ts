// Test-only in-memory Vercel Blob service: the API subset @vercel/blob's put/head/list/del use, plus serving the blobs.
//
// Point @vercel/blob at it with VERCEL_BLOB_API_URL=<apiUrl> and pass <token>. The API lives under /api and the
// blobs are served from the same loopback origin, so a returned URL resolves. Limits: public access only, no
// multipart, list pages, copy or client tokens; no ETag preconditions; data lives as long as the process.
// Outages can be injected: API error answers in the service's error body shape, or API requests left unanswered.
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

type StoredBlob = { body: Buffer; contentType: string; cacheControl: string; uploadedAt: Date; etag: string };

export type RecordedPut = { pathname: string; headers: http.IncomingHttpHeaders };

/** An error answer of the Blob API: the HTTP status and the `error.code` the client maps to its error classes. */
export type BlobApiFault = { status: number; code: string; message?: string; headers?: Record<string, string> };

export type FakeBlobServer = {
  apiUrl: string;
  token: string;
  /** Every accepted PUT, for asserting the headers the client sent. */
  puts: RecordedPut[];
  /** Every pathname a delete asked for, in order, whether or not it existed (twice = deleted twice). */
  deleted: string[];
  /** Answer every API request with this error until cleared with null (blob downloads keep working). */
  failApi(fault: BlobApiFault | null): void;
  /** Leave API requests unanswered until turned off (they are then dropped). */
  hangApi(on: boolean): void;
  /** Number of stored blobs. */
  count(): number;
  close(): Promise<void>;
};

const TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  txt: "text/plain",
};

function withRandomSuffix(pathname: string): string {
  const suffix = crypto.randomBytes(15).toString("base64url").replace(/[-_]/g, "").slice(0, 20);
  const dot = pathname.lastIndexOf(".");
  return dot > pathname.lastIndexOf("/")
    ? `${pathname.slice(0, dot)}-${suffix}${pathname.slice(dot)}`
    : `${pathname}-${suffix}`;
}

export async function startFakeBlobServer(): Promise<FakeBlobServer> {
  // Same shape as real read-write tokens: the store id is the 4th "_" field.
  const token = `vercel_blob_rw_fakestore_${crypto.randomBytes(12).toString("hex")}`;
  const blobs = new Map<string, StoredBlob>();
  const puts: RecordedPut[] = [];
  const deleted: string[] = [];
  let origin = "";
  let fault: BlobApiFault | null = null;
  let hanging = false;
  const hung = new Set<http.ServerResponse>();

  const blobJson = (pathname: string, b: StoredBlob) => {
    const url = `${origin}/${pathname}`;
    return {
      url,
      downloadUrl: `${url}?download=1`,
      pathname,
      contentType: b.contentType,
      contentDisposition: `inline; filename="${pathname.split("/").pop() ?? pathname}"`,
      etag: b.etag,
    };
  };
  const pathnameOf = (urlOrPathname: string) =>
    urlOrPathname.startsWith(`${origin}/`)
      ? decodeURIComponent(new URL(urlOrPathname).pathname.slice(1))
      : urlOrPathname;

  const api = (req: http.IncomingMessage, url: URL, body: Buffer): [number, unknown] => {
    if (req.headers.authorization !== `Bearer ${token}`)
      return [403, { error: { code: "forbidden", message: "Access denied" } }];
    if (!req.headers["x-api-version"])
      return [400, { error: { code: "bad_request", message: "missing x-api-version" } }];
    const route = url.pathname.replace(/^\/api\/?/, "/");

    if (req.method === "PUT" && route === "/") {
      const requested = url.searchParams.get("pathname");
      if (!requested) return [400, { error: { code: "bad_request", message: "pathname is required" } }];
      if (req.headers["x-vercel-blob-access"] !== "public") {
        return [400, { error: { code: "bad_request", message: "the fake blob server only supports public access" } }];
      }
      const pathname = req.headers["x-add-random-suffix"] === "1" ? withRandomSuffix(requested) : requested;
      if (blobs.has(pathname) && req.headers["x-allow-overwrite"] !== "1") {
        return [
          400,
          { error: { code: "bad_request", message: "This blob already exists, use `allowOverwrite: true`" } },
        ];
      }
      const maxAge = Number(req.headers["x-cache-control-max-age"] ?? 2_592_000);
      const ext = pathname.split(".").pop()?.toLowerCase() ?? "";
      const blob: StoredBlob = {
        body,
        contentType: String(req.headers["x-content-type"] ?? TYPES[ext] ?? "application/octet-stream"),
        cacheControl: `public, max-age=${maxAge}`,
        uploadedAt: new Date(),
        etag: `"${crypto.createHash("md5").update(body).digest("hex")}"`,
      };
      blobs.set(pathname, blob);
      puts.push({ pathname, headers: req.headers });
      return [200, blobJson(pathname, blob)];
    }
    if (req.method === "GET" && route === "/" && url.searchParams.has("url")) {
      const pathname = pathnameOf(url.searchParams.get("url") ?? "");
      const blob = blobs.get(pathname);
      if (!blob) return [404, { error: { code: "not_found", message: "The requested blob does not exist" } }];
      return [
        200,
        {
          ...blobJson(pathname, blob),
          size: blob.body.length,
          uploadedAt: blob.uploadedAt.toISOString(),
          cacheControl: blob.cacheControl,
        },
      ];
    }
    if (req.method === "GET" && route === "/") {
      // list: every blob under `prefix` in one page (the fake never paginates).
      const prefix = url.searchParams.get("prefix") ?? "";
      const listed = [...blobs].filter(([pathname]) => pathname.startsWith(prefix));
      return [
        200,
        {
          blobs: listed.map(([pathname, b]) => ({
            ...blobJson(pathname, b),
            size: b.body.length,
            uploadedAt: b.uploadedAt.toISOString(),
          })),
          cursor: undefined,
          hasMore: false,
        },
      ];
    }
    if (req.method === "POST" && route === "/delete") {
      const { urls } = JSON.parse(body.toString("utf8") || "{}") as { urls?: string[] };
      for (const u of urls ?? []) {
        blobs.delete(pathnameOf(u));
        deleted.push(pathnameOf(u));
      }
      return [200, {}];
    }
    return [400, { error: { code: "bad_request", message: `unsupported ${req.method} ${url.pathname}` } }];
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", origin);
      if (url.pathname === "/api" || url.pathname.startsWith("/api/")) {
        if (hanging) {
          hung.add(res);
          return;
        }
        if (fault) {
          res.writeHead(fault.status, { "content-type": "application/json", ...fault.headers });
          return res.end(JSON.stringify({ error: { code: fault.code, message: fault.message ?? fault.code } }));
        }
        const [status, json] = api(req, url, Buffer.concat(chunks));
        res.writeHead(status, { "content-type": "application/json" });
        return res.end(JSON.stringify(json));
      }
      const blob = blobs.get(decodeURIComponent(url.pathname.slice(1)));
      if (!blob || (req.method !== "GET" && req.method !== "HEAD")) {
        res.writeHead(404, { "content-type": "text/plain" });
        return res.end("Not found");
      }
      res.writeHead(200, {
        "content-type": blob.contentType,
        "content-length": blob.body.length,
        "cache-control": blob.cacheControl,
        etag: blob.etag,
        ...(url.searchParams.get("download") === "1" ? { "content-disposition": "attachment" } : {}),
      });
      res.end(req.method === "HEAD" ? undefined : blob.body);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiUrl: `${origin}/api`,
    token,
    puts,
    deleted,
    failApi(next) {
      fault = next;
    },
    hangApi(on) {
      hanging = on;
      if (on) return;
      for (const res of hung) res.destroy();
      hung.clear();
    },
    count: () => blobs.size,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
