// The container image, verified here: built on a local bookworm base through the Dockerfile's BASE argument, run
// with host networking on a loopback port. It generates and enhances; SIGTERM lets an enhancement in flight finish;
// after a restart the image URLs still resolve and a key made inside the container still works; the process is not
// root; Docker's healthcheck turns healthy. Prints the image's size and the time each step took.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, it } from "node:test";
import { freePort } from "../helpers/app";
import { BROWSER, call, enhance, generate } from "../helpers/http";
import { pngOf } from "../helpers/images";
import { ensureBaseImage } from "./base-image";
import { buildImage, ensureDockerd, imageSizeBytes, must, run, waitHealthy } from "./docker";

export const IMAGE = "darkroom:test";
const MAX_IMAGE_MB = 700;
const id = crypto.randomBytes(4).toString("hex");
const container = `darkroom-test-${id}`;
const volume = `darkroom-test-data-${id}`;
let port: number;
let url: string;

const say = (msg: string) => console.log(`# docker: ${msg}`);

before(async () => {
  await ensureDockerd(say);
  const base = await ensureBaseImage(say);
  await buildImage(IMAGE, base, say);
  port = await freePort();
  url = `http://127.0.0.1:${port}`;
  await must("docker", ["volume", "create", volume]);
  await must("docker", [
    "run",
    "--detach",
    "--name",
    container,
    // The host's network only: this machine has no bridge, and tests talk to loopback.
    "--network",
    "host",
    "--env",
    `PORT=${port}`,
    "--env",
    "LISTEN_HOST=127.0.0.1",
    "--volume",
    `${volume}:/data`,
    "--stop-timeout",
    "60",
    IMAGE,
  ]);
});

after(async () => {
  await run("docker", ["rm", "--force", container]);
  await run("docker", ["volume", "rm", "--force", volume]);
});

describe("container image", () => {
  let imageUrl = "";
  let imageBytes: Buffer;
  let enhancedUrl = "";
  let key = "";

  it(`is under ${MAX_IMAGE_MB} MB, declares its volume, port and user`, async () => {
    const size = await imageSizeBytes(IMAGE);
    say(`image size: ${(size / 1e6).toFixed(0)} MB (${(size / 2 ** 20).toFixed(0)} MiB)`);
    assert.ok(size < MAX_IMAGE_MB * 1e6, `image is ${(size / 1e6).toFixed(0)} MB`);
    const config = JSON.parse(await must("docker", ["image", "inspect", "-f", "{{json .Config}}", IMAGE]));
    assert.deepEqual(Object.keys(config.Volumes ?? {}), ["/data"]);
    assert.deepEqual(Object.keys(config.ExposedPorts ?? {}), ["3000/tcp"]);
    assert.equal(config.User, "darkroom");
    assert.deepEqual(config.Healthcheck.Test.slice(0, 2), ["CMD", "node"]);
  });

  it("turns healthy under Docker's own healthcheck, and runs as a user that is not root", async () => {
    say(`healthy after ${((await waitHealthy(container)) / 1000).toFixed(0)} s`);
    const status = await must("docker", ["exec", container, "cat", "/proc/1/status"]);
    const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    assert.equal(uid, "10001", status);
    assert.match(await must("docker", ["exec", container, "cat", "/proc/1/cmdline"]), /server\.ts/);
    // Only the data volume is the app's to write.
    const write = await run("docker", ["exec", container, "sh", "-c", "touch /app/x"]);
    assert.notEqual(write.code, 0, "the app's files are not writable by the server's user");
  });

  it("generates on the preview engine and serves the image", async () => {
    const res = await generate(url, { prompt: "a lighthouse in a container" }, { from: "127.0.9.1" });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.engine, "preview");
    assert.equal(res.json.ai, false);
    imageUrl = res.json.url;
    assert.ok(imageUrl.startsWith(`${url}/cdn/`), imageUrl);
    const img = await call(imageUrl, "");
    assert.equal(img.status, 200);
    assert.equal(img.headers["content-type"], "image/png");
    imageBytes = img.body;
  });

  it("makes a key inside the container that the API accepts", async () => {
    const out = await must("docker", [
      "exec",
      container,
      "node",
      "--import",
      "tsx",
      "scripts/keys.ts",
      "create",
      "--label",
      "docker",
    ]);
    key = out.split("\n").at(-1)?.trim() ?? "";
    assert.match(key, /^dk_live_/);
    const status = await call(url, "/api/status", { headers: { Authorization: `Bearer ${key}` } });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.json.plan, "pro");
  });

  it("lets an enhancement in flight finish on SIGTERM, then exits 0", async () => {
    const png = await pngOf(384, 384);
    const pending = enhance(url, { image: { data: png, type: "image/png" } }, { from: "127.0.9.2" });
    // The request is in: the server is decoding, converting the model or running it when the signal comes.
    await new Promise((r) => setTimeout(r, 300));
    await must("docker", ["kill", "--signal", "TERM", container]);
    const res = await pending;
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.engine, /^onnx:/);
    enhancedUrl = res.json.url;
    const exit = await must("docker", ["wait", container]);
    assert.equal(exit, "0");
    const logs = await run("docker", ["logs", container]);
    assert.match(logs.stdout + logs.stderr, /SIGTERM: draining [1-9]\d* in-flight/);
    assert.match(logs.stdout + logs.stderr, /drained; exiting/);
  });

  it("after a restart, the image URLs still resolve and the key still works", async () => {
    await must("docker", ["start", container]);
    say(`healthy again after ${((await waitHealthy(container)) / 1000).toFixed(0)} s`);
    const img = await call(imageUrl, "");
    assert.equal(img.status, 200);
    assert.deepEqual(img.body, imageBytes);
    assert.equal((await call(enhancedUrl, "")).status, 200);
    const status = await call(url, "/api/status", { headers: { Authorization: `Bearer ${key}` } });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.json.plan, "pro");
    const free = await call(url, "/api/status", { headers: BROWSER, from: "127.0.9.1" });
    assert.equal(free.json.usage_today, 1, "the Free plan's count survived the restart");
  });
});
