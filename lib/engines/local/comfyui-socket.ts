// ComfyUI's /ws event stream for one client id: JSON frames { type, data }, and binary frames (sampler previews).
import WebSocket from "ws";
import { LocalServerError, networkError } from "./http";

export type ComfyMessage = { type: string; data: Record<string, unknown> };

const OPEN_TIMEOUT_MS = 5_000;

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
  onMessage: (message: ComfyMessage) => void,
  signal: AbortSignal,
  onBinary: (frame: Buffer) => void = () => undefined,
): Promise<ComfySocket> {
  const url = `${httpBase.replace(/^http/, "ws")}${path}`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, handshakeTimeout: OPEN_TIMEOUT_MS, maxPayload: 8 * 1024 * 1024 });
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
        if (ready) onBinary(Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw));
        return;
      }
      let message: ComfyMessage;
      try {
        const parsed = JSON.parse(raw.toString());
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
      onMessage(message);
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
