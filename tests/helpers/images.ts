// Test images made on the fly: real encodes with sharp, plus hostile ones (bombs, truncations, disguised SVG).
import zlib from "node:zlib";
import sharp from "sharp";

export async function pngOf(width: number, height: number, opts: { alpha?: boolean } = {}): Promise<Buffer> {
  const channels = opts.alpha ? 4 : 3;
  const data = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      data[i] = (x * 255) / Math.max(1, width - 1);
      data[i + 1] = (y * 255) / Math.max(1, height - 1);
      data[i + 2] = ((x ^ y) & 16) * 8;
      if (channels === 4) data[i + 3] = 200;
    }
  }
  return sharp(data, { raw: { width, height, channels } }).png().toBuffer();
}

/** A JPEG stored landscape with an EXIF orientation that displays it portrait, plus GPS-ish metadata. */
export async function rotatedJpeg(width: number, height: number, orientation = 6): Promise<Buffer> {
  const png = await pngOf(width, height);
  return sharp(png)
    .jpeg()
    .withMetadata({ orientation })
    .withExif({
      IFD0: { Copyright: "test", Artist: "tester" },
      IFD3: { GPSLatitudeRef: "N", GPSLatitude: "51/1 30/1 0/1" },
    })
    .toBuffer();
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body) >>> 0);
  return Buffer.concat([len, body, crc]);
}

/** A decompression bomb: a valid PNG header claiming width×height, with a tiny body. */
export function bombPng(width = 30000, height = 30000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const idat = zlib.deflateSync(Buffer.alloc(1024));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", idat),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

export async function truncatedPng(): Promise<Buffer> {
  const png = await pngOf(256, 256);
  return png.subarray(0, Math.floor(png.length * 0.6));
}

export const SVG_BYTES = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="red"/></svg>',
);

/** A PNG of random noise: it barely compresses, so its size tracks its pixels (about 3 bytes each). */
export async function noisyPngOf(width: number, height: number): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

/** Mean absolute difference per channel over columns [from, to) of two same-size RGB images. */
export function meanDiff(a: Buffer, b: Buffer, width: number, from = 0, to = width): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < a.length; i += 3) {
    const x = (i / 3) % width;
    if (x < from || x >= to) continue;
    for (let c = 0; c < 3; c++) sum += Math.abs(a[i + c] - b[i + c]);
    count += 3;
  }
  return sum / count;
}
