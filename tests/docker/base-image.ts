// The local base image for `npm run test:docker`: no container registry is reachable from the test machines, so
// the test builds its own stand-in for node:20-bookworm-slim. A Debian bookworm root from
// `debootstrap --variant=minbase`, this machine's node, npm and node headers (node-gyp builds offline with them), and
// its CA bundle with NODE_EXTRA_CA_CERTS (the package registry may be reached through an intercepting proxy).
// Built once per node version and kept: a present image is reused.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
const MIRROR = process.env.DEBIAN_MIRROR ?? "http://deb.debian.org/debian";

export function baseImageTag(): string {
  return `darkroom-base:bookworm-node${process.versions.node}`;
}

async function imageExists(tag: string): Promise<boolean> {
  try {
    await run("docker", ["image", "inspect", tag]);
    return true;
  } catch {
    return false;
  }
}

/** Where this node keeps npm and its headers: <prefix>/lib/node_modules/npm and <prefix>/include/node. */
function nodePrefix(): string {
  return path.resolve(path.dirname(process.execPath), "..");
}

/** Builds the base image unless it exists; returns its tag. */
export async function ensureBaseImage(log: (msg: string) => void = console.log): Promise<string> {
  const tag = baseImageTag();
  if (await imageExists(tag)) {
    log(`base image ${tag}: present, reused`);
    return tag;
  }
  const prefix = nodePrefix();
  const npmDir = path.join(prefix, "lib", "node_modules", "npm");
  const headers = path.join(prefix, "include", "node");
  for (const needed of [npmDir, headers, CA_BUNDLE]) {
    if (!fs.existsSync(needed)) throw new Error(`cannot build the base image: ${needed} is missing`);
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-base-"));
  const rootfs = path.join(work, "rootfs");
  try {
    log(`base image ${tag}: debootstrap --variant=minbase bookworm (${MIRROR})…`);
    await run("debootstrap", ["--variant=minbase", "bookworm", rootfs, MIRROR], { maxBuffer: 64 << 20 });
    const local = path.join(rootfs, "usr", "local");
    fs.copyFileSync(process.execPath, path.join(local, "bin", "node"));
    fs.chmodSync(path.join(local, "bin", "node"), 0o755);
    fs.mkdirSync(path.join(local, "lib", "node_modules"), { recursive: true });
    fs.cpSync(npmDir, path.join(local, "lib", "node_modules", "npm"), { recursive: true });
    fs.mkdirSync(path.join(local, "include"), { recursive: true });
    fs.cpSync(headers, path.join(local, "include", "node"), { recursive: true });
    fs.symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", path.join(local, "bin", "npm"));
    fs.symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", path.join(local, "bin", "npx"));
    fs.mkdirSync(path.join(rootfs, "etc", "ssl", "certs"), { recursive: true });
    fs.copyFileSync(CA_BUNDLE, path.join(rootfs, CA_BUNDLE));
    // What debootstrap downloaded is not part of the image.
    for (const dir of ["var/cache/apt/archives", "var/lib/apt/lists"]) {
      for (const f of fs.readdirSync(path.join(rootfs, dir))) {
        if (f.endsWith(".deb") || f.includes("_dists_")) fs.rmSync(path.join(rootfs, dir, f), { force: true });
      }
    }
    log(`base image ${tag}: importing…`);
    await run(
      "sh",
      [
        "-c",
        'tar -C "$1" -c . | docker import --change "$2" --change "$3" --change "$4" - "$5"',
        "sh",
        rootfs,
        "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        `ENV NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`,
        'CMD ["node"]',
        tag,
      ],
      { maxBuffer: 64 << 20 },
    );
    return tag;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  ensureBaseImage().then(
    (tag) => console.log(tag),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
