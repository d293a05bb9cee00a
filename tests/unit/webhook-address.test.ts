// The webhook address classifier: only public unicast passes, on IPv4, IPv6 and the forms that embed IPv4.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AddressClass, classifyAddress, isPublicAddress } from "@/lib/net/address";

const CASES: Array<[string, AddressClass]> = [
  // IPv4
  ["8.8.8.8", "public"],
  ["1.1.1.1", "public"],
  ["93.184.216.34", "public"],
  ["0.0.0.0", "unspecified"],
  ["0.255.255.255", "unspecified"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["11.0.0.0", "public"],
  ["100.63.255.255", "public"],
  ["100.64.0.0", "shared"],
  ["100.127.255.255", "shared"],
  ["100.128.0.0", "public"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "link-local"],
  ["169.253.255.255", "public"],
  ["172.15.255.255", "public"],
  ["172.16.0.0", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.0", "public"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.1", "documentation"],
  ["192.88.99.1", "reserved"],
  ["192.167.255.255", "public"],
  ["192.168.0.1", "private"],
  ["192.169.0.0", "public"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.20.0.0", "public"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["223.255.255.255", "public"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  // IPv6
  ["2606:4700:4700::1111", "public"],
  ["2001:4860:4860::8888", "public"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["febf:ffff::1", "link-local"],
  ["fec0::1", "site-local"],
  ["fc00::1", "unique-local"],
  ["fd12:3456:789a::1", "unique-local"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["2001::1", "reserved"],
  ["2001:1ff::1", "reserved"],
  ["2001:200::1", "public"],
  ["100::1", "reserved"],
  ["4000::1", "reserved"],
  ["64:ff9b:1::1", "private"],
  // Forms that carry an IPv4 address are judged by it.
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:169.254.169.254", "link-local"],
  ["::FFFF:8.8.8.8", "public"],
  ["::ffff:0:8.8.8.8", "reserved"],
  ["::127.0.0.1", "reserved"],
  ["::8.8.8.8", "reserved"],
  ["64:ff9b::10.0.0.1", "private"],
  ["64:ff9b::8.8.8.8", "public"],
  ["2002:c0a8:0101::1", "private"],
  ["2002:0808:0808::1", "public"],
  ["[::1]", "loopback"],
  ["[2606:4700:4700::1111]", "public"],
  // Not addresses
  ["", "invalid"],
  ["localhost", "invalid"],
  ["example.com", "invalid"],
  ["1.2.3", "invalid"],
  ["256.1.1.1", "invalid"],
  ["010.0.0.1", "invalid"],
  ["0x7f.0.0.1", "invalid"],
  ["2130706433", "invalid"],
  ["1::2::3", "invalid"],
  [":::", "invalid"],
];

describe("classifyAddress", () => {
  for (const [address, kind] of CASES) {
    it(`${JSON.stringify(address)} is ${kind}`, () => {
      assert.equal(classifyAddress(address), kind);
      assert.equal(isPublicAddress(address), kind === "public");
    });
  }
});
