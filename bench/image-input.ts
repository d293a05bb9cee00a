// `npm run bench`, image input part: what an image adds on the path (upload, decode, mask conversion, the upload to
// the engine) against a text-only request on the same fake engine (a ComfyUI that answers at once), and what each
// extra image costs at n = 4 against n = 1. Interleaved rounds, so machine drift hits every variant alike.
import sharp from "sharp";
import { startComfyFake } from "../tests/fakes/comfyui";
import { createKey, startApp } from "../tests/helpers/app";
import { call, generate, multipart } from "../tests/helpers/http";
import { pngOf } from "../tests/helpers/images";
import type { Table } from "./neural";

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)];
const fmt = (n: number, d = 1) => n.toFixed(d);

async function timed(fn: () => Promise<{ status: number; text: string }>): Promise<number> {
  const t = performance.now();
  const res = await fn();
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`bench request failed: ${res.status} ${res.text.slice(0, 200)}`);
  return ms;
}

export async function benchImageInput(rounds = Number(process.env.BENCH_IMAGE_ROUNDS ?? 15)): Promise<Table> {
  const comfy = await startComfyFake({ name: "bench-image-input" });
  const app = await startApp({
    name: "bench-image-input",
    env: { COMFYUI_URLS: comfy.url, MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl", GENERATE_CONCURRENCY: "4" },
  });
  try {
    const headers = { Authorization: `Bearer ${(await createKey(app, "bench-image-input")).key}` };
    // A 1 MP photo-sized upload and a mask of another size, scaled on the way.
    const photo = await pngOf(1152, 896);
    const maskData = Buffer.alloc(576 * 448);
    for (let i = 0; i < maskData.length; i++) maskData[i] = i % 576 > 288 ? 255 : 0;
    const mask = await sharp(maskData, { raw: { width: 576, height: 448, channels: 1 } })
      .png()
      .toBuffer();
    const base = { prompt: "a red barn in a field", model: "gamma-xl-1024-v1-0", seed: "11" };
    const image = { data: photo, type: "image/png", name: "photo.png" };
    const forms = {
      img2img: await multipart({ ...base, image, strength: "0.6" }),
      inpaint: await multipart({ ...base, image, mask: { data: mask, type: "image/png", name: "mask.png" } }),
    };
    const post = (form: { body: Buffer; contentType: string }) => () =>
      call(app.url, "/api/generate", {
        method: "POST",
        headers: { ...headers, "Content-Type": form.contentType },
        body: form.body,
      });
    const variants: Record<string, () => Promise<{ status: number; text: string }>> = {
      text: () => generate(app.url, { ...base, seed: 11 }, { headers }),
      img2img: post(forms.img2img),
      inpaint: post(forms.inpaint),
      n1: () => generate(app.url, { ...base, seed: 11, n: 1 }, { headers }),
      n4: () => generate(app.url, { ...base, seed: 11, n: 4 }, { headers }),
    };
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
    for (const fn of Object.values(variants)) await timed(fn); // warm-up: first builds, first connections
    for (let r = 0; r < rounds; r++) {
      for (const [name, fn] of Object.entries(variants)) times[name].push(await timed(fn));
    }
    const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
    const extra = (m.n4 - m.n1) / 3;
    return {
      head: ["image input (ComfyUI fake, answers at once)", "median ms", "added ms", "ratio"],
      rows: [
        ["text only (baseline)", fmt(m.text), "—", "1.00×"],
        [
          "img2img: 1152×896 PNG upload, decode, upload to ComfyUI",
          fmt(m.img2img),
          fmt(m.img2img - m.text),
          `${fmt(m.img2img / m.text, 2)}×`,
        ],
        [
          "inpaint: + a 576×448 mask scaled and set as alpha",
          fmt(m.inpaint),
          fmt(m.inpaint - m.text),
          `${fmt(m.inpaint / m.text, 2)}×`,
        ],
        ["n = 1 (baseline for n)", fmt(m.n1), "—", "1.00×"],
        ["n = 4", fmt(m.n4), `${fmt(extra)} per extra image`, `${fmt(m.n4 / m.n1, 2)}×`],
      ],
      notes: [
        `${rounds} interleaved rounds after a warm-up; medians. Each image is a 1024-class PNG stored with its record.`,
        "n = 4 runs its images in parallel (GENERATE_CONCURRENCY 4), so an extra image costs less than a whole request.",
      ],
    };
  } finally {
    await app.stop();
    await comfy.close();
  }
}
