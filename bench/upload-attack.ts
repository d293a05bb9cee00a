// Surviving a slow-upload attack in `npm run bench`: a legit Pro enhance's time while one Free client holds 16
// half-sent uploads, against the same enhance with no attack, alternated in rounds in one run on one server.
import { createKey, startApp } from "../tests/helpers/app";
import { holdUpload, partHeader } from "../tests/helpers/held-upload";
import { enhance } from "../tests/helpers/http";
import { pngOf } from "../tests/helpers/images";

const MAX_INFLIGHT_UPLOAD_BYTES = 128 * 1024 * 1024;
/** The largest enhance body: the 10 MB file limit plus the multipart envelope. */
const MAX_BODY = 10 * 1024 * 1024 + 64 * 1024;

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

export async function benchUploadAttack(rounds = 4, perRound = 5): Promise<string[][]> {
  const app = await startApp({
    name: "bench-upload-attack",
    env: { MAX_INFLIGHT_UPLOAD_BYTES: String(MAX_INFLIGHT_UPLOAD_BYTES), FREE_ENHANCEMENTS_PER_DAY: "1000" },
  });
  try {
    const auth = { Authorization: `Bearer ${(await createKey(app, "bench")).key}` };
    const image = { data: await pngOf(64, 64), type: "image/png" };
    const legit = async (times: number[], statuses: number[]) => {
      for (let i = 0; i < perRound; i++) {
        const t = performance.now();
        const r = await enhance(app.url, { image }, { headers: auth, from: "127.0.19.2" });
        times.push(performance.now() - t);
        statuses.push(r.status);
      }
    };
    await legit([], []); // warm-up
    const calm: number[] = [];
    const attacked: number[] = [];
    const calmStatus: number[] = [];
    const attackedStatus: number[] = [];
    let refused = 0;
    for (let round = 0; round < rounds; round++) {
      await legit(calm, calmStatus);
      // One Free client declares as much as the in-flight budget holds, sends the part header, and stalls.
      let left = MAX_INFLIGHT_UPLOAD_BYTES;
      const uploads = Array.from({ length: 16 }, () => {
        const declared = left > 0 ? Math.min(MAX_BODY, left) : MAX_BODY;
        left -= declared;
        return holdUpload(app.url, "/api/enhance", {
          from: "127.0.19.1",
          headers: { "X-Requested-With": "XMLHttpRequest" },
          declared,
          first: partHeader(),
        });
      });
      await new Promise((r) => setTimeout(r, 500));
      await legit(attacked, attackedStatus);
      refused += uploads.filter((u) => u.settled).length;
      for (const u of uploads) u.drop();
      await Promise.all(uploads.map((u) => u.reply));
    }
    const ok = (s: number[]) => `${s.filter((x) => x === 200).length}/${s.length} answered 200`;
    const p50 = (v: number[]) => percentile(v, 50);
    return [
      [
        "Pro POST /api/enhance 64², no attack (baseline)",
        ok(calmStatus),
        `p50 ${p50(calm).toFixed(1)} ms · p99 ${percentile(calm, 99).toFixed(1)} ms`,
        "1.00×",
      ],
      [
        "… while one Free client holds 16 half-sent uploads",
        `${ok(attackedStatus)} · ${refused}/${16 * rounds} attack uploads refused at once`,
        `p50 ${p50(attacked).toFixed(1)} ms · p99 ${percentile(attacked, 99).toFixed(1)} ms`,
        `${(p50(attacked) / p50(calm)).toFixed(2)}×`,
      ],
    ];
  } finally {
    await app.stop();
  }
}
