// The address classifier behind the outbound-request guard: which IPv4 and IPv6 addresses count as public.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AddressClass, classifyAddress, isPublicAddress } from "@/lib/net/address";

function assertClasses(cases: [string, AddressClass][]) {
  for (const [address, expected] of cases) assert.equal(classifyAddress(address), expected, address);
}

describe("IPv4", () => {
  it("names every special-purpose range, including both edges", () => {
    assertClasses([
      ["0.0.0.0", "unspecified"],
      ["0.255.255.255", "unspecified"],
      ["10.0.0.0", "private"],
      ["10.0.0.1", "private"],
      ["10.255.255.255", "private"],
      ["100.64.0.0", "shared"],
      ["100.127.255.255", "shared"],
      ["127.0.0.1", "loopback"],
      ["127.255.255.254", "loopback"],
      ["169.254.0.1", "link-local"],
      ["169.254.169.254", "link-local"],
      ["172.16.0.0", "private"],
      ["172.31.255.255", "private"],
      ["192.0.0.8", "reserved"],
      ["192.0.2.1", "documentation"],
      ["192.88.99.1", "reserved"],
      ["192.168.0.1", "private"],
      ["192.168.255.255", "private"],
      ["198.18.0.1", "benchmarking"],
      ["198.19.255.255", "benchmarking"],
      ["198.51.100.7", "documentation"],
      ["203.0.113.9", "documentation"],
      ["224.0.0.1", "multicast"],
      ["239.255.255.250", "multicast"],
      ["240.0.0.1", "reserved"],
      ["255.255.255.255", "reserved"],
    ]);
  });

  it("keeps the neighbours of each range public", () => {
    for (const address of [
      "1.1.1.1",
      "9.255.255.255",
      "11.0.0.0",
      "100.63.255.255",
      "100.128.0.0",
      "126.255.255.255",
      "128.0.0.0",
      "169.253.255.255",
      "169.255.0.0",
      "172.15.255.255",
      "172.32.0.0",
      "192.167.255.255",
      "192.169.0.0",
      "198.17.255.255",
      "198.20.0.0",
      "223.255.255.255",
    ]) {
      assert.equal(classifyAddress(address), "public", address);
      assert.equal(isPublicAddress(address), true, address);
    }
  });
});

describe("IPv6", () => {
  it("names loopback, unspecified, link-local, unique-local, site-local and multicast", () => {
    assertClasses([
      ["::", "unspecified"],
      ["0:0:0:0:0:0:0:0", "unspecified"],
      ["::1", "loopback"],
      ["0:0:0:0:0:0:0:1", "loopback"],
      ["[::1]", "loopback"],
      ["fe80::1", "link-local"],
      ["fe80::1%eth0", "link-local"],
      ["febf:ffff::1", "link-local"],
      ["fc00::1", "unique-local"],
      ["fd12:3456:789a::1", "unique-local"],
      ["FD00::ABCD", "unique-local"],
      ["fec0::1", "site-local"],
      ["ff02::1", "multicast"],
      ["ff0e::101", "multicast"],
    ]);
  });

  it("judges IPv4-mapped, NAT64 and 6to4 addresses by the IPv4 address inside", () => {
    assertClasses([
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["0:0:0:0:0:ffff:10.0.0.1", "private"],
      ["::ffff:a00:1", "private"],
      ["::FFFF:169.254.169.254", "link-local"],
      ["::ffff:192.168.1.1", "private"],
      ["::ffff:8.8.8.8", "public"],
      ["64:ff9b::a00:1", "private"],
      ["64:ff9b::127.0.0.1", "loopback"],
      ["64:ff9b::808:808", "public"],
      ["2002:a00:1::1", "private"],
      ["2002:7f00:1::", "loopback"],
      ["2002:808:808::1", "public"],
    ]);
  });

  it("refuses everything outside global unicast, and the reserved blocks inside it", () => {
    assertClasses([
      ["::10.0.0.1", "reserved"],
      ["::8.8.8.8", "reserved"],
      ["::2", "reserved"],
      ["100::1", "reserved"],
      ["64:ff9b:1::1", "private"],
      ["1fff:ffff::1", "reserved"],
      ["4000::1", "reserved"],
      ["2001::1", "reserved"],
      ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
      ["2001:1ff::1", "reserved"],
      ["2001:db8::1", "documentation"],
      ["3fff::1", "documentation"],
    ]);
  });

  it("keeps global unicast public", () => {
    assertClasses([
      ["2001:200::1", "public"],
      ["2001:4860:4860::8888", "public"],
      ["2606:4700:4700::1111", "public"],
      ["2a00:1450:4001:81c::200e", "public"],
      ["3ffe::1", "public"],
    ]);
  });
});

describe("input that is not an address", () => {
  it("is invalid, never public", () => {
    for (const text of [
      "",
      "localhost",
      "example.com",
      "127.1",
      "0x7f.0.0.1",
      "2130706433",
      "010.0.0.1",
      "1.2.3.4.5",
      "256.0.0.1",
      "1.2.3.4:80",
      "::ffff:1.2.3",
      "1::2::3",
      "12345::1",
      "[::1",
    ]) {
      assert.equal(classifyAddress(text), "invalid", JSON.stringify(text));
      assert.equal(isPublicAddress(text), false);
    }
  });
});
