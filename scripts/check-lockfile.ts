// `npm run check:lockfile`: fails when `npm install` on a clean clone would change package-lock.json. Runs npm's own
// resolution (`npm install --package-lock-only`, no node_modules, no scripts) on a copy of package.json, the lockfile
// and .npmrc in a temp folder, then compares the lockfile npm wrote with the committed one.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

type Lockfile = { packages?: Record<string, Record<string, unknown>> } & Record<string, unknown>;

/** What differs between two lockfiles, one line per package path (or top-level field) added, removed or changed. */
export function lockfileDrift(before: Lockfile, after: Lockfile): string[] {
  const out: string[] = [];
  const a = before.packages ?? {};
  const b = after.packages ?? {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const name = key === "" ? "(root)" : key;
    if (!(key in b)) out.push(`- ${name}`);
    else if (!(key in a)) out.push(`+ ${name}`);
    else if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) {
      const fields = new Set([...Object.keys(a[key]), ...Object.keys(b[key])]);
      const changed = [...fields].filter((f) => JSON.stringify(a[key][f]) !== JSON.stringify(b[key][f]));
      out.push(`~ ${name} (${changed.join(", ")})`);
    }
  }
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (field !== "packages" && JSON.stringify(before[field]) !== JSON.stringify(after[field])) out.push(`~ ${field}`);
  }
  return out;
}

function npm(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", args, { cwd, env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: "skip" } });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, output }));
  });
}

async function main() {
  const root = path.resolve(__dirname, "..");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-lockfile-"));
  try {
    for (const f of ["package.json", "package-lock.json", ".npmrc"]) {
      if (fs.existsSync(path.join(root, f))) fs.copyFileSync(path.join(root, f), path.join(dir, f));
    }
    const committed = fs.readFileSync(path.join(dir, "package-lock.json"), "utf8");
    const r = await npm(["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"], dir);
    if (r.code !== 0) {
      console.error(`npm install --package-lock-only failed (exit ${r.code}):\n${r.output}`);
      process.exit(1);
    }
    const written = fs.readFileSync(path.join(dir, "package-lock.json"), "utf8");
    if (written === committed) {
      console.log("package-lock.json: up to date (npm install on a clean clone leaves it unchanged)");
      return;
    }
    const drift = lockfileDrift(JSON.parse(committed), JSON.parse(written));
    console.error(
      `package-lock.json is out of date: npm install on a clean clone would change it${drift.length ? ":" : " (formatting only)."}`,
    );
    for (const line of drift.slice(0, 50)) console.error(`  ${line}`);
    if (drift.length > 50) console.error(`  … and ${drift.length - 50} more`);
    console.error("Run `npm install` and commit package-lock.json.");
    process.exit(1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) main();
