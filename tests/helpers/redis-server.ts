// Spawns a throwaway redis-server for tests, and can stop and restart it on the same port to test degraded mode.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "./app";

export function hasRedisServer(): boolean {
  // CI installs it (.ci/run): there a missing server fails the suites that need it instead of skipping them.
  if (process.env.CI === "true") return true;
  return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
}

function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    let seen = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on("error", () => done(false));
    socket.on("data", (d: Buffer) => {
      seen += d.toString("utf8");
      if (seen.includes("\r\n")) done(seen.startsWith("+PONG"));
    });
    socket.on("connect", () => socket.write("PING\r\n"));
  });
}

export type RedisServer = {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server and removes its temp dir. */
  close(): Promise<void>;
};

/** `persist`: an append-only file synced on every write, so a restart (stop, then start) keeps every key. */
export async function startRedisServer(opts: { port?: number; persist?: boolean } = {}): Promise<RedisServer> {
  const port = opts.port || (await freePort());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-redis-"));
  let child: ChildProcess | undefined;

  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill("SIGTERM");
    const timer = setTimeout(() => running.kill("SIGKILL"), 3000);
    await exited;
    clearTimeout(timer);
  };

  const start = async () => {
    if (child) return;
    const proc = spawn(
      "redis-server",
      [
        ...["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir],
        ...(opts.persist ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]),
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    child = proc;
    let stderr = "";
    proc.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const deadline = Date.now() + 10_000;
    while (!(await pingOnce(port))) {
      if (proc.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`redis-server on port ${port} did not start: ${stderr.trim() || `exit ${proc.exitCode}`}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    async close() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
