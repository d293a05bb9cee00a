// ComfyUI's /ws event stream for one client id: JSON frames { type, data }, and binary frames (sampler previews).
import WebSocket from "ws";
import { LocalServerError, networkError } from "./http";
import { MAX_PREVIEW_BYTES } from "./previews";

export type ComfyMessage = { type: string; data: Record<string, unknown> };

const OPEN_TIMEOUT_MS = 5_000;
/** The largest frame read at all: a preview and its header. A larger one closes the socket (ws answers 1009). */
export const MAX_FRAME_BYTES = MAX_PREVIEW_BYTES + 64 * 1024;
/** ComfyUI's JSON frames are a few KiB at most; larger text frames are dropped unread. */
export const MAX_JSON_FRAME_BYTES = 1024 * 1024;

export type ComfySocket = {
  /** Resolves when the socket closes or fails, whatever the reason. */
  closed: Promise<void>;
  isOpen: () => boolean;
  close: () => void;
};

/** Opens the socket and waits for the server's first `status` frame, so no later frame for this client is missed. */
export function openComfySocket(
  httpBase: string,
  path: string,
  headers: Record<string, string>,
  /** Hears each JSON frame and its size; answering "drop" closes the socket at once. */
  onMessage: (message: ComfyMessage, bytes: number) => "drop" | undefined,
  signal: AbortSignal,
  /** Hears each binary frame; answering "drop" closes the socket at once. */
  onBinary: (frame: Buffer) => "drop" | undefined = () => undefined,
): Promise<ComfySocket> {
  const url = `${httpBase.replace(/^http/, "ws")}${path}`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, handshakeTimeout: OPEN_TIMEOUT_MS, maxPayload: MAX_FRAME_BYTES });
    let ready = false;
    let onClosed: () => void = () => undefined;
    const closed = new Promise<void>((r) => {
      onClosed = r;
    });
    const fail = (err: unknown) => {
      if (ready) return;
      ready = true;
      cleanup();
      ws.terminate();
      reject(signal.aborted ? signal.reason : err);
    };
    const onAbort = () => fail(signal.reason);
    const timer = setTimeout(
      () => fail(new LocalServerError("timeout", "the websocket did not say hello in time")),
      OPEN_TIMEOUT_MS,
    );
    const cleanup = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    };
    signal.addEventListener("abort", onAbort, { once: true });

    // A newer ComfyUI then names the prompt in each preview (PREVIEW_IMAGE_WITH_METADATA); older ones ignore it.
    ws.on("open", () => ws.send(JSON.stringify({ type: "feature_flags", data: { supports_preview_metadata: true } })));
    ws.on("message", (raw, isBinary) => {
      if (isBinary) {
        const frame = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
        if (ready && onBinary(frame) === "drop") ws.terminate();
        return;
      }
      const text = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
      if (text.length > MAX_JSON_FRAME_BYTES) return;
      let message: ComfyMessage;
      try {
        const parsed = JSON.parse(text.toString("utf8"));
        if (typeof parsed?.type !== "string") return;
        message = { type: parsed.type, data: typeof parsed.data === "object" && parsed.data ? parsed.data : {} };
      } catch {
        return;
      }
      if (!ready && message.type === "status") {
        ready = true;
        cleanup();
        resolve({ closed, isOpen: () => ws.readyState === WebSocket.OPEN, close: () => ws.terminate() });
      }
      if (onMessage(message, text.length) === "drop") {
        fail(new LocalServerError("malformed", "the websocket was dropped for flooding"));
        ws.terminate();
      }
    });
    ws.on("unexpected-response", (_req, res) => {
      fail(new LocalServerError("http", `websocket upgrade answered ${res.statusCode}`, { status: res.statusCode }));
      res.resume();
    });
    ws.on("error", (err) => fail(networkError(err, url.replace(/^ws/, "http"))));
    ws.on("close", () => {
      fail(new LocalServerError("network", "the websocket closed before saying hello"));
      onClosed();
    });
  });
}

/** What may concern our prompt before POST /prompt names it; other frames are counted and dropped. */
const EARLY_TYPES = new Set(["execution_start", "executing", "progress", "execution_error", "execution_interrupted"]);
/** A real server sends a handful of frames in that moment; this many (or this many bytes) is a flood. */
export const EARLY_MAX_FRAMES = 256;
export const EARLY_MAX_BYTES = 1024 * 1024;

/**
 * The frames that arrive between opening the socket and POST /prompt's answer, kept for when the prompt id is known.
 * Bounded by count and bytes (every frame counts, kept or not); only the latest `progress` is kept.
 */
export class EarlyFrames {
  private kept: ComfyMessage[] = [];
  private frames = 0;
  private bytes = 0;

  /** False once the server has sent more than a real one would: the caller drops the socket. */
  add(message: ComfyMessage, bytes: number): boolean {
    this.frames++;
    this.bytes += bytes;
    if (this.frames > EARLY_MAX_FRAMES || this.bytes > EARLY_MAX_BYTES) {
      this.kept = [];
      return false;
    }
    if (!EARLY_TYPES.has(message.type)) return true;
    if (message.type === "progress" && this.kept.at(-1)?.type === "progress") this.kept.pop();
    this.kept.push(message);
    return true;
  }

  /** The kept frames, in order; the buffer is empty after. */
  take(): ComfyMessage[] {
    return this.kept.splice(0);
  }
}
