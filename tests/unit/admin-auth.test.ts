// The console's same-origin rule for cookie calls: the host the request was sent to, or PUBLIC_APP_URL behind a
// proxy that rewrites Host; nothing else, and never a missing or opaque Origin.
import assert from "node:assert/strict";
import { it } from "node:test";
import { isSameOrigin } from "@/lib/http/admin-auth";

const request = (headers: Record<string, string>) =>
  new Request("http://internal:3000/api/admin/keys", { method: "POST", headers });

it("accepts an Origin of the host the request was sent to", () => {
  assert.equal(isSameOrigin(request({ host: "console.example.com", origin: "http://console.example.com" })), true);
  assert.equal(isSameOrigin(request({ host: "console.example.com", origin: "http://evil.example.com" })), false);
});

it("refuses a missing or opaque Origin", () => {
  assert.equal(isSameOrigin(request({ host: "console.example.com" })), false);
  assert.equal(isSameOrigin(request({ host: "console.example.com", origin: "null" })), false);
});

it("accepts PUBLIC_APP_URL's origin when a proxy rewrote Host, and only that", () => {
  const proxied = { host: "127.0.0.1:3000", origin: "https://darkroom.example.com" };
  assert.equal(isSameOrigin(request(proxied)), false);
  assert.equal(isSameOrigin(request(proxied), "https://darkroom.example.com"), true);
  assert.equal(isSameOrigin(request(proxied), "https://darkroom.example.com/app"), true);
  assert.equal(isSameOrigin(request(proxied), "http://darkroom.example.com"), false, "another scheme");
  assert.equal(
    isSameOrigin(request({ ...proxied, origin: "https://evil.example.com" }), "https://darkroom.example.com"),
    false,
  );
});
