// Surviving a slow-upload attack in `npm run bench`: a legit Pro enhance's time while one Free client holds 16
// half-sent uploads, against the same enhance with no attack, alternated in rounds on one server; then the same on
// 1.1 (the baseline checkout of bench/baseline.ts), side by side in one run.
import { execFileSync } from "node:child_process";
import { createKey, ROOT, startApp } from "../tests/helpers/app";
import { holdUpload, partHeader } from "../tests/helpers/held-upload";
import { enhance } from "../tests/helpers/http";
import { pngOf } from "../tests/helpers/images";
import { BASELINE_COMMIT, baselineCheckout } from "./baseline";

const MAX_INFLIGHT_UPLOAD_BYTES = 128 * 1024 * 1024;
/** The largest enhance body: the 10 MB file limit plus the multipart envelope. */
const MAX_BODY = 10 * 1024 * 1024 + 64 * 1024;

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

type Figures = { calm: number[]; attacked: number[]; calmStatus: number[]; attackedStatus: number[]; refused: number };

/** The legit enhances on the app built from `root`, `perRound` calm then `perRound` under attack, per round. */
async function measure(root: string, rounds: number, perRound: number): Promise<Figures> {
  const app = await startApp({
    name: "bench-upload-attack",
    root,
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
    const figures: Figures = { calm: [], attacked: [], calmStatus: [], attackedStatus: [], refused: 0 };
    for (let round = 0; round < rounds; round++) {
      await legit(figures.calm, figures.calmStatus);
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
      await legit(figures.attacked, figures.attackedStatus);
      figures.refused += uploads.filter((u) => u.settled).length;
      for (const u of uploads) u.drop();
      await Promise.all(uploads.map((u) => u.reply));
    }
    return figures;
  } finally {
    await app.stop();
  }
}

export async function benchUploadAttack(rounds = 4, perRound = 5): Promise<string[][]> {
  const served = (s: number[]) => s.filter((x) => x === 200).length / s.length;
  const ok = (s: number[]) => `${s.filter((x) => x === 200).length}/${s.length} answered 200`;
  const p50 = (v: number[]) => percentile(v, 50);
  const latency = (v: number[]) => `p50 ${p50(v).toFixed(1)} ms · p99 ${percentile(v, 99).toFixed(1)} ms`;
  const now = await measure(ROOT, rounds, perRound);
  const rows = [
    ["Pro POST /api/enhance 64², no attack (baseline)", ok(now.calmStatus), latency(now.calm), "1.00×"],
    [
      "… while one Free client holds 16 half-sent uploads",
      `${ok(now.attackedStatus)} · ${now.refused}/${16 * rounds} attack uploads refused at once`,
      latency(now.attacked),
      `${(p50(now.attacked) / p50(now.calm)).toFixed(2)}×`,
    ],
  ];
  const root = baselineCheckout();
  if (!root) {
    rows.push([`1.1 skipped: commit ${BASELINE_COMMIT} is not in this clone`, "—", "—", "—"]);
    return rows;
  }
  // Built before its server starts (a first build passes startApp's deadline); one round is enough to see it.
  execFileSync("npx", ["tsx", "scripts/build.ts"], { cwd: root, stdio: "inherit" });
  const old = await measure(root, 1, perRound);
  rows.push([
    `… the same attack on 1.1 (${BASELINE_COMMIT})`,
    `${ok(old.attackedStatus)} (no attack: ${ok(old.calmStatus)})`,
    latency(old.attacked),
    `${(served(old.attackedStatus) / Math.max(served(now.attackedStatus), 1e-9)).toFixed(2)}× the share served now`,
  ]);
  return rows;
}
