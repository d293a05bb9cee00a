import sharp from "sharp";
async function main() {
  const ans = await sharp({ create: { width: 1024, height: 768, channels: 3, background: "#c84" } }).png().toBuffer();
  const { pngOf } = await import("../tests/helpers/images");
  const real = await sharp(await pngOf(256,192)).resize(1024,768).png().toBuffer();
  const t: Record<string, number[]> = {};
  const time = async <T>(k: string, f: () => Promise<T>) => { const s = performance.now(); const r = await f(); (t[k] ??= []).push(performance.now() - s); return r; };
  for (let i = 0; i < 40; i++) {
    for (const [n, b] of [["flat", ans], ["grad", real]] as const) {
    const a = await time(n+" as is", () => sharp(b, { limitInputPixels: 1e8, failOn: "truncated" }).rotate().toColourspace("srgb").resize(512, 384, { kernel: "lanczos3", fit: "fill" }).removeAlpha().raw().toBuffer());
    const c = await time(n+" sequentialRead", () => sharp(b, { limitInputPixels: 1e8, failOn: "truncated", sequentialRead: true }).rotate().toColourspace("srgb").resize(512, 384, { kernel: "lanczos3", fit: "fill" }).removeAlpha().raw().toBuffer());
    await time(n+" decode only", () => sharp(b).raw().toBuffer());
    if (!a.equals(c)) console.log("DIFF");
    }
  }
  for (const [k, v] of Object.entries(t)) { const s = v.slice(5).sort((a, b) => a - b); console.log(k.padEnd(34), "p50", s[Math.floor(s.length / 2)].toFixed(2), "ms"); }
}
main();
