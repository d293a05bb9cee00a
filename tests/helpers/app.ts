// Starts the real built app through `npm start` on a free port with its own DATA_DIR, for API and e2e tests.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");

export type App = {
  url: string;
  /** The checkout the app runs from: this one, or another (the bench runs an earlier release beside it). */
  root: string;
  port: number;
  dataDir: string;
  env: Record<string, string>;
  logs: () => string;
  stop: () => Promise<void>;
  /** Stop and start again on the same port and DATA_DIR. */
  restart: () => Promise<void>;
  /** SIGKILL the whole process group at once, as a crash would: nothing gets to clean up. */
  kill: () => void;
  /**
   * SIGTERM the process group, as `docker stop` or systemd would, and wait however long the drain takes (the test's
   * own timeout bounds it); resolves with how `npm start` exited.
   */
  terminate: () => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address() as net.AddressInfo;
      srv.close(() => resolve(addr.port));
    });
    srv.on("error", reject);
  });
}

export function tempDataDir(name: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `darkroom-${name}-`));
}

export async function startApp(
  opts: {
    env?: Record<string, string>;
    dataDir?: string;
    name?: string;
    root?: string;
    /**
     * Run `node --import tsx server.ts` itself, as the container does, instead of `npm start`: the exit code and
     * signal seen are the server's own (npm dies of a SIGTERM sent to the group while the server still drains).
     */
    direct?: boolean;
  } = {},
): Promise<App> {
  const root = opts.root ?? ROOT;
  let port = await freePort();
  const dataDir = opts.dataDir ?? tempDataDir(opts.name ?? "api");
  const env: Record<string, string> = {
    PORT: String(port),
    HOSTNAME: "127.0.0.1",
    DATA_DIR: dataDir,
    NEXT_TELEMETRY_DISABLED: "1",
    ...opts.env,
  };
  let child: ChildProcess | undefined;
  let output = "";

  const launch = async () => {
    output = "";
    const [command, args] = opts.direct
      ? [process.execPath, ["--import", "tsx", "server.ts"]]
      : ["npm", ["start", "--silent"]];
    child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    const deadline = Date.now() + 120_000;
    while (!/ready on/.test(output)) {
      if (child.exitCode !== null) throw new Error(`app exited early (${child.exitCode}):\n${output}`);
      if (Date.now() > deadline) {
        // Not left running: a live child would keep the test process (and the whole run) waiting forever.
        process.kill(-child.pid!, "SIGKILL");
        throw new Error(`app did not start in time:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const stop = async () => {
    const c = child;
    // A child killed by a signal has signalCode set and exitCode null: stopped too, and its exit already fired.
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise<void>((r) => c.once("exit", () => r()));
    try {
      process.kill(-c.pid!, "SIGTERM");
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-c.pid!, "SIGKILL");
      } catch {
        /* already gone */
      }
    }, 5_000);
    await exited;
    clearTimeout(timer);
  };

  // Another process can take the free port between freePort and the app's listen: start again on a fresh one.
  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      break;
    } catch (err) {
      if (attempt >= 3 || opts.env?.PORT !== undefined || !/EADDRINUSE/.test(output)) throw err;
      port = await freePort();
      env.PORT = String(port);
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    root,
    port,
    dataDir,
    env,
    logs: () => output,
    stop,
    kill: () => {
      const c = child;
      if (!c || c.exitCode !== null || c.pid === undefined) return;
      try {
        process.kill(-c.pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    },
    terminate: () => {
      const c = child;
      if (!c || c.pid === undefined) return Promise.reject(new Error("the app is not running"));
      if (c.exitCode !== null || c.signalCode !== null) {
        return Promise.resolve({ code: c.exitCode, signal: c.signalCode });
      }
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
        c.once("exit", (code, signal) => r({ code, signal })),
      );
      process.kill(-c.pid, "SIGTERM");
      return exited;
    },
    restart: async () => {
      await stop();
      await launch();
    },
  };
}

/** Resident memory of every process started for this app (npm, tsx, the server), found by its DATA_DIR. */
export function appRssBytes(dataDir: string): number {
  const marker = `DATA_DIR=${dataDir}\0`;
  let total = 0;
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/environ`, "latin1").includes(marker)) continue;
      const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "latin1"))?.[1];
      total += Number(kb ?? 0) * 1024;
    } catch {
      // The process ended while we looked.
    }
  }
  return total;
}

/**
 * Runs an npm script (e.g. keys) against an app's DATA_DIR and store. Asynchronous on purpose: the store may be
 * served from this very process (the Upstash bridge), which a blocking spawn would deadlock.
 */
export function runScript(
  app: Pick<App, "env"> & { root?: string },
  script: string,
  args: string[],
): Promise<{ code: number; lines: string[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", script, "--", ...args], {
      cwd: app.root ?? ROOT,
      env: { ...process.env, ...app.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({ code: code ?? -1, lines: stdout.split("\n").filter((l) => l.trim() !== ""), stderr }),
    );
  });
}

export async function createKey(
  app: Pick<App, "env"> & { root?: string },
  label = "test",
): Promise<{ key: string; id: string }> {
  const out = await runScript(app, "keys", ["create", "--label", label]);
  if (out.code !== 0) throw new Error(`keys create failed: ${out.stderr}`);
  const key = out.lines.at(-1)!;
  const id = /key_[a-f0-9]+/.exec(out.lines.join("\n"))![0];
  return { key, id };
}
