// What the GPU enhance route API suites (AUTOMATIC1111, ComfyUI) share: the photo they send, the wait a loaded
// machine needs, the size of the image behind a returned URL, and the check that a mode is served by a given route.
import assert from "node:assert/strict";
import sharp from "sharp";
import { call, enhance } from "./http";

/** How long a call may take on a loaded machine. */
export const WAIT = { timeoutMs: 120_000 };

/** A plain 120×80 PNG photo in one colour. */
export function photoOf(background: string): Promise<Buffer> {
  return sharp({ create: { width: 120, height: 80, channels: 3, background } })
    .png()
    .toBuffer();
}

/** "WxH" of the image a returned URL serves (it must resolve). */
export async function sizeAt(url: string): Promise<string> {
  const res = await call(new URL(url).origin, new URL(url).pathname, WAIT);
  assert.equal(res.status, 200);
  const meta = await sharp(res.body).metadata();
  return `${meta.width}x${meta.height}`;
}

/**
 * Enhances `times` photos (once by default) with `fields` (the mode and its options), each from a fresh address;
 * each must answer 200 from `engine` at `size`.
 */
export async function assertServedBy(
  appUrl: string,
  photo: Buffer,
  nextAddress: () => string,
  fields: Record<string, string>,
  expected: { engine: string; size: string; times?: number },
) {
  for (let i = 0; i < (expected.times ?? 1); i++) {
    const res = await enhance(
      appUrl,
      { image: { data: photo, type: "image/png" }, ...fields },
      { from: nextAddress(), ...WAIT },
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.engine, expected.engine);
    assert.equal(res.json.enhanced_size, expected.size);
  }
}
