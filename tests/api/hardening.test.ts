// Smaller hardening items against the real app: a request-independent OpenAPI document, no image optimizer,
// logs without personal data or keys, a CSP that lets Blob images in, and a container HOSTNAME never bound.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type App, startApp } from "../helpers/app";
import { type FakeBlobServer, startFakeBlobServer } from "../helpers/fake-blob-server";
import { BROWSER, call, enhance, generate } from "../helpers/http";
import { pngOf } from "../helpers/images";

function directive(csp: string, name: string): string[] {
  const found = csp.split(";").find((d) => d.trim().startsWith(`${name} `));
  return found ? found.trim().split(/\s+/).slice(1) : [];
}

describe("embedded app", () => {
  let app: App;
  before(async () => {
    app = await startApp({ name: "hardening" });
  });
  after(async () => {
    await app?.stop();
  });

  it("serves the same OpenAPI document whatever the Host header, so a shared cache cannot be poisoned", async () => {
    const honest = await call(app.url, "/api/openapi.json", { headers: { Host: `127.0.0.1:${app.port}` } });
    const forged = await call(app.url, "/api/openapi.json", { headers: { Host: "evil.example" } });
    assert.equal(honest.status, 200);
    assert.equal(forged.status, 200);
    assert.equal(forged.text, honest.text);
    assert.ok(!forged.text.includes("evil.example"));
    assert.deepEqual(forged.json.servers, [{ url: "/" }]);
    assert.equal(forged.json.openapi, "3.1.0");
    assert.match(forged.json.paths["/api/generate"].post["x-codeSamples"][0].source, /^curl -X POST \$DARKROOM_URL\//);
    assert.match(String(forged.headers["cache-control"]), /public/);
    assert.match(String(forged.headers["content-type"]), /^application\/json/);
  });

  it("refuses /_next/image for its own images, static files and remote URLs alike", async () => {
    const gen = await generate(app.url, { prompt: "a tin robot" }, { from: "127.0.4.1" });
    assert.equal(gen.status, 200, gen.text);
    const own = new URL(gen.json.url).pathname;
    assert.equal((await call(app.url, own)).status, 200, "the image itself is served");
    for (const target of [own, "/icon.svg", `http://127.0.0.1:${app.port}${own}`, "https://example.com/a.png"]) {
      const res = await call(app.url, `/_next/image?url=${encodeURIComponent(target)}&w=64&q=75`);
      assert.equal(res.status, 404, `${target}: ${res.status}`);
      assert.doesNotMatch(String(res.headers["content-type"]), /^image\//, target);
    }
  });

  it("logs no email, key or full client address, whatever the requests carry", async () => {
    const from = "127.0.4.213";
    const email = "grace.hopper@example.org";
    const key = `dk_live_${"Zq9_x-".repeat(7)}K`;
    const signup = await call(app.url, "/api/waitlist", {
      method: "POST",
      from,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email, use_case: `write to ${email}` }),
    });
    assert.equal(signup.status, 200, signup.text);
    const badKey = await generate(app.url, { prompt: "a key" }, { from, headers: { Authorization: `Bearer ${key}` } });
    assert.equal(badKey.status, 401);
    assert.equal((await generate(app.url, { prompt: "a free one" }, { from })).status, 200);
    const png = await pngOf(24, 16);
    const enhanced = await enhance(app.url, { image: { data: png, type: "image/png" }, strength: "0.5" }, { from });
    assert.equal(enhanced.status, 200, enhanced.text);
    assert.equal((await call(app.url, "/api/status", { headers: BROWSER, from })).status, 200);

    const logs = app.logs();
    assert.match(logs, /"msg":"enhance job"/, "the app did write request logs");
    for (const secret of [email, "grace.hopper", key, key.slice(8), from]) {
      assert.ok(!logs.includes(secret), `logs contain ${secret}:\n${logs}`);
    }
  });
});

describe("app on Vercel Blob, started with a container's HOSTNAME", () => {
  let blob: FakeBlobServer;
  let app: App;
  before(async () => {
    blob = await startFakeBlobServer();
    app = await startApp({
      name: "hardening-blob",
      env: {
        BLOB_READ_WRITE_TOKEN: blob.token,
        VERCEL_BLOB_API_URL: blob.apiUrl,
        VERCEL_BLOB_RETRIES: "0",
        // What Docker sets: the container id. It must not become the listen address (all interfaces, as in Docker).
        HOSTNAME: "3f2a9c1b7d4e",
      },
    });
  });
  after(async () => {
    await app?.stop();
    await blob?.close();
  });

  it("starts without binding HOSTNAME, and says why it was not used", async () => {
    assert.match(app.logs(), /HOSTNAME=3f2a9c1b7d4e is not an IP address or localhost/);
    assert.match(app.logs(), /ready on http:\/\/localhost:/);
    assert.equal((await call(app.url, "/api/status", { headers: BROWSER })).status, 200);
  });

  it("lets pages show and fetch the images it stores on Blob", async () => {
    const gen = await generate(app.url, { prompt: "a glass harbour" }, { from: "127.0.4.2" });
    assert.equal(gen.status, 200, gen.text);
    const imageOrigin = new URL(gen.json.url).origin;
    assert.equal(imageOrigin, new URL(blob.apiUrl).origin, "the image lives on the Blob service");

    const page = await call(app.url, "/");
    assert.equal(page.status, 200);
    const csp = String(page.headers["content-security-policy"]);
    // The token's store id names the store's public host on real Vercel Blob.
    const storeHost = "https://fakestore.public.blob.vercel-storage.com";
    for (const name of ["img-src", "connect-src"]) {
      const sources = directive(csp, name);
      assert.ok(sources.includes(imageOrigin), `${name} allows ${imageOrigin}: ${csp}`);
      assert.ok(sources.includes(storeHost), `${name} allows ${storeHost}: ${csp}`);
      assert.ok(!sources.some((s) => s.includes("*")), `${name} has no wildcard: ${csp}`);
    }
  });
});
