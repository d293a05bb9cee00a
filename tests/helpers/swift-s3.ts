// A throwaway single-node OpenStack Swift with its S3 layer (s3api) for the S3 storage tests: account, container and
// object servers with one-replica rings, memcached, and a proxy with s3api before tempauth, all on free loopback
// ports under one temp dir. Every process is stopped by its own pid; the proxy alone can be stopped and started
// again on the same port, to test a store that goes away mid-run.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "./app";

/** tempauth's user `test:tester` with password `testing`: s3api takes them as the access key and the secret. */
export const SWIFT_S3_CREDENTIALS = { accessKeyId: "test:tester", secretAccessKey: "testing" } as const;

const SERVERS = ["account", "container", "object"] as const;
const BINARIES = ["swift-proxy-server", "swift-ring-builder", "memcached", ...SERVERS.map((s) => `swift-${s}-server`)];

/** True when Swift (proxy, account, container, object servers, ring builder) and memcached are installed. */
export function hasSwift(): boolean {
  // CI installs it (.ci/run): there a missing server fails the suites that need it instead of skipping them.
  if (process.env.CI === "true") return true;
  return BINARIES.every((bin) => spawnSync("sh", ["-c", `command -v ${bin}`], { stdio: "ignore" }).status === 0);
}

export type SwiftS3 = {
  /** The proxy's S3 endpoint, e.g. http://127.0.0.1:PORT (path-style addressing). */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Stops the proxy only (the S3 endpoint refuses connections); the data stays. */
  stopProxy(): Promise<void>;
  /** Starts the proxy again on the same port and waits until it answers. */
  startProxy(): Promise<void>;
  /** Stops every process and removes the temp dir. */
  close(): Promise<void>;
};

export async function startSwiftS3(): Promise<SwiftS3> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-swift-"));
  const children: ChildProcess[] = [];
  let proxy: ChildProcess | undefined;
  const user = os.userInfo().username;
  const ports = {
    proxy: await freePort(),
    memcached: await freePort(),
    account: await freePort(),
    container: await freePort(),
    object: await freePort(),
  };
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);

  const closeAll = async () => {
    await stopChild(proxy);
    proxy = undefined;
    for (const child of children.reverse()) await stopChild(child);
    children.length = 0;
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    fs.mkdirSync(path.join(dir, "devices", "sdb1"), { recursive: true });
    // swift_dir points every server here, so the machine's /etc/swift is neither read for rings nor changed.
    write(
      "swift.conf",
      "[swift-hash]\nswift_hash_path_prefix = darkroom-test\nswift_hash_path_suffix = darkroom-test\n\n" +
        "[storage-policy:0]\nname = Policy-0\ndefault = yes\n",
    );
    const common = (port: number) =>
      `[DEFAULT]\nbind_ip = 127.0.0.1\nbind_port = ${port}\nswift_dir = ${dir}\nuser = ${user}\nworkers = 0\n` +
      "log_level = WARNING\n";
    for (const server of SERVERS) {
      write(
        `${server}-server.conf`,
        `${common(ports[server])}devices = ${path.join(dir, "devices")}\nmount_check = false\n\n` +
          `[pipeline:main]\npipeline = ${server}-server\n\n[app:${server}-server]\nuse = egg:swift#${server}\n`,
      );
      const builder = path.join(dir, `${server}.builder`);
      for (const args of [
        [builder, "create", "10", "1", "1"],
        [builder, "add", `r1z1-127.0.0.1:${ports[server]}/sdb1`, "1"],
        [builder, "rebalance"],
      ]) {
        const run = spawnSync("swift-ring-builder", args, { encoding: "utf8" });
        if (run.status !== 0)
          throw new Error(`swift-ring-builder ${args.slice(1).join(" ")}: ${run.stdout}${run.stderr}`);
      }
    }
    const filters = ["catch_errors", "gatekeeper", "healthcheck", "proxy-logging", "listing_formats", "bulk", "copy"];
    write(
      "proxy-server.conf",
      `${common(ports.proxy)}\n[pipeline:main]\n` +
        "pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats bulk s3api tempauth " +
        "copy slo dlo proxy-logging proxy-server\n\n" +
        "[app:proxy-server]\nuse = egg:swift#proxy\naccount_autocreate = true\n\n" +
        "[filter:s3api]\nuse = egg:swift#s3api\nlocation = us-east-1\n\n" +
        `[filter:tempauth]\nuse = egg:swift#tempauth\nuser_test_tester = ${SWIFT_S3_CREDENTIALS.secretAccessKey} .admin\n\n` +
        `[filter:cache]\nuse = egg:swift#memcache\nmemcache_servers = 127.0.0.1:${ports.memcached}\n\n` +
        "[filter:slo]\nuse = egg:swift#slo\n\n[filter:dlo]\nuse = egg:swift#dlo\n\n" +
        filters.map((f) => `[filter:${f}]\nuse = egg:swift#${f.replace("-", "_")}\n`).join("\n"),
    );

    const memcachedArgs = ["-l", "127.0.0.1", "-p", String(ports.memcached), "-U", "0", "-m", "16"];
    if (process.getuid?.() === 0) memcachedArgs.push("-u", "root");
    children.push(launch("memcached", memcachedArgs));
    for (const server of SERVERS) {
      children.push(launch(`swift-${server}-server`, [path.join(dir, `${server}-server.conf`)]));
    }
    for (const [i, server] of SERVERS.entries()) await waitForPort(ports[server], children[i + 1], server);
    await waitForPort(ports.memcached, children[0], "memcached");
  } catch (err) {
    await closeAll();
    throw err;
  }

  const startProxy = async () => {
    if (proxy && proxy.exitCode === null) return;
    proxy = launch("swift-proxy-server", [path.join(dir, "proxy-server.conf")]);
    await waitForHealthcheck(ports.proxy, proxy);
  };
  try {
    await startProxy();
  } catch (err) {
    await closeAll();
    throw err;
  }

  return {
    endpoint: `http://127.0.0.1:${ports.proxy}`,
    ...SWIFT_S3_CREDENTIALS,
    async stopProxy() {
      await stopChild(proxy);
      proxy = undefined;
    },
    startProxy,
    close: closeAll,
  };
}

type Launched = ChildProcess & { output: () => string };

function launch(command: string, args: string[]): Launched {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] }) as Launched;
  let output = "";
  const keep = (d: Buffer) => {
    output = (output + d.toString("utf8")).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  child.output = () => output;
  return child;
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.setTimeout(500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on("error", () => resolve(false));
    socket.on("connect", () => {
      socket.destroy();
      resolve(true);
    });
  });
}

async function waitUntil(check: () => Promise<boolean>, child: ChildProcess, what: string): Promise<void> {
  // Generous: on a loaded machine the Python servers take a while to import.
  const deadline = Date.now() + 90_000;
  while (!(await check())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const output = (child as Launched).output?.().trim();
      throw new Error(`${what} did not start: ${output || `exit ${child.exitCode}`}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function waitForPort(port: number, child: ChildProcess, what: string): Promise<void> {
  return waitUntil(() => connects(port), child, what);
}

/** The proxy's /healthcheck answers OK once its pipeline (s3api, tempauth, memcache) has loaded. */
function waitForHealthcheck(port: number, child: ChildProcess): Promise<void> {
  const check = async () => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthcheck`, { signal: AbortSignal.timeout(1000) });
      return res.ok && (await res.text()) === "OK";
    } catch {
      return false;
    }
  };
  return waitUntil(check, child, "swift-proxy-server");
}
