import sharp from "sharp";
import { decodeShared } from "@/lib/enhance/decode";
import { resizeLanczos } from "@/lib/enhance/finish";
import { blendOver } from "@/lib/enhance/blend";
import { encodeEnhanced } from "@/lib/images/encode";
import { STABILITY_KEY, startStabilityFake } from "../tests/fakes/stability";
import { pngOf } from "../tests/helpers/images";
import { createProviderFetch } from "@/lib/engines/providers";
import { createStabilityEnhanceRoute } from "@/lib/enhance/remote/stability";

async function main() {
  const fake = await startStabilityFake();
  const png = await pngOf(256, 192);
  const route = createStabilityEnhanceRoute("fast", { apiKey: STABILITY_KEY, baseUrl: fake.url, fetch: createProviderFetch("stability", { baseUrl: fake.url }), timeoutMs: 60000 });
  const t: Record<string, number[]> = {};
  const time = async <T>(k: string, f: () => Promise<T>) => { const s = performance.now(); const r = await f(); (t[k] ??= []).push(performance.now() - s); return r; };
  for (let i = 0; i < 30; i++) {
    const image = await time("decode upload", () => decodeShared(png, 1e8));
    const sent = await time("png encode for route (level 6)", () => sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } }).png().toBuffer());
    await time("png encode for route (level 1)", () => sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } }).png({ compressionLevel: 1 }).toBuffer());
    await time("metadata of upload", () => sharp(png).metadata());
    const ans = await time("route.run (fake)", () => route.run({ image: sent, width: 256, height: 192, targetWidth: 512, targetHeight: 384, scale: 2, mode: "quality", strength: 0.5, faceRestorer: "gfpgan", requestId: "x", signal: new AbortController().signal }));
    const made = await time("exactSize decode+resize", () => sharp(ans.image, { limitInputPixels: 1e8, failOn: "truncated" }).rotate().toColourspace("srgb").resize(512, 384, { kernel: "lanczos3", fit: "fill" }).removeAlpha().raw().toBuffer());
    const base = await time("lanczos base", () => resizeLanczos(image, 512, 384));
    const data = await time("blend", async () => blendOver(base, made, 0.5, 3));
    await time("encode output", () => encodeEnhanced({ data, width: 512, height: 384, channels: 3 }, { format: "png" } as never));
  }
  for (const [k, v] of Object.entries(t)) { const s = v.slice(5).sort((a, b) => a - b); console.log(k.padEnd(34), "p50", s[Math.floor(s.length / 2)].toFixed(2), "ms"); }
  await fake.close();
}
main();
