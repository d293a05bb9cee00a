// compose.yaml, verified with Debian's docker-compose: `config` accepts it (and refuses it without KEY_PEPPER), the
// gpu profile adds the ComfyUI placeholder, and `up` brings Darkroom and Redis up healthy. No registry is reachable
// here, so the images are the one image.test.ts built and a Redis image built from the same local base with Debian's
// redis-server; an override file puts both on the host's network on free loopback ports (in place of
// compose.override.yaml, which publishes the port), and makes the host network the project's default network, so
// docker-compose creates no bridge network (compose.yaml's own networks are left out of that copy: docker-compose
// does not combine networks with host networking). Redis asks for its password there too.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { freePort } from "../helpers/app";
import { BROWSER, call, generate } from "../helpers/http";
import { ensureBaseImage } from "./base-image";
import { buildImage, buildRedisImage, ensureDockerd, must, ROOT, run, waitHealthy } from "./docker";

const IMAGE = "darkroom:test";
const REDIS_IMAGE = "darkroom-test-redis:bookworm";
const project = `darkroom-test-${crypto.randomBytes(4).toString("hex")}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-compose-"));
const say = (msg: string) => console.log(`# compose: ${msg}`);
const env = { DARKROOM_IMAGE: IMAGE, REDIS_IMAGE };
/** docker-compose in the project folder; with no files given it reads compose.yaml and compose.override.yaml. */
const compose = (args: string[], files: string[] = []) =>
  run("docker-compose", ["--project-name", project, ...files.flatMap((f) => ["--file", f]), ...args], {
    cwd: dir,
    env,
  });

let port: number;
let redisPort: number;
const redisPassword = crypto.randomBytes(16).toString("hex");
/** compose.yaml without its networks (the store network and the gpu one), for host networking. */
const HOST_COPY = "compose.host.yaml";

before(async () => {
  await ensureDockerd(say);
  const base = await ensureBaseImage(say);
  if ((await run("docker", ["image", "inspect", IMAGE])).code !== 0) await buildImage(IMAGE, base, say);
  await buildRedisImage(REDIS_IMAGE, base);
  // The project as a user has it: compose.yaml and a .env beside it.
  for (const f of ["compose.yaml", "compose.override.yaml"]) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  fs.writeFileSync(
    path.join(dir, ".env"),
    `KEY_PEPPER=${crypto.randomBytes(32).toString("hex")}\nREDIS_PASSWORD=${redisPassword}\n`,
  );
  const withoutNetworks = fs
    .readFileSync(path.join(ROOT, "compose.yaml"), "utf8")
    .replace(/^ {4}networks: \[.*\]\n/gm, "")
    .replace(/^networks:\n(?: {2}.*\n|\n)*?(?=\S)/m, "");
  fs.writeFileSync(path.join(dir, HOST_COPY), withoutNetworks);
  port = await freePort();
  redisPort = await freePort();
  // Host networking on loopback ports (YAML is a superset of JSON).
  const host = {
    networks: { default: { name: "host", external: true } },
    services: {
      darkroom: {
        network_mode: "host",
        environment: {
          PORT: String(port),
          LISTEN_HOST: "127.0.0.1",
          REDIS_URL: `redis://:${redisPassword}@127.0.0.1:${redisPort}`,
        },
      },
      redis: {
        network_mode: "host",
        command: [
          "redis-server",
          "--bind",
          "127.0.0.1",
          "--port",
          String(redisPort),
          "--appendonly",
          "yes",
          "--requirepass",
          redisPassword,
        ],
        healthcheck: { test: ["CMD", "redis-cli", "-p", String(redisPort), "ping"] },
      },
    },
  };
  fs.writeFileSync(path.join(dir, "host.yaml"), JSON.stringify(host, null, 2));
});

