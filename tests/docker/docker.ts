// Docker for `npm run test:docker`: a running dockerd (started here when none answers, with no default bridge, so
// containers can only use the host's network), commands run asynchronously, and image builds.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");

export type Run = { code: number; stdout: string; stderr: string };

/** Runs a command to its end without blocking the event loop (the test may be serving something meanwhile). */
export function run(
  cmd: string,
  args: string[],
  opts: { input?: string; env?: Record<string, string>; cwd?: string } = {},
) {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    // A command that exits without reading its input closes the pipe: writing to it then fails with EPIPE, which
    // says nothing about the command (its exit code and output do).
    child.stdin.on("error", () => undefined);
    child.stdin.end(opts.input ?? "");
  });
}

/** Like run(), but a non-zero exit is an error carrying the output's tail. */
export async function must(cmd: string, args: string[], opts: Parameters<typeof run>[2] = {}): Promise<string> {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) {
    const tail = `${r.stdout}\n${r.stderr}`.trim().split("\n").slice(-40).join("\n");
    throw new Error(`${cmd} ${args.slice(0, 3).join(" ")} … exited ${r.code}:\n${tail}`);
  }
  return r.stdout.trim();
}

let started: ChildProcess | undefined;

/** Starts dockerd (no bridge, no iptables) unless one answers already. */
export async function ensureDockerd(log: (msg: string) => void = console.log): Promise<void> {
  if ((await run("docker", ["info"])).code === 0) return;
  log("dockerd is not running; starting it (--bridge=none: host networking only)");
  const logFile = fs.openSync("/var/tmp/darkroom-dockerd.log", "a");
  started = spawn("dockerd", ["--bridge=none", "--iptables=false", "--ip6tables=false"], {
    detached: true,
    stdio: ["ignore", logFile, logFile],
  });
  started.unref();
  const deadline = Date.now() + 60_000;
  while ((await run("docker", ["info"])).code !== 0) {
    if (started.exitCode !== null) throw new Error("dockerd exited; see /var/tmp/darkroom-dockerd.log");
    if (Date.now() > deadline) throw new Error("dockerd did not answer within 60 s");
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Builds the project's Dockerfile on `base`, with the host's network (no bridge exists). */
export async function buildImage(tag: string, base: string, log: (msg: string) => void = console.log) {
  const started = Date.now();
  await must("docker", ["build", "--network", "host", "--build-arg", `BASE=${base}`, "-t", tag, "."]);
  log(`built ${tag} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** A small image from the same base with Debian's redis-server, for compose (no registry to pull redis from). */
export async function buildRedisImage(tag: string, base: string): Promise<void> {
  const dockerfile = [
    `FROM ${base}`,
    "RUN apt-get update && apt-get install -y --no-install-recommends redis-server && rm -rf /var/lib/apt/lists/* \\",
    " && mkdir -p /data && chown redis:redis /data",
    "WORKDIR /data",
    "USER redis",
    'CMD ["redis-server", "--protected-mode", "no"]',
  ].join("\n");
  await must("docker", ["build", "--network", "host", "-t", tag, "-"], { input: dockerfile });
}

export async function imageSizeBytes(tag: string): Promise<number> {
  return Number(await must("docker", ["image", "inspect", "-f", "{{.Size}}", tag]));
}

export async function healthOf(container: string): Promise<string> {
  return must("docker", ["inspect", "-f", "{{if .State.Health}}{{.State.Health.Status}}{{end}}", container]);
}

/** Waits until Docker's own healthcheck of the container reports healthy. */
export async function waitHealthy(container: string, timeoutMs = 180_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const status = await healthOf(container);
    if (status === "healthy") return Date.now() - started;
    if (status === "unhealthy" || Date.now() - started > timeoutMs) {
      const logs = await run("docker", ["logs", "--tail", "40", container]);
      throw new Error(`${container} is ${status || "without health"}:\n${logs.stdout}${logs.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}
