// `npm run bench -- --enhance-routes-only`: what Darkroom adds over a remote enhance route. Stability's fast upscaler
// (its loopback fake, which answers at 4×) called directly, against POST /api/enhance routed to it: in quality (the
// answer resized to the target and blended over the lanczos3 base) and in faces (the answer resized only). Each
// Darkroom request also decodes the upload, encodes the PNG and stores it with its record. Interleaved rounds, one
// request at a time, so machine drift hits every variant alike; the added time is each p50 (p99) minus the direct one.
import sharp from "sharp";
import { STABILITY_KEY, startStabilityFake } from "../tests/fakes/stability";
import { createKey, startApp } from "../tests/helpers/app";
import { call, enhance, multipart } from "../tests/helpers/http";
import { pngOf } from "../tests/helpers/images";
import type { Table } from "./neural";

const percentile = (v: number[], p: number) =>
  [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))];
const fmt = (n: number, d = 1) => n.toFixed(d);
/** The aim of issue 29: at most this much added at p50. */
const AIM_MS = 15;

export async function benchEnhanceRoutes(rounds = Number(process.env.BENCH_ROUNDS ?? 40)): Promise<Table> {
  const fake = await startStabilityFake();
  const app = await startApp({
    name: "bench-enhance-routes",
    env: {
      STABILITY_API_KEY: STABILITY_KEY,
      STABILITY_BASE_URL: fake.url,
      ENHANCE_QUALITY: "stability:fast",
      ENHANCE_FACES: "stability:fast",
      PRO_REQUESTS_PER_DAY: "100000",
    },
  });
  try {
    const auth = { Authorization: `Bearer ${(await createKey(app, "bench-enhance-routes")).key}` };
    // 256×192 → 512×384 at scale 2; the fake answers 1024×768, which Darkroom resizes to the target.
    const png = await pngOf(256, 192);
    // The same picture as a JPEG: not a plain PNG, so Darkroom encodes the PNG the route gets.
    const jpeg = await sharp(png).jpeg({ quality: 90 }).toBuffer();
    const timed = async (send: () => Promise<{ status: number; text: string }>) => {
      const t = performance.now();
      const res = await send();
      const ms = performance.now() - t;
      if (res.status !== 200) throw new Error(`bench request failed: ${res.status} ${res.text.slice(0, 200)}`);
      return ms;
    };
    const direct = async () => {
      // What the route sends: the upload as PNG, output_format png, Accept image/*.
      const { body, contentType } = await multipart({
        image: { data: png, type: "image/png", name: "image.png" },
        output_format: "png",
      });
      return timed(() =>
        call(fake.url, "/v2beta/stable-image/upscale/fast", {
          method: "POST",
          headers: { Authorization: `Bearer ${STABILITY_KEY}`, Accept: "image/*", "Content-Type": contentType },
          body,
        }),
      );
    };
    const via =
      (model: string, fields: Record<string, string> = {}, image = { data: png, type: "image/png" }) =>
      () =>
        timed(() => enhance(app.url, { image, model, scale: "2", ...fields }, { headers: auth }));
    const variants = {
      direct,
      quality: via("quality"),
      qualityFull: via("quality", { strength: "1" }),
      qualityJpeg: via("quality", {}, { data: jpeg, type: "image/jpeg" }),
      faces: via("faces"),
    };
    type Name = keyof typeof variants;
    const times = Object.fromEntries(Object.keys(variants).map((k) => [k, [] as number[]])) as Record<Name, number[]>;
    for (const fn of Object.values(variants)) await fn(); // warm-up: first compiles, first connections
    for (let r = 0; r < rounds; r++) {
      for (const [name, fn] of Object.entries(variants) as [Name, () => Promise<number>][])
        times[name].push(await fn());
    }
    if (fake.violations.length > 0) throw new Error(`the fake saw bad requests: ${fake.violations.join("; ")}`);
    const p = (name: Name, q: number) => percentile(times[name], q);
    const row = (label: string, name: Name): string[] => {
      const added = p(name, 50) - p("direct", 50);
      return [
        label,
        fmt(p(name, 50)),
        fmt(p(name, 99)),
        name === "direct" ? "—" : fmt(added),
        name === "direct" ? "—" : fmt(p(name, 99) - p("direct", 99)),
        name === "direct" ? "—" : added <= AIM_MS ? "met" : "over",
      ];
    };
    return {
      head: [
        "remote enhance route (stability:fast fake, 256×192 → 512×384)",
        "p50 ms",
        "p99 ms",
        "added p50",
        "added p99",
        `aim ≤ ${AIM_MS} ms`,
      ],
      rows: [
        row("the fake called directly (baseline)", "direct"),
        row("POST /api/enhance, quality (resize + blend)", "quality"),
        row("POST /api/enhance, quality at strength 1 (resize only)", "qualityFull"),
        row("POST /api/enhance, quality, a JPEG upload (PNG encoded for the route)", "qualityJpeg"),
        row("POST /api/enhance, faces (resize only)", "faces"),
      ],
      notes: [
        `${rounds} interleaved rounds after a warm-up, one request at a time; p99 of ${rounds} is their slowest.`,
        "Added time is Darkroom's whole path around the route: upload parse and checks, decode, the route's answer",
        "checked and resized to the target (and blended in quality), the PNG encoded and stored with its record.",
        "A plain PNG upload goes to the route as it is; the JPEG row pays for decoding it and encoding the route's PNG.",
      ],
    };
  } finally {
    await app.stop();
    await fake.close();
  }
}
