// The finish in bands (lib/enhance/finish.ts): the workers each sharpen, resize and blend a band of rows, and the
// bands together must be the whole image's finish byte for byte, with no seam where two bands meet.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { blendOver } from "@/lib/enhance/blend";
import {
  type Band,
  type FinishTimings,
  finishBand,
  MIN_BAND_ROWS,
  planBands,
  resizeLanczos,
  SHARPEN_HALO,
  sharpenBand,
  sharpenTo,
} from "@/lib/enhance/finish";
import type { RawImage } from "@/lib/enhance/types";
import { loadTestPhoto } from "../fixtures/photos";

const [W, H] = [150, 130];

/** Rows where two of `bands` meet, with `reach` rows either side. */
function rowsNearCuts(bands: Band[], reach: number): Set<number> {
  const rows = new Set<number>();
  for (const { y0 } of bands.slice(1)) for (let y = y0 - reach; y < y0 + reach; y++) rows.add(y);
  return rows;
}

/** The rows whose bytes differ between two images of `width` pixels × `channels`. */
function differingRows(a: Uint8Array, b: Uint8Array, width: number, channels: number): number[] {
  const row = width * channels;
  const out: number[] = [];
  for (let y = 0; y * row < a.length; y++)
    if (!Buffer.from(a.subarray(y * row, (y + 1) * row)).equals(b.subarray(y * row, (y + 1) * row))) out.push(y);
  return out;
}

describe("the finish in bands", () => {
  let rgb: RawImage;
  let rgba: RawImage;
  let detailSource: RawImage;
  before(async () => {
    rgb = await loadTestPhoto(W, H);
    const data = Buffer.alloc(W * H * 4);
    for (let i = 0; i < W * H; i++) {
      rgb.data.copy(data, i * 4, i * 3, i * 3 + 3);
      data[i * 4 + 3] = 255 - (i % 199);
    }
    rgba = { data, width: W, height: H, channels: 4 };
    detailSource = await loadTestPhoto(2 * W, 2 * H); // any RGB at the network's scale
  });

  it("cuts the rows into one band per worker, none thinner than MIN_BAND_ROWS, covering every row once", () => {
    assert.deepEqual(planBands(1024, 2), [
      { y0: 0, y1: 512 },
      { y0: 512, y1: 1024 },
    ]);
    assert.deepEqual(planBands(1000, 3), [
      { y0: 0, y1: 333 },
      { y0: 333, y1: 666 },
      { y0: 666, y1: 1000 },
    ]);
    assert.deepEqual(planBands(MIN_BAND_ROWS * 2 - 1, 4), [{ y0: 0, y1: MIN_BAND_ROWS * 2 - 1 }], "a small image");
    assert.deepEqual(planBands(10, 2), [{ y0: 0, y1: 10 }]);
    assert.equal(planBands(MIN_BAND_ROWS * 3, 8).length, 3);
  });

  it("makes exactly the whole image's pixels, RGB and RGBA, resized or not, at strengths 0 to 1, any band count", async () => {
    for (const input of [rgb, rgba])
      for (const [width, height, strength] of [
        [2 * W, 2 * H, 0.5],
        [2 * W - 7, 2 * H - 3, 1], // the network overshoots the target: resized first, then sharpened
        [3 * W, 3 * H, 0.3], // a 2× output short of a 3× target
        [2 * W, 2 * H, 0], // the base alone: no sharpen
        [2 * W, 2 * H, 1], // RGB: the detail alone, no base; RGBA: the detail with the base's alpha
      ]) {
        const whole = blendOver(
          await resizeLanczos(input, width, height),
          await sharpenTo(detailSource, width, height),
          strength,
        );
        for (const count of [2, 3, 7]) {
          const bands = Array.from({ length: count }, (_, i) => ({
            y0: Math.floor((i * height) / count),
            y1: Math.floor(((i + 1) * height) / count),
          }));
          const out = new Uint8Array(width * height * input.channels);
          const timings: FinishTimings = { sharpen: 0, base: 0, blend: 0, encode: 0 };
          const job = { input, detailSource, strength, out, width, height };
          // In reverse, each band on its own: no band may lean on another having run.
          for (const band of [...bands].reverse()) await finishBand(job, band, timings);
          const where = `${input.channels} channels, ${width}×${height}, strength ${strength}, ${count} bands`;
          assert.deepEqual(differingRows(out, whole, width, input.channels), [], where);
          if (strength > 0 && strength < 1) assert.ok(timings.sharpen > 0 && timings.base > 0, "the stages are timed");
        }
      }
  });

  it("needs its halo: without it the sharpen differs at the band edges and only there", async () => {
    const [width, height] = [2 * W, 2 * H];
    const whole = await sharpenTo(detailSource, width, height);
    const bands = planBands(height, 4);
    assert.equal(bands.length, 4);
    const banded = async (halo: number) =>
      Buffer.concat(await Promise.all(bands.map((band) => sharpenBand(detailSource, width, height, band, halo))));
    const seams = differingRows(await banded(0), whole, width, 3);
    assert.ok(seams.length > 0, "with no halo the band edges differ");
    const near = rowsNearCuts(bands, SHARPEN_HALO);
    assert.deepEqual(
      seams.filter((y) => !near.has(y)),
      [],
      "only rows at the cuts differ",
    );
    assert.deepEqual(differingRows(await banded(SHARPEN_HALO), whole, width, 3), [], "the halo makes them equal");
    assert.ok(SHARPEN_HALO >= 1, "a finish in bands has a halo");
  });
});
