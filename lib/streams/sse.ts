// Server-sent events, written once for every stream (a job's events, the /v1 Images stream): the frame, and a
// stream that sends frames, a keep-alive comment while it is quiet, and closes once.

/** A comment this often keeps proxies from closing a quiet stream. */
export const SSE_KEEPALIVE_MS = 15_000;

/** One event's frame: its name and its data as JSON. */
export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

export type SseStream = {
  /** The response body. */
  readonly body: ReadableStream<Uint8Array>;
  /** Sends a frame (nothing once closed); the keep-alive waits a full period after it. */
  send(frame: string): void;
  /** Starts the keep-alive comments. */
  keepAlive(): void;
  /** Ends the stream, once: `onClose` runs, then the body closes. The client leaving closes it too. */
  close(): void;
  readonly closed: boolean;
};

export function sseStream(onClose: () => void = () => undefined, keepAliveMs = SSE_KEEPALIVE_MS): SseStream {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let closed = false;
  let heartbeat: NodeJS.Timeout | undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    onClose();
    try {
      controller?.close();
    } catch {
      // The client cancelled: the stream is closed already.
    }
  };
  const send = (frame: string) => {
    if (closed) return;
    controller?.enqueue(encoder.encode(frame));
    heartbeat?.refresh();
  };
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: close,
  });
  return {
    body,
    send,
    keepAlive() {
      if (heartbeat || closed) return;
      heartbeat = setInterval(() => send(": keep-alive\n\n"), keepAliveMs);
      heartbeat.unref?.();
    },
    close,
    get closed() {
      return closed;
    },
  };
}
