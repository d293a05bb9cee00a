// Tile layout for super-resolution: a near-equal grid, each tile run with context pixels it then crops away.
// With context ≥ the model's receptive radius a tiled run equals an untiled one, so no seam blending is needed,
// and peak memory follows the tile size instead of the image size.

export type Tile = {
  /** Interior, in input pixels. */
  x: number;
  y: number;
  w: number;
  h: number;
  /** Interior plus context, clipped to the image. */
  ex: number;
  ey: number;
  ew: number;
  eh: number;
};

/**
 * How an image is cut for the network (docs/enhancement.md, "Tiles"), one rule:
 * - context: each tile runs with the model's receptive radius around it, the least that keeps a tiled run
 *   identical to an untiled one, so it is not tuned; each cut costs 2 × radius rows of extra network pixels;
 * - size: at most TILE_PIXELS_PER_THREAD input pixels per ORT thread of a worker: that bounds a session's
 *   working set (about 250 MB at 256²; 512² needed about 900 MB), and below it fewer, larger tiles (less
 *   context) were as fast as smaller ones in `npm run bench -- --neural-speed-only` ("tiles stage by tile size");
 * - count: at least one tile per worker, and a multiple of the workers where the image allows, so no worker
 *   idles while the last tile runs.
 */
export const TILE_PIXELS_PER_THREAD = 256 * 256;

/** The tile side for a worker with `threads` ORT threads (the count comes from planTiles). */
export function chooseTileSize(threads: number): number {
  return Math.floor(Math.sqrt(TILE_PIXELS_PER_THREAD * Math.max(1, threads)));
}

/** [0, n) in k near-equal parts, so there is no sliver of a last tile (or band of the finish). */
export function splitRange(n: number, k: number): [number, number][] {
  return Array.from({ length: k }, (_, i) => [Math.floor((i * n) / k), Math.floor(((i + 1) * n) / k)]);
}

/**
 * A grid of tiles of at most tileSize² (0: one tile). When tiling, there are at least `workers` tiles and, where
 * the image has the pixels for it, a multiple of `workers`: extra cuts go across the longer side of the tiles,
 * so the added context stays small.
 */
export function planTiles(width: number, height: number, tileSize: number, overlap: number, workers = 1): Tile[] {
  let nx = tileSize > 0 ? Math.ceil(width / tileSize) : 1;
  let ny = tileSize > 0 ? Math.ceil(height / tileSize) : 1;
  const more = () => nx * ny < workers || (nx * ny) % workers !== 0;
  while (tileSize > 0 && more() && (nx < width || ny < height)) {
    if ((height / ny >= width / nx && ny < height) || nx >= width) ny++;
    else nx++;
  }
  const tiles: Tile[] = [];
  for (const [y0, y1] of splitRange(height, ny))
    for (const [x0, x1] of splitRange(width, nx)) {
      const ex = Math.max(0, x0 - overlap);
      const ey = Math.max(0, y0 - overlap);
      const ew = Math.min(width, x1 + overlap) - ex;
      const eh = Math.min(height, y1 + overlap) - ey;
      tiles.push({ x: x0, y: y0, w: x1 - x0, h: y1 - y0, ex, ey, ew, eh });
    }
  return tiles;
}

/** Copies a tile's extended region out of an interleaved image as packed RGB (alpha dropped). */
export function extractRegion(data: Uint8Array, width: number, channels: number, t: Tile): Uint8Array {
  const out = new Uint8Array(t.ew * t.eh * 3);
  let d = 0;
  for (let y = 0; y < t.eh; y++) {
    let s = ((t.ey + y) * width + t.ex) * channels;
    if (channels === 3) {
      out.set(data.subarray(s, s + t.ew * 3), d);
      d += t.ew * 3;
      continue;
    }
    for (let x = 0; x < t.ew; x++, s += channels) {
      out[d++] = data[s];
      out[d++] = data[s + 1];
      out[d++] = data[s + 2];
    }
  }
  return out;
}

/** Writes a tile's upscaled interior (packed RGB, w·s × h·s) into the RGB output. */
export function placeTile(out: Uint8Array, outWidth: number, tile: Tile, scale: number, pixels: Uint8Array) {
  const rowBytes = tile.w * scale * 3;
  for (let y = 0; y < tile.h * scale; y++) {
    const d = ((tile.y * scale + y) * outWidth + tile.x * scale) * 3;
    out.set(pixels.subarray(y * rowBytes, (y + 1) * rowBytes), d);
  }
}
