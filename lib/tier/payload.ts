// A job's data on its way through Redis: plain JSON, with every byte buffer either inline (small ones, as base64) or
// in the image storage's temporary area (the rest), so that no job keeps more than 1 MiB in Redis (contract 1.3).
// The worker that runs the job reads the buffers back; whoever ends the job deletes the temporary objects.
import { readAll } from "@/lib/storage/read-all";
import type { TempArea } from "@/lib/storage/types";

/** Buffers up to this size ride inside the job (as base64, 4/3 of it). */
export const INLINE_BUFFER_BYTES = 48 * 1024;
/** The most a job's data may take in Redis. */
export const MAX_JOB_DATA_BYTES = 1024 * 1024;

type Packed = { $b64: string } | { $temp: string; size: number };

export type PackedData = { spec: unknown; temp: string[] };

/**
 * Packs `value` (JSON values and Buffers) for a job: buffers over INLINE_BUFFER_BYTES are written to `temp` under
 * keys made from `prefix` (the job's unguessable id). Throws when the rest would still be over MAX_JOB_DATA_BYTES.
 */
export async function packJobData(value: unknown, temp: TempArea, prefix: string): Promise<PackedData> {
  const written: string[] = [];
  const walk = async (v: unknown): Promise<unknown> => {
    if (Buffer.isBuffer(v) || v instanceof Uint8Array) {
      const bytes = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      if (bytes.byteLength <= INLINE_BUFFER_BYTES) return { $b64: bytes.toString("base64") } satisfies Packed;
      const key = `${prefix}_${written.length}`;
      await temp.put(key, bytes);
      written.push(key);
      return { $temp: key, size: bytes.byteLength } satisfies Packed;
    }
    if (ArrayBuffer.isView(v)) throw new TypeError("job data holds a typed array that is not bytes");
    if (Array.isArray(v)) return Promise.all(v.map(walk));
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) if (item !== undefined) out[k] = await walk(item);
      return out;
    }
    return v;
  };
  try {
    const spec = await walk(value);
    const size = Buffer.byteLength(JSON.stringify({ spec, temp: written }));
    if (size > MAX_JOB_DATA_BYTES) throw new RangeError(`job data of ${size} bytes is over ${MAX_JOB_DATA_BYTES}`);
    return { spec, temp: written };
  } catch (err) {
    await dropJobData({ temp: written }, temp);
    throw err;
  }
}

/** The value packJobData packed, its buffers read back; throws when a temporary object is gone. */
export async function unpackJobData<T>(data: PackedData, temp: TempArea): Promise<T> {
  const walk = async (v: unknown): Promise<unknown> => {
    if (Array.isArray(v)) return Promise.all(v.map(walk));
    if (v === null || typeof v !== "object") return v;
    const o = v as Record<string, unknown>;
    if (typeof o.$b64 === "string") return Buffer.from(o.$b64, "base64");
    if (typeof o.$temp === "string") return readTemp(temp, o.$temp);
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(o)) out[k] = await walk(item);
    return out;
  };
  return (await walk(data.spec)) as T;
}

/** Deletes a job's temporary objects; what cannot be deleted now is left to the retention sweep. */
export async function dropJobData(data: Pick<PackedData, "temp">, temp: TempArea): Promise<void> {
  await Promise.all(data.temp.map((key) => temp.delete(key).catch(() => undefined)));
}

async function readTemp(temp: TempArea, key: string): Promise<Buffer> {
  const opened = await temp.open(key);
  if (!opened) throw new Error(`the job's input ${key} is no longer in the temporary area`);
  return readAll(opened);
}
