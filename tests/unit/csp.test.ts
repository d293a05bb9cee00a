// The page CSP lets images in from the app, its CDN and its Vercel Blob store, and from nowhere else.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildCsp, imageOrigins } from "@/proxy";

const TOKEN = "vercel_blob_rw_AbC123xyz_4f1d9c0e2b7a6d5c8e9f0a1b2c3d4e5f";

function directive(csp: string, name: string): string[] {
  const found = csp.split(";").find((d) => d.trim().startsWith(`${name} `));
  return found ? found.trim().split(/\s+/).slice(1) : [];
}

describe("CSP image origins", () => {
  it("adds nothing by default", () => {
    assert.deepEqual(imageOrigins({}), []);
    assert.deepEqual(directive(buildCsp("n", false, []), "img-src"), ["'self'", "data:", "blob:"]);
  });

  it("adds the CDN's origin, not its path", () => {
    assert.deepEqual(imageOrigins({ PUBLIC_CDN_URL: "https://images.example.com/darkroom/" }), [
      "https://images.example.com",
    ]);
    assert.deepEqual(imageOrigins({ PUBLIC_CDN_URL: "not a url" }), []);
  });

  it("adds the Blob store's own public host, named by the store id in the token", () => {
    assert.deepEqual(imageOrigins({ BLOB_READ_WRITE_TOKEN: TOKEN }), [
      "https://abc123xyz.public.blob.vercel-storage.com",
    ]);
    assert.deepEqual(imageOrigins({ BLOB_READ_WRITE_TOKEN: "garbage" }), [], "no store id, no host");
  });

  it("adds a Blob-compatible service's origin only while Blob storage is on", () => {
    const api = "http://127.0.0.1:4567/api";
    assert.deepEqual(imageOrigins({ BLOB_READ_WRITE_TOKEN: TOKEN, VERCEL_BLOB_API_URL: api }), [
      "https://abc123xyz.public.blob.vercel-storage.com",
      "http://127.0.0.1:4567",
    ]);
    assert.deepEqual(imageOrigins({ VERCEL_BLOB_API_URL: api }), []);
  });

  it("allows the image origins for images and for fetches, with the CDN too", () => {
    const origins = imageOrigins({ BLOB_READ_WRITE_TOKEN: TOKEN, PUBLIC_CDN_URL: "https://cdn.example.net/x" });
    const csp = buildCsp("abc", false, origins);
    const expected = ["https://cdn.example.net", "https://abc123xyz.public.blob.vercel-storage.com"];
    assert.deepEqual(directive(csp, "img-src"), ["'self'", "data:", "blob:", ...expected]);
    assert.deepEqual(directive(csp, "connect-src"), ["'self'", ...expected]);
    assert.deepEqual(directive(csp, "default-src"), ["'self'"]);
  });
});
