// A large mask is scaled to the output size as libvips decodes it, never held at its own resolution (issue 33,
// item 1): a 5000² PNG of 82 KB was 100 MB of RGBA plus a 25 MB buffer and two 25-million-step loops. This file runs
// in a process of its own (scripts/test.ts), so the peak it reads is this decode's.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import sharp from "sharp";
import { decodeMask } from "@/lib/images/edit-input";

const peakMb = () => process.resourceUsage().maxRSS / 1024;

describe("decoding a large mask", () => {
  it("reads a 5000² mask at 1024² with a peak far below its decoded size", async () => {
    sharp.cache(false);
    const mask = await sharp({ create: { width: 5000, height: 5000, channels: 3, background: "#ffffff" } })
      .png()
      .toBuffer();
    const before = peakMb();
    const decoded = await decodeMask(mask, { width: 1024, height: 1024 }, 25_000_000);
    const grown = peakMb() - before;
    assert.deepEqual([decoded.width, decoded.height, decoded.data[0], decoded.data.at(-1)], [1024, 1024, 255, 255]);
    // At its own resolution the mask alone is 75 MB of RGB (the old decode grew the process by 127 MB).
    assert.ok(grown < 64, `the peak grew by ${grown.toFixed(0)} MB`);
  });
});
