// Moving pixel buffers into shared memory for the workers without stalling the event loop on one big copy.
import { setImmediate as yieldToLoop } from "node:timers/promises";

/** Bytes copied per turn of the event loop: about a millisecond of memcpy. */
const COPY_CHUNK = 4 << 20;

/** The bytes in a SharedArrayBuffer: the same memory when they already are one, else a copy (see copyToShared). */
export function toShared(bytes: Uint8Array): Promise<SharedArrayBuffer> {
  const whole =
    bytes.buffer instanceof SharedArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole ? Promise.resolve(bytes.buffer as SharedArrayBuffer) : copyToShared(bytes);
}

/** A copy of the bytes in a new SharedArrayBuffer, a chunk per turn of the event loop. */
export async function copyToShared(bytes: Uint8Array): Promise<SharedArrayBuffer> {
  const shared = new SharedArrayBuffer(bytes.byteLength);
  const view = new Uint8Array(shared);
  for (let i = 0; i < bytes.byteLength; i += COPY_CHUNK) {
    if (i > 0) await yieldToLoop();
    view.set(bytes.subarray(i, i + COPY_CHUNK), i);
  }
  return shared;
}

/** A Buffer over shared memory, for sharp and the rest of the pipeline (no copy). */
export function bufferOf(shared: SharedArrayBuffer): Buffer {
  return Buffer.from(shared);
}
