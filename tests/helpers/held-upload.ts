// A client that starts a multipart upload and stops sending part way, as a slow or hostile client does: it declares
// a body, sends the part header and a few bytes (or nothing), then holds the connection open.
import http from "node:http";

export type HeldReply = { status: number; headers: http.IncomingHttpHeaders; text: string; json: unknown } | "closed";

export type HeldUpload = {
  /** Settles when the server answers (or closes the connection); stays pending while the upload is held. */
  reply: Promise<HeldReply>;
  /** True once the server answered or closed. */
  readonly settled: boolean;
  /** Sends more of the body (a trickle). */
  send(bytes: Buffer): void;
  /** Drops the connection. */
  drop(): void;
};

const BOUNDARY = "----darkroom-held-upload";

/** The opening of a multipart body with an `image` file part; the rest never comes. */
export function partHeader(): Buffer {
  return Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
}

export function holdUpload(
  base: string,
  path: string,
  opts: { from?: string; headers?: Record<string, string>; declared: number; first?: Buffer },
): HeldUpload {
  let settled = false;
  const req = http.request(new URL(path, base), {
    method: "POST",
    agent: false,
    localAddress: opts.from,
    headers: {
      "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`,
      "Content-Length": String(opts.declared),
      ...opts.headers,
    },
  });
  const reply = new Promise<HeldReply>((resolve) => {
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => {
        settled = true;
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", () => {
        settled = true;
        resolve("closed");
      });
    });
    req.on("error", () => {
      settled = true;
      resolve("closed");
    });
  });
  req.flushHeaders();
  if (opts.first) req.write(opts.first);
  return {
    reply,
    get settled() {
      return settled;
    },
    send: (bytes) => {
      if (!req.destroyed) req.write(bytes);
    },
    drop: () => req.destroy(),
  };
}
