// Client IP resolution: socket address by default, right-most untrusted hop behind trusted proxies.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ipIdentity, normalizeIp, parseTrustedProxies, resolveClientIp, resolveClientProto } from "@/lib/net/client-ip";

describe("resolveClientIp", () => {
  const none = parseTrustedProxies("");
  const proxies = parseTrustedProxies("10.0.0.1, 10.1.0.0/16, ::1");

  const cases: [
    string,
    string | undefined,
    string | undefined,
    ReturnType<typeof parseTrustedProxies>,
    string | null,
  ][] = [
    ["socket address without proxies", "127.0.0.5", "203.0.113.1", none, "127.0.0.5"],
    ["IPv4-mapped socket address", "::ffff:127.0.0.9", undefined, none, "127.0.0.9"],
    ["untrusted socket ignores XFF", "198.51.100.2", "203.0.113.1", proxies, "198.51.100.2"],
    ["trusted socket takes right-most untrusted hop", "10.0.0.1", "203.0.113.1, 198.51.100.7", proxies, "198.51.100.7"],
    ["skips trusted hops from the right", "10.0.0.1", "198.51.100.7, 10.1.2.3", proxies, "198.51.100.7"],
    ["client-sent left-most entries never win", "10.0.0.1", "1.1.1.1, 8.8.8.8, 198.51.100.7", proxies, "198.51.100.7"],
    ["trusted socket without XFF is the client", "10.0.0.1", undefined, proxies, "10.0.0.1"],
    ["garbage hop gives no usable address", "10.0.0.1", "hello", proxies, null],
    ["no socket address", undefined, "203.0.113.1", none, null],
    ["IPv6 loopback proxy", "::1", "2001:db8::5", proxies, "2001:db8::5"],
  ];
  for (const [name, socket, xff, list, expected] of cases) {
    it(name, () => assert.equal(resolveClientIp(socket, xff, list), expected));
  }

  it("rejects malformed TRUSTED_PROXIES entries", () => {
    assert.throws(() => parseTrustedProxies("10.0.0.1, nope"), /nope/);
    assert.throws(() => parseTrustedProxies("10.0.0.0/33"), /prefix/);
  });
});

describe("normalizeIp and ipIdentity", () => {
  it("normalises forms of the same address", () => {
    assert.equal(normalizeIp("[2001:DB8::1]"), "2001:db8::1");
    assert.equal(normalizeIp("fe80::1%eth0"), "fe80::1");
    assert.equal(normalizeIp("192.0.2.1:8080"), "192.0.2.1");
    assert.equal(normalizeIp("not-an-ip"), null);
  });
  it("groups IPv6 clients by /64 and keeps IPv4 whole", () => {
    assert.equal(ipIdentity("192.0.2.1"), "192.0.2.1");
    assert.equal(ipIdentity("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
    assert.equal(ipIdentity("2001:db8:1:2::ffff"), ipIdentity("2001:db8:1:2:1:2:3:4"));
    assert.notEqual(ipIdentity("2001:db8:1:2::1"), ipIdentity("2001:db8:1:3::1"));
  });
});

describe("resolveClientProto", () => {
  const proxies = parseTrustedProxies("10.0.0.1, ::1");
  it("is https over TLS, whatever the headers", () => {
    assert.equal(resolveClientProto(true, "203.0.113.5", "http", proxies), "https");
  });
  it("believes X-Forwarded-Proto only from a trusted proxy, and only its first value", () => {
    assert.equal(resolveClientProto(false, "10.0.0.1", "https", proxies), "https");
    assert.equal(resolveClientProto(false, "::ffff:10.0.0.1", "HTTPS, http", proxies), "https");
    assert.equal(resolveClientProto(false, "10.0.0.1", "http, https", proxies), "http");
    assert.equal(resolveClientProto(false, "10.0.0.1", undefined, proxies), "http");
    assert.equal(resolveClientProto(false, "203.0.113.5", "https", proxies), "http", "an untrusted client");
    assert.equal(resolveClientProto(false, "10.0.0.1", "https", parseTrustedProxies("")), "http", "no proxies");
  });
});
