// A body refused before its end (too large, too many parts, a deadline) is read and dropped for a while before its
// connection closes. Closing at once resets a connection the client is still sending on, and a reset can reach the
// client before the answer, which it then never reads (the "lingering close" of RFC 9112, section 9.6).
import type { Readable } from "node:stream";

/** How long the rest of a refused body is read and dropped before the connection is closed. */
export const REFUSED_BODY_LINGER_MS = 5_000;

/** Drops what is left of `body` as it arrives, and closes it after `lingerMs` if the client is still sending. */
export function discardRefusedBody(
  body: Readable | ReadableStreamDefaultReader<Uint8Array>,
  lingerMs = REFUSED_BODY_LINGER_MS,
): void {
  if ("resume" in body) {
    const close = setTimeout(() => body.destroy(), lingerMs).unref();
    body.once("close", () => clearTimeout(close));
    body.resume();
    return;
  }
  const close = setTimeout(() => void body.cancel().catch(() => {}), lingerMs).unref();
  void (async () => {
    try {
      while (!(await body.read()).done) {}
    } catch {
      // The body failed or was cancelled: nothing is left to drop.
    } finally {
      clearTimeout(close);
    }
  })();
}
