// A loopback HTTP server base for fake providers, switchable into failure modes at runtime by the tests.
import crypto from "node:crypto";
import http from "node:http";
import type net from "node:net";
import sharp from "sharp";
export type FakeMode = "ok" | "moderate" | "error" | "capacity" | "hang" | "malformed";

export type Recorded = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
};

export type FakeReply =
  | { status: number; json?: unknown; bytes?: Buffer; type?: string; headers?: Record<string, string> }
  | "hang";

export type FakeHandler = (req: Recorded, fake: Fake) => Promise<FakeReply> | FakeReply;

export type Fake = {
  name: string;
  url: string;
  mode: FakeMode;
  /** Provider-specific variant of a mode, e.g. which moderation wording to use. */
  variant: string;
  requests: Recorded[];
  /** For polling APIs: how many answers say "still running" before the result. */
  pendingPolls: number;
  /** Polls answered since the last reset. */
  polls: number;
  /** Request-shape problems found; tests assert this stays empty. */
  violations: string[];
  /**
   * Origins a hostile or compromised API would name instead of its own: for polling/status URLs and for result
   * URLs. Unset, the fake names itself, as a real provider names its own hosts.
   */
  foreign: { polling?: string; result?: string };
  /** When set, every API request is answered with a 307 to the same path on this origin. */
  redirectTo?: string;
  /** A URL on this fake (or on `foreign[kind]`) for a path. */
  urlFor: (kind: "polling" | "result", path: string) => string;
  /** Serves bytes at a fresh URL on this server, as providers' delivery URLs do. */
  host: (bytes: Buffer, ext: "png" | "jpeg") => string;
  reset: () => void;
  close: () => Promise<void>;
};

/** Records requests, serves generated image files and collects request-shape violations. */
export async function startFake(
  name: string,
  handler: FakeHandler,
  defaults: { pendingPolls?: number } = {},
): Promise<Fake> {
  const files = new Map<string, { bytes: Buffer; type: string }>();
  const sockets = new Set<net.Socket>();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;

  const fake: Fake = {
    name,
    url: `http://127.0.0.1:${port}`,
    mode: "ok",
    variant: "",
    requests: [],
    pendingPolls: defaults.pendingPolls ?? 0,
    polls: 0,
    violations: [],
    foreign: {},
    urlFor: (kind, path) => `${fake.foreign[kind] ?? fake.url}${path}`,
    host: (bytes, ext) => {
      const id = crypto.randomBytes(8).toString("hex");
      files.set(`/files/${id}.${ext}`, { bytes, type: `image/${ext}` });
      return fake.urlFor("result", `/files/${id}.${ext}`);
    },
    reset: () => {
      fake.mode = "ok";
      fake.foreign = {};
      fake.redirectTo = undefined;
      fake.variant = "";
      fake.requests = [];
      fake.violations = [];
      fake.pendingPolls = defaults.pendingPolls ?? 0;
      fake.polls = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("request", (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const url = new URL(req.url ?? "/", fake.url);
      const file = files.get(url.pathname);
      if (req.method === "GET" && file) {
        res.writeHead(200, { "Content-Type": file.type, "Content-Length": file.bytes.length });
        return res.end(file.bytes);
      }
      const bytes = Buffer.concat(chunks);
      const type = req.headers["content-type"] ?? "";
      let body: unknown;
      if (/^multipart\/form-data/i.test(type)) {
        body = await parseMultipart(bytes, type).catch(() => {
          fake.violations.push(`${req.method} ${url.pathname}: malformed multipart body`);
          return undefined;
        });
      } else {
        const raw = bytes.toString("utf8");
        body = raw;
        try {
          body = raw ? JSON.parse(raw) : undefined;
        } catch {
          fake.violations.push(`${req.method} ${url.pathname}: body is not JSON`);
        }
      }
      const recorded: Recorded = {
        method: req.method ?? "",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
      };
      fake.requests.push(recorded);
      if (fake.redirectTo) {
        res.writeHead(307, { Location: `${fake.redirectTo}${req.url ?? "/"}` });
        return res.end();
      }
      try {
        const reply = await handler(recorded, fake);
        if (reply === "hang") return; // held open until the client gives up or the fake closes
        const payload = reply.bytes ?? Buffer.from(JSON.stringify(reply.json ?? {}));
        res.writeHead(reply.status, { "Content-Type": reply.type ?? "application/json", ...reply.headers });
        res.end(payload);
      } catch (err) {
        fake.violations.push(`handler crashed: ${String(err)}`);
        res.writeHead(500, { "Content-Type": "application/json" });
        res.end("{}");
      }
    });
  });
  return fake;
}

/** A multipart body as the fakes read it: text fields and files by name, each name possibly repeated. */
export type MultipartBody = {
  multipart: true;
  fields: Record<string, string[]>;
  files: Record<string, { bytes: Buffer; type: string; filename: string }[]>;
};

/** Parses multipart/form-data with the platform's own parser, as a server framework would. */
async function parseMultipart(bytes: Buffer, contentType: string): Promise<MultipartBody> {
  const form = await new Request("http://fake/", {
    method: "POST",
    headers: { "content-type": contentType },
    body: new Uint8Array(bytes),
  }).formData();
  const body: MultipartBody = { multipart: true, fields: {}, files: {} };
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") {
      body.fields[name] = [...(body.fields[name] ?? []), value];
      continue;
    }
    const file = { bytes: Buffer.from(await value.arrayBuffer()), type: value.type, filename: value.name };
    body.files[name] = [...(body.files[name] ?? []), file];
  }
  return body;
}

export function multipartOf(value: unknown): MultipartBody | null {
  return value && typeof value === "object" && (value as MultipartBody).multipart === true
    ? (value as MultipartBody)
    : null;
}

/** Decodes a data: URI or base64 string an API received; null when it is not an image. */
export async function imageFromBase64(
  value: unknown,
): Promise<{ width: number; height: number; channels: number } | null> {
  if (typeof value !== "string") return null;
  const base64 = value.replace(/^data:image\/[\w+]+;base64,/, "");
  try {
    const meta = await sharp(Buffer.from(base64, "base64")).metadata();
    return meta.width && meta.height ? { width: meta.width, height: meta.height, channels: meta.channels ?? 0 } : null;
  } catch {
    return null;
  }
}

/** A real image of the given size: a gradient, so decoders and croppers have something to chew on. */
export async function imageOf(width: number, height: number, format: "png" | "jpeg" = "png"): Promise<Buffer> {
  const channels = 3;
  const data = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      data[i] = (x * 255) / width;
      data[i + 1] = (y * 255) / height;
      data[i + 2] = 128;
    }
  }
  const img = sharp(data, { raw: { width, height, channels } });
  return format === "png" ? img.png({ compressionLevel: 1 }).toBuffer() : img.jpeg().toBuffer();
}

/** Bytes that claim to be an image and are not: a malformed provider answer. */
export const NOT_AN_IMAGE = Buffer.from("\x89PNG\r\n\x1a\n this is not really a png");

export function expectHeader(fake: Fake, req: Recorded, name: string, expected: string | RegExp) {
  const value = req.headers[name.toLowerCase()];
  const ok = typeof expected === "string" ? value === expected : typeof value === "string" && expected.test(value);
  if (!ok) fake.violations.push(`${req.path}: header ${name} was ${String(value)}`);
}

export function expect(fake: Fake, condition: boolean, message: string) {
  if (!condition) fake.violations.push(message);
}

export function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export const isMultipleOf32InFluxRange = (n: unknown) =>
  typeof n === "number" && Number.isInteger(n) && n % 32 === 0 && n >= 256 && n <= 1440;