after(async () => {
  await compose(["down", "--volumes", "--timeout", "60"], [HOST_COPY, "host.yaml"]);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("compose.yaml", () => {
  it("is valid for docker-compose, and names KEY_PEPPER when it is missing", async () => {
    const ok = await compose(["config", "--quiet"]);
    assert.equal(ok.code, 0, ok.stderr);
    const config = (await compose(["config"])).stdout;
    assert.match(config, /published: 3000\s+target: 3000/, "compose.override.yaml publishes port 3000");
    assert.match(
      config,
      new RegExp(`REDIS_URL: redis://:${redisPassword}@redis:6379`),
      "REDIS_URL carries the password",
    );
    assert.match(config, new RegExp(`- --requirepass\\s+- ${redisPassword}`), "Redis asks for it");
    assert.match(config, /comfyui:[\s\S]*?profiles:\s+- gpu/, "ComfyUI only in the gpu profile");
    for (const volume of ["darkroom-data", "redis-data"]) assert.match(config, new RegExp(`^  ${volume}:`, "m"));
    const gpu = await compose(["--profile", "gpu", "config"]);
    assert.equal(gpu.code, 0, gpu.stderr);
    // ComfyUI (a GPU server that runs custom nodes) shares a network with Darkroom, never with Redis.
    const networksOf = (service: string) =>
      new RegExp(`^  ${service}:\\n(?:    .*\\n|\\n)*?    networks:\\n((?:      .*\\n)+)`, "m")
        .exec(gpu.stdout)?.[1]
        .match(/^ {6}(\S+):/gm)
        ?.map((line) => line.trim().slice(0, -1))
        .sort();
    assert.deepEqual(networksOf("comfyui"), ["gpu"]);
    assert.deepEqual(networksOf("redis"), ["store"]);
    assert.deepEqual(networksOf("darkroom"), ["gpu", "store"]);
    assert.match(config, /minio:[\s\S]*?profiles:\s+- s3/, "MinIO only in the s3 profile");
    const s3 = await compose(["--profile", "s3", "config", "--quiet"]);
    assert.equal(s3.code, 0, s3.stderr);

    fs.renameSync(path.join(dir, ".env"), path.join(dir, ".env.saved"));
    try {
      fs.writeFileSync(path.join(dir, ".env"), `REDIS_PASSWORD=${redisPassword}\n`);
      const missing = await compose(["config", "--quiet"]);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /KEY_PEPPER/);
      fs.writeFileSync(path.join(dir, ".env"), `KEY_PEPPER=${crypto.randomBytes(32).toString("hex")}\n`);
      const noPassword = await compose(["config", "--quiet"]);
      assert.notEqual(noPassword.code, 0, "Redis without a password is refused");
      assert.match(noPassword.stderr, /REDIS_PASSWORD/);
    } finally {
      fs.renameSync(path.join(dir, ".env.saved"), path.join(dir, ".env"));
    }
  });

  it("brings Darkroom and Redis up healthy, with quotas in Redis", async () => {
    const files = [HOST_COPY, "host.yaml"];
    const up = await compose(["up", "--detach", "--no-build"], files);
    assert.equal(up.code, 0, up.stderr);
    const networks = await must("docker", ["network", "ls", "--filter", `name=${project}`, "--format", "{{.Name}}"]);
    assert.equal(networks, "", "no network of the project's own: the host's only");
    const running = (await compose(["ps", "--services", "--filter", "status=running"], files)).stdout;
    assert.deepEqual(running.trim().split("\n").sort(), ["darkroom", "redis"], "no comfyui without the gpu profile");
    const id = (await compose(["ps", "--quiet", "darkroom"], files)).stdout.trim();
    say(`darkroom healthy after ${((await waitHealthy(id)) / 1000).toFixed(0)} s`);

    const res = await generate(`http://127.0.0.1:${port}`, { prompt: "a harbour from compose" }, { from: "127.0.9.5" });
    assert.equal(res.status, 200, res.text);
    assert.equal((await call(res.json.url, "")).status, 200);
    const status = await call(`http://127.0.0.1:${port}`, "/api/status", { headers: BROWSER, from: "127.0.9.5" });
    assert.equal(status.json.status, "ok");
    assert.equal(status.json.usage_today, 1);

    // The count is Redis's: the quota key is there.
    const redisId = (await compose(["ps", "--quiet", "redis"], files)).stdout.trim();
    const keys = await must("docker", [
      "exec",
      redisId,
      "redis-cli",
      "-p",
      String(redisPort),
      "--scan",
      "--pattern",
      "darkroom:rl:*",
    ]);
    assert.ok(keys.split("\n").filter(Boolean).length > 0, "no quota counters in Redis");
  });
});
