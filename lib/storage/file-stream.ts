// A Web ReadableStream over an open file that reads only when its consumer pulls, so a slow reader holds at most
// one chunk in memory instead of the whole file.
import type { FileHandle } from "node:fs/promises";

/** Bytes read per pull. */
export const CHUNK_BYTES = 64 * 1024;

/** Streams `size` bytes of `handle` from the start; closes the handle at the end, on error and on cancel. */
export function streamFile(handle: FileHandle, size: number, chunkBytes = CHUNK_BYTES): ReadableStream<Uint8Array> {
  let position = 0;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const want = Math.min(chunkBytes, size - position);
          if (want <= 0) {
            await close();
            controller.close();
            return;
          }
          const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(want), 0, want, position);
          // Stored images never change after their rename, so a short read means the file is damaged; failing
          // the stream beats sending fewer bytes than the Content-Length promised.
          if (bytesRead === 0) throw new Error(`file ended at ${position} of ${size} bytes`);
          position += bytesRead;
          controller.enqueue(buffer.subarray(0, bytesRead));
          if (position >= size) {
            await close();
            controller.close();
          }
        } catch (err) {
          await close().catch(() => {});
          controller.error(err);
        }
      },
      cancel: close,
    },
    // One chunk read ahead lets the disk and the socket overlap, and bounds what waits in memory.
    { highWaterMark: 1 },
  );
}
