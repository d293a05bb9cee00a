// `npm run bench -- --storage-only`: what S3 storage costs on the generate path against local files. Two servers on
// the preview engine, one on DATA_DIR and one on a real S3 server (Swift's s3api, tests/helpers/swift-s3.ts);
// interleaved rounds of POST /api/generate (store included) and GET /cdn/<file> (streamed back), p50 and p99.
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { type App, createKey, startApp } from "../tests/helpers/app";
import { call } from "../tests/helpers/http";
import { startSwiftS3 } from "../tests/helpers/swift-s3";
import type { Table } from "./neural";

const percentile = (v: number[], p: number) =>
  [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))];
const fmt = (n: number, d = 1) => n.toFixed(d);

export async function benchStorage(rounds = Number(process.env.BENCH_STORAGE_ROUNDS ?? 30)): Promise<Table> {
  const swift = await startSwiftS3();
  const apps: App[] = [];
  try {
    const credentials = { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey };
    const admin = new S3Client({ region: "us-east-1", endpoint: swift.endpoint, forcePathStyle: true, credentials });
    await admin.send(new CreateBucketCommand({ Bucket: "bench" }));
    admin.destroy();
    const env = { PRO_REQUESTS_PER_DAY: "100000" };
    const local = await startApp({ name: "bench-storage-local", env });
    apps.push(local);
    const s3 = await startApp({
      name: "bench-storage-s3",
      env: {
        ...env,
        S3_BUCKET: "bench",
        S3_FORCE_PATH_STYLE: "true",
        AWS_ENDPOINT_URL_S3: swift.endpoint,
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      },
    });
    apps.push(s3);
    const variants = { local, s3 };
    const keys = {
      local: (await createKey(local, "bench-storage")).key,
      s3: (await createKey(s3, "bench-storage")).key,
    };
    type Name = keyof typeof variants;
    const times = {
      local: { gen: [] as number[], cdn: [] as number[] },
      s3: { gen: [] as number[], cdn: [] as number[] },
    };
    let size = 0;
    // alpha-schnell renders 1024×1024 on the preview engine; the same seed makes every image the same work.
    const body = JSON.stringify({ prompt: "a lighthouse on a cliff at dusk", model: "alpha-schnell", seed: 11 });
    const once = async (name: Name) => {
      const app = variants[name];
      let t = performance.now();
      const res = await call(app.url, "/api/generate", {
        method: "POST",
        headers: { Authorization: `Bearer ${keys[name]}`, "Content-Type": "application/json" },
        body,
      });
      const gen = performance.now() - t;
      if (res.status !== 200) throw new Error(`bench generate failed: ${res.status} ${res.text.slice(0, 200)}`);
      t = performance.now();
      const image = await call(app.url, new URL(res.json.url).pathname);
      const cdn = performance.now() - t;
      if (image.status !== 200) throw new Error(`bench /cdn failed: ${image.status}`);
      size = image.body.length;
      return { gen, cdn };
    };
    for (const name of ["local", "s3"] as const) await once(name); // warm-up: first compiles, first connections
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first, so neither always follows the other's work.
      for (const name of r % 2 ? (["s3", "local"] as const) : (["local", "s3"] as const)) {
        const { gen, cdn } = await once(name);
        times[name].gen.push(gen);
        times[name].cdn.push(cdn);
      }
    }
    const row = (label: string, name: Name, what: "gen" | "cdn") => [
      label,
      fmt(percentile(times[name][what], 50)),
      fmt(percentile(times[name][what], 99)),
      `${fmt(percentile(times[name][what], 50) / percentile(times.local[what], 50), 2)}×`,
    ];
    return {
      head: ["Image storage (preview engine, 1024²)", "p50 ms", "p99 ms", "ratio (p50)"],
      rows: [
        row("POST /api/generate, local files (baseline)", "local", "gen"),
        row("POST /api/generate, S3 (Swift s3api on loopback)", "s3", "gen"),
        row("GET /cdn/<file>, local files (baseline)", "local", "cdn"),
        row("GET /cdn/<file>, S3 streamed from the bucket", "s3", "cdn"),
      ],
      notes: [
        `${rounds} interleaved rounds after a warm-up, one request at a time; p99 of ${rounds} is their slowest.`,
        `Each image is a ${Math.round(size / 1024)} KB PNG. Swift runs on this machine with one replica, so the S3 rows`,
        "show the client's and the protocol's cost, not a network's: add your bucket's round trip (AWS in-region,",
        "10-30 ms per PUT) to compare with a real deployment.",
      ],
    };
  } finally {
    await Promise.all(apps.map((a) => a.stop()));
    await swift.close();
  }
}
