// server.ts's handler for GET and HEAD /cdn/*: the route's answer written to the socket with Content-Length, and
// the image piped with backpressure, so a slow reader holds the file open but never in memory.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeWebStream } from "node:stream/web";
import type { ImageStorage } from "@/lib/storage/types";
import { replyWithImage } from "./serve-image";

const CDN_PATH = /^\/cdn\/([^/?#]*)(?:[?#]|$)/;

/** Answers the request and returns true when it is a GET or HEAD under /cdn/; else leaves it to Next. */
export function serveCdnRequest(storage: ImageStorage, req: IncomingMessage, res: ServerResponse): boolean {
  const method = req.method === "HEAD" ? "HEAD" : req.method === "GET" ? "GET" : null;
  const file = method && CDN_PATH.exec(req.url ?? "")?.[1];
  if (!method || file === undefined || file === null) return false;
  sendImage(storage, file, method, req, res).catch((err: unknown) => {
    console.error(JSON.stringify({ level: "error", msg: "cdn request failed", error: String(err) }));
    if (!res.headersSent) {
      res.writeHead(500, { "Content-Type": "application/json", "Cache-Control": "no-store" });
      res.end(JSON.stringify({ success: false, error: { code: "server_error", message: "Unexpected server error." } }));
    } else {
      res.destroy();
    }
  });
  return true;
}

async function sendImage(
  storage: ImageStorage,
  file: string,
  method: "GET" | "HEAD",
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const reply = await replyWithImage(storage, file, { method, ifNoneMatch: req.headers["if-none-match"] ?? null });
  if (typeof reply.body === "string") reply.headers["Content-Length"] = String(Buffer.byteLength(reply.body));
  res.writeHead(reply.status, reply.headers);
  if (reply.body === null || typeof reply.body === "string") {
    res.end(reply.body ?? undefined);
    return;
  }
  try {
    await pipeline(Readable.fromWeb(reply.body as NodeWebStream<Uint8Array>), res);
  } catch (err) {
    // A client that goes away mid-image is normal; pipeline has already closed the file.
    if ((err as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE") throw err;
  }
}
