// What an MCP tool result carries inline: the image itself when small, else a downscaled JPEG whose base64 stays
// under 1 MB; formats MCP clients may not show (AVIF) are re-encoded.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { describe, it } from "node:test";
import sharp from "sharp";
import { INLINE_MAX_BYTES, inlineCopy } from "@/lib/features/mcp/inline";

/** A PNG of random pixels: it does not compress, so 1024² is about 3 MB. */
function noisyPng(width: number, height: number) {
  return sharp(crypto.randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

describe("the inline copy of an MCP result's image", () => {
  it("is the image itself when it is small and a format clients show", async () => {
    const small = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#3a6" } })
      .png()
      .toBuffer();
    assert.deepEqual(await inlineCopy(small), { data: small, mimeType: "image/png" });
  });

  it("is a downscaled JPEG under 1 MB of base64 when the image is large, with its aspect ratio", async () => {
    const large = await noisyPng(1024, 768);
    assert.ok(large.byteLength > 2 * INLINE_MAX_BYTES, `the test image is ${large.byteLength} B`);
    const copy = await inlineCopy(large);
    assert.equal(copy.mimeType, "image/jpeg");
    assert.ok(copy.data.toString("base64").length < 1024 * 1024, `base64 of ${copy.data.byteLength} B`);
    const meta = await sharp(copy.data).metadata();
    assert.equal(meta.format, "jpeg");
    assert.ok((meta.width ?? 0) < 1024 && (meta.width ?? 0) > 100, `width ${meta.width}`);
    assert.ok(Math.abs((meta.width ?? 0) / (meta.height ?? 1) - 4 / 3) < 0.02, "the aspect ratio is kept");
  });

  it("re-encodes an AVIF, which clients may not show, however small", async () => {
    const avif = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#246" } })
      .avif()
      .toBuffer();
    const copy = await inlineCopy(avif);
    assert.equal(copy.mimeType, "image/jpeg");
    assert.equal((await sharp(copy.data).metadata()).format, "jpeg");
  });
});
