// Build-once logic for `npm start`. Each build of the sources lives in its own folder, `.builds/<hash>`,
// named by a content hash of the sources: a start builds only when no build of the current sources exists,
// a lock keeps instances started together from building twice, and a running server's build is never
// replaced under it (a later build of changed sources goes to a new folder).
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { isRunning } from "../process/pid";

export const SOURCE_DIRS = ["app", "components", "lib", "public"];
export const SOURCE_FILES = [
  "package.json",
  "package-lock.json",
  "next.config.js",
  "tsconfig.json",
  "postcss.config.mjs",
  "proxy.ts",
  "instrumentation.ts",
];
export const BUILDS_DIR = ".builds";
const COMPLETE = "darkroom-complete.json";
const LOCK = path.join(BUILDS_DIR, ".lock");
const STALE_LOCK_MS = 20 * 60 * 1000;
const KEEP_BUILDS = 3;

function listFiles(root: string, dir: string, out: string[]) {
  const full = path.join(root, dir);
  if (!fs.existsSync(full)) return;
  for (const entry of fs.readdirSync(full, { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) listFiles(root, rel, out);
    else if (entry.isFile()) out.push(rel);
  }
}

/** A content hash of everything that goes into the build. */
export function hashSources(root: string): string {
  const files: string[] = [];
  for (const dir of SOURCE_DIRS) listFiles(root, dir, files);
  for (const file of SOURCE_FILES) if (fs.existsSync(path.join(root, file))) files.push(file);
  files.sort();
  const hash = crypto.createHash("sha256");
  for (const file of files) {
    hash.update(file.split(path.sep).join("/"));
    hash.update("\0");
    hash.update(fs.readFileSync(path.join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

const NEXT_TSCONFIG = "tsconfig.next.json";

/** Writes the tsconfig Next reads (see next.config.js), if missing; Next may append to it freely. */
export function ensureNextTsconfig(root: string) {
  const file = path.join(root, NEXT_TSCONFIG);
  if (fs.existsSync(file)) return;
  const config = {
    extends: "./tsconfig.json",
    include: ["next-env.d.ts", "**/*.ts", "**/*.tsx"],
    exclude: ["node_modules", BUILDS_DIR],
  };
  fs.writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
}

/** The dist folder (relative to the root) for a source hash; what next.config.js reads as distDir. */
export function distDirFor(hash: string): string {
  return path.join(BUILDS_DIR, hash);
}

function isComplete(root: string, hash: string): boolean {
  return fs.existsSync(path.join(root, distDirFor(hash), COMPLETE));
}

function tryLock(root: string): boolean {
  const lock = path.join(root, LOCK);
  fs.mkdirSync(path.join(root, BUILDS_DIR), { recursive: true });
  try {
    fs.mkdirSync(lock);
    fs.writeFileSync(path.join(lock, "pid"), String(process.pid));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    // A crashed builder must not block every later start forever.
    if (isStale(lock)) {
      fs.rmSync(lock, { recursive: true, force: true });
      return tryLock(root);
    }
    return false;
  }
}

/** A lock whose builder died, or that is older than any build takes. */
function isStale(lock: string): boolean {
  let pid = NaN;
  try {
    pid = Number(fs.readFileSync(path.join(lock, "pid"), "utf8"));
  } catch {
    /* the owner has not written its pid yet */
  }
  try {
    const age = Date.now() - fs.statSync(lock).mtimeMs;
    return age > STALE_LOCK_MS || (Number.isInteger(pid) && pid > 0 && !isRunning(pid));
  } catch {
    return false; // gone meanwhile: the caller looks again
  }
}

function sleep(ms: number) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Keeps the newest few builds; older ones belong to servers long since restarted. */
function pruneBuilds(root: string, keep: string) {
  const dir = path.join(root, BUILDS_DIR);
  const builds = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith(".") && e.name !== keep)
    .map((e) => ({ name: e.name, mtime: fs.statSync(path.join(dir, e.name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of builds.slice(KEEP_BUILDS - 1))
    fs.rmSync(path.join(dir, old.name), { recursive: true, force: true });
}

/** Ensures a complete build of the current sources exists; returns its dist folder (relative to root). */
export function ensureBuild(root: string, opts: { force?: boolean; log?: (msg: string) => void } = {}): string {
  const say = opts.log ?? ((msg: string) => console.log(msg));
  for (;;) {
    const hash = hashSources(root);
    if (!opts.force && isComplete(root, hash)) return distDirFor(hash);
    if (!tryLock(root)) {
      say("darkroom: another process is building; waiting…");
      // Until the builder is done, or has died without removing its lock (tryLock then takes it over).
      const lock = path.join(root, LOCK);
      while (fs.existsSync(lock) && !isStale(lock)) sleep(500);
      continue;
    }
    try {
      if (!opts.force && isComplete(root, hash)) return distDirFor(hash);
      const distDir = distDirFor(hash);
      fs.rmSync(path.join(root, distDir), { recursive: true, force: true });
      say(`darkroom: building the app into ${distDir} (first start, or sources changed)…`);
      ensureNextTsconfig(root);
      const nextBin = require.resolve("next/dist/bin/next", { paths: [root] });
      const result = spawnSync(process.execPath, [nextBin, "build"], {
        cwd: root,
        stdio: "inherit",
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production", DARKROOM_DIST_DIR: distDir },
      });
      if (result.status !== 0) throw new Error(`next build failed (exit ${result.status ?? result.signal})`);
      fs.writeFileSync(
        path.join(root, distDir, COMPLETE),
        JSON.stringify({ sources: hash, builtAt: new Date().toISOString() }),
      );
      pruneBuilds(root, hash);
      return distDir;
    } finally {
      fs.rmSync(path.join(root, LOCK), { recursive: true, force: true });
    }
  }
}
