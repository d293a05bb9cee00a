// Quota before cost in `npm run bench`: how long an exhausted Free caller waits for its 429 on a 9 MB upload,
// against the same upload refused for its shape (sent as a non-multipart type, answered before quota) in the same run.
import type { App } from "../tests/helpers/app";
import { enhance } from "../tests/helpers/http";
import { noisyPngOf, pngOf } from "../tests/helpers/images";

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

export async function benchQuotaBeforeCost(app: App): Promise<string[][]> {
  const from = "127.0.13.1";
  const browser = { from, headers: { "X-Requested-With": "XMLHttpRequest" } };
  const small = await pngOf(32, 32);
  for (let i = 0; i < 50; i++) {
    const r = await enhance(app.url, { image: { data: small, type: "image/png" } }, browser);
    if (r.status === 429) break;
    if (r.status !== 200) throw new Error(`exhausting the caller: ${r.status} ${r.text}`);
  }
  const big = await noisyPngOf(1730, 1730); // about 9 MB of pixels that do not compress
  const limited: number[] = [];
  const refused: number[] = [];
  for (let i = 0; i < 12; i++) {
    let t = performance.now();
    const r = await enhance(app.url, { image: { data: big, type: "image/png" } }, browser);
    limited.push(performance.now() - t);
    if (r.status !== 429) throw new Error(`expected 429, got ${r.status} ${r.text}`);
    t = performance.now();
    const bad = await enhance(
      app.url,
      { image: { data: big, type: "image/png" } },
      { ...browser, headers: { ...browser.headers, "Content-Type": "application/octet-stream" } },
    );
    refused.push(performance.now() - t);
    if (bad.status !== 400) throw new Error(`expected 400, got ${bad.status} ${bad.text}`);
  }
  const p50 = (v: number[]) => percentile(v, 50);
  return [
    [
      `POST /api/enhance ${(big.length / 1e6).toFixed(1)} MB, refused for shape (400, floor)`,
      "—",
      `p50 ${p50(refused).toFixed(1)} ms`,
      "1.00×",
    ],
    [
      `POST /api/enhance ${(big.length / 1e6).toFixed(1)} MB, exhausted Free caller (429)`,
      "—",
      `p50 ${p50(limited).toFixed(1)} ms · p99 ${percentile(limited, 99).toFixed(1)} ms`,
      `${(p50(limited) / p50(refused)).toFixed(2)}× (no decode, no queue)`,
    ],
  ];
}
