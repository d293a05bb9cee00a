// The copy of an image a tool result carries inline: the image itself when it is small, else a downscaled JPEG,
// so that the base64 item stays under 1 MB (contract 1.3). Formats MCP clients may not show (AVIF) are re-encoded.
import sharp from "sharp";

/** Raw bytes whose base64 stays under 1 MB (base64 is 4/3 the size). */
export const INLINE_MAX_BYTES = 700 * 1024;

const SHOWN: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" };

export async function inlineCopy(bytes: Buffer): Promise<{ data: Buffer; mimeType: string }> {
  const meta = await sharp(bytes).metadata();
  const mimeType = SHOWN[meta.format ?? ""];
  if (mimeType && bytes.byteLength <= INLINE_MAX_BYTES) return { data: bytes, mimeType };
  const width = meta.width ?? 1;
  let scale = Math.min(1, Math.sqrt(INLINE_MAX_BYTES / bytes.byteLength));
  for (;;) {
    const data = await sharp(bytes)
      .resize(Math.max(1, Math.round(width * scale)))
      .flatten({ background: "#ffffff" })
      .jpeg({ quality: 85 })
      .toBuffer();
    if (data.byteLength <= INLINE_MAX_BYTES) return { data, mimeType: "image/jpeg" };
    scale *= 0.7;
  }
}
