// Intermediate images from GPU servers (ComfyUI's binary preview frames, A1111's `current_image`) on their way to the
// job's onPreview: checked to be an image of a sane size, WebP turned into PNG, identical repeats dropped, in order.
import sharp from "sharp";
import type { GenerateJob } from "@/lib/engines/types";
import { log } from "@/lib/log";

/** Larger than any preview a server sends (ComfyUI caps them at 512 px; A1111's are the image's size, ≤ 2 MP). */
export const MAX_PREVIEW_BYTES = 4 * 1024 * 1024;
const MAX_PREVIEW_SIDE = 2048;
/** Previews waiting for their check; past either bound, new ones are dropped until the check catches up. */
const MAX_PENDING = 16;
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/** ComfyUI's binary websocket events (server.py BinaryEventTypes, protocol.py): a big-endian u32 before the payload. */
export const COMFY_BINARY = {
  /** [u32 format: 1 JPEG, 2 PNG][image bytes]: what every ComfyUI sends for a sampler preview. */
  PREVIEW_IMAGE: 1,
  /** The server's internal name for an image it encodes and sends as PREVIEW_IMAGE; read the same way here. */
  UNENCODED_PREVIEW_IMAGE: 2,
  /** [u32 node id length][node id][text]: progress text, not an image. */
  TEXT: 3,
  /** [u32 metadata length][metadata JSON: prompt_id, node_id, image_type][image bytes], to clients that declared it. */
  PREVIEW_IMAGE_WITH_METADATA: 4,
} as const;

export type ComfyPreview = { image: Buffer; promptId?: string };

/** The image in a ComfyUI binary frame, or undefined for frames that carry none or are malformed. */
export function comfyPreviewOf(frame: Buffer): ComfyPreview | undefined {
  if (frame.length < 8) return undefined;
  const event = frame.readUInt32BE(0);
  if (event === COMFY_BINARY.PREVIEW_IMAGE || event === COMFY_BINARY.UNENCODED_PREVIEW_IMAGE) {
    return { image: frame.subarray(8) };
  }
  if (event !== COMFY_BINARY.PREVIEW_IMAGE_WITH_METADATA) return undefined;
  const length = frame.readUInt32BE(4);
  if (length > frame.length - 8) return undefined;
  let promptId: string | undefined;
  try {
    const metadata = JSON.parse(frame.subarray(8, 8 + length).toString("utf8"));
    promptId = typeof metadata?.prompt_id === "string" ? metadata.prompt_id : undefined;
  } catch {
    return undefined;
  }
  return { image: frame.subarray(8 + length), promptId };
}

export type PreviewSink = {
  /** Hands one encoded image on (copied: the caller's buffer may be reused). */
  offer: (image: Buffer) => void;
  /** Accepts nothing more, and resolves once what was offered before is delivered or dropped. */
  close: () => Promise<void>;
};

const IGNORE: PreviewSink = { offer: () => undefined, close: async () => undefined };

/** A sink for the job's onPreview, or one that ignores everything when nobody listens. */
export function previewSinkFor(job: Pick<GenerateJob, "onPreview" | "requestId">): PreviewSink {
  const listener = job.onPreview;
  if (!listener) return IGNORE;
  let chain: Promise<void> = Promise.resolve();
  let pending = 0;
  let pendingBytes = 0;
  let closed = false;
  let last: Buffer | undefined;
  const deliver = (image: Buffer) => {
    if (last?.equals(image)) return;
    last = image;
    try {
      listener(image);
    } catch (err) {
      log.warn("preview listener failed", { request_id: job.requestId, detail: String(err) });
    }
  };
  return {
    offer(image) {
      if (closed || image.length === 0 || image.length > MAX_PREVIEW_BYTES) return;
      if (pending >= MAX_PENDING || pendingBytes + image.length > MAX_PENDING_BYTES) return;
      const copy = Buffer.from(image);
      pending++;
      pendingBytes += copy.length;
      chain = chain
        .then(() => checked(copy))
        .then((ok) => ok && deliver(ok))
        .catch(() => undefined)
        .finally(() => {
          pending--;
          pendingBytes -= copy.length;
        });
    },
    async close() {
      closed = true;
      await chain;
    },
  };
}

/** PNG and JPEG pass as they are; WebP (A1111 with samples_format webp) becomes PNG; anything else is dropped. */
async function checked(image: Buffer): Promise<Buffer | undefined> {
  const meta = await sharp(image, { limitInputPixels: MAX_PREVIEW_SIDE * MAX_PREVIEW_SIDE })
    .metadata()
    .catch(() => undefined);
  if (!meta?.width || !meta.height || meta.width > MAX_PREVIEW_SIDE || meta.height > MAX_PREVIEW_SIDE) return undefined;
  if (meta.format === "png" || meta.format === "jpeg") return image;
  if (meta.format === "webp") return sharp(image).png({ compressionLevel: 3 }).toBuffer();
  return undefined;
}
