// Reads a tfjs layers model's weight shards and re-lays Keras kernels out for ONNX.

export type WeightSpec = {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: { dtype: "uint8" | "uint16" | "float16"; scale?: number; min?: number };
};

export type WeightsManifest = { paths: string[]; weights: WeightSpec[] }[];

/** Every weight as float32, in manifest order; quantized weights are dequantized. */
export function decodeWeights(manifest: WeightsManifest, shards: Buffer[]): Map<string, Float32Array> {
  const all = Buffer.concat(shards);
  const out = new Map<string, Float32Array>();
  let offset = 0;
  for (const w of manifest.flatMap((group) => group.weights)) {
    const n = w.shape.reduce((a, b) => a * b, 1);
    const q = w.quantization;
    const arr = new Float32Array(n);
    if (!q) {
      if (w.dtype !== "float32") throw new Error(`unsupported weight dtype ${w.dtype} for ${w.name}`);
      for (let i = 0; i < n; i++) arr[i] = all.readFloatLE(offset + i * 4);
      offset += n * 4;
    } else if (q.dtype === "uint8" || q.dtype === "uint16") {
      const bytes = q.dtype === "uint8" ? 1 : 2;
      for (let i = 0; i < n; i++) {
        const v = bytes === 1 ? all[offset + i] : all.readUInt16LE(offset + i * 2);
        arr[i] = v * (q.scale ?? 1) + (q.min ?? 0);
      }
      offset += n * bytes;
    } else if (q.dtype === "float16") {
      for (let i = 0; i < n; i++) arr[i] = convertHalfToFloat(all.readUInt16LE(offset + i * 2));
      offset += n * 2;
    } else {
      throw new Error(`unsupported quantization ${JSON.stringify(q)} for ${w.name}`);
    }
    out.set(w.name, arr);
  }
  if (offset !== all.length) throw new Error(`weight bytes mismatch: read ${offset}, have ${all.length}`);
  return out;
}

function convertHalfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * 2 ** -14 * (f / 1024);
  if (e === 31) return f ? NaN : s * Infinity;
  return s * 2 ** (e - 15) * (1 + f / 1024);
}

/** Keras kernel [kh, kw, cin, cout] → ONNX [cout, cin, kh, kw]. */
export function transposeKernel(k: Float32Array, kh: number, kw: number, cin: number, cout: number): Float32Array {
  const o = new Float32Array(k.length);
  for (let y = 0; y < kh; y++)
    for (let x = 0; x < kw; x++)
      for (let ci = 0; ci < cin; ci++)
        for (let co = 0; co < cout; co++)
          o[((co * cin + ci) * kh + y) * kw + x] = k[((y * kw + x) * cin + ci) * cout + co];
  return o;
}

/**
 * UpSampling2D(nearest, s) then Conv2D(k×k, same) equals a low-resolution Conv2D(k'×k', cout·s²) followed by
 * DepthToSpace(s, DCR): each output phase sums the kernel taps that land on the same low-resolution pixel.
 * Same FLOPs, but no s²-times larger tensor at output resolution.
 */
export function foldUpsampleKernel(
  kernel: Float32Array,
  bias: Float32Array,
  k: number,
  cin: number,
  cout: number,
  s: number,
) {
  const r = (k - 1) / 2;
  const rl = Math.ceil(r / s);
  const kl = 2 * rl + 1;
  const coutL = cout * s * s;
  const w = new Float32Array(coutL * cin * kl * kl);
  for (let a = 0; a < s; a++)
    for (let b = 0; b < s; b++)
      for (let co = 0; co < cout; co++) {
        const oc = (a * s + b) * cout + co; // DCR channel order
        for (let ci = 0; ci < cin; ci++)
          for (let dy = -r; dy <= r; dy++)
            for (let dx = -r; dx <= r; dx++) {
              const ky = Math.floor((a + dy) / s) + rl;
              const kx = Math.floor((b + dx) / s) + rl;
              w[((oc * cin + ci) * kl + ky) * kl + kx] += kernel[((co * cin + ci) * k + (dy + r)) * k + (dx + r)];
            }
      }
  const b2 = new Float32Array(coutL);
  for (let i = 0; i < s * s; i++) b2.set(bias, i * cout);
  return { kernel: w, bias: b2, k: kl, radius: rl, cout: coutL };
}
