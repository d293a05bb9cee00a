// Reads an opened stored object to its end, for the few callers that need all of its bytes at once.
import type { OpenedImage } from "./types";

export async function readAll(opened: OpenedImage): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const reader = opened.stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
