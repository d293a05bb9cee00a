// Who is calling: the signed peer header behind server.ts, Vercel's header only on Vercel, and fail-closed identities.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { parseConfig } from "@/lib/config";
import { freeCallerOf, identityOfIp, readClientIp, UNKNOWN_IP_IDENTITY } from "@/lib/http/identify";

const onVercel = parseConfig({ VERCEL: "1", VERCEL_URL: "x.vercel.app", KEY_PEPPER: "p".repeat(32) });
const selfHosted = parseConfig({});
const TOKEN = "t".repeat(64);

function request(headers: Record<string, string>) {
  return new Request("http://localhost/api/status", { headers });
}

afterEach(() => {
  delete process.env.DARKROOM_PEER_TOKEN;
});

describe("readClientIp", () => {
  it("behind server.ts trusts only its signed header, even where Vercel's variables are set", () => {
    process.env.DARKROOM_PEER_TOKEN = TOKEN;
    const spoof = { "x-real-ip": "203.0.113.9", "x-vercel-forwarded-for": "203.0.113.9" };
    assert.equal(readClientIp(request(spoof), { config: onVercel }), null);
    const signed = { ...spoof, "x-darkroom-client-ip": "198.51.100.4", "x-darkroom-peer-token": TOKEN };
    assert.equal(readClientIp(request(signed), { config: onVercel }), "198.51.100.4");
    const forged = { ...signed, "x-darkroom-peer-token": "f".repeat(64) };
    assert.equal(readClientIp(request(forged), { config: onVercel }), null);
  });

  it("reads the platform header on Vercel, and nothing without a platform or server.ts", () => {
    const headers = { "x-real-ip": "203.0.113.9" };
    assert.equal(readClientIp(request(headers), { config: onVercel }), "203.0.113.9");
    assert.equal(readClientIp(request(headers), { config: selfHosted }), null);
  });
});

describe("identities", () => {
  it("gives every request without an address the same one bucket", () => {
    assert.equal(identityOfIp(null), UNKNOWN_IP_IDENTITY);
    assert.equal(freeCallerOf(null).identity, freeCallerOf(null).identity);
  });

  it("counts IPv6 per /64 and groups /64s by their /48", () => {
    const a = freeCallerOf("2001:db8:1:2::1");
    const b = freeCallerOf("2001:db8:1:3::1");
    assert.notEqual(a.identity, b.identity);
    assert.equal(a.net48, b.net48);
    assert.equal(a.net48, "ip48:2001:db8:1::/48");
    assert.equal(freeCallerOf("192.0.2.1").net48, undefined);
  });
});
