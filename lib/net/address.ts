// Sorts an IP address into the IANA special-purpose ranges, so outbound requests reach only public unicast hosts.
import net from "node:net";

export type AddressClass =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "shared"
  | "link-local"
  | "unique-local"
  | "site-local"
  | "documentation"
  | "benchmarking"
  | "multicast"
  | "reserved"
  | "invalid";

type Range = [prefix: string, bits: number, kind: AddressClass];

// RFC 6890 and the IANA IPv4 special-purpose registry; 240/4 includes the broadcast address.
const V4_RANGES: Range[] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

// The IANA IPv6 special-purpose registry, inside 2000::/3 (everything outside it is not global unicast anyway).
const V6_RANGES: Range[] = [
  ["2001::", 23, "reserved"],
  ["2001:db8::", 32, "documentation"],
  ["3fff::", 20, "documentation"],
];

// Outside 2000::/3, named where a name helps a log reader; the rest is "reserved".
const V6_OUTSIDE_GLOBAL: Range[] = [
  ["64:ff9b:1::", 48, "private"],
  ["fc00::", 7, "unique-local"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
];

const lists = (ranges: Range[], family: "ipv4" | "ipv6") =>
  ranges.map(([prefix, bits, kind]) => {
    const list = new net.BlockList();
    list.addSubnet(prefix, bits, family);
    return { list, kind };
  });
const V4 = lists(V4_RANGES, "ipv4");
const V6 = lists(V6_RANGES, "ipv6");
const V6_OUTSIDE = lists(V6_OUTSIDE_GLOBAL, "ipv6");

/** "public" for a global unicast address, else the special range it is in; anything that is not an IP is "invalid". */
export function classifyAddress(address: string): AddressClass {
  let ip = address.trim();
  if (ip.startsWith("[") && ip.endsWith("]")) ip = ip.slice(1, -1);
  const zone = ip.indexOf("%");
  if (zone !== -1) ip = ip.slice(0, zone);
  if (net.isIPv4(ip)) return classifyIpv4(ip);
  const groups = net.isIPv6(ip) ? parseIpv6(ip) : null;
  return groups ? classifyIpv6(ip, groups) : "invalid";
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === "public";
}

function classifyIpv4(ip: string): AddressClass {
  return V4.find((r) => r.list.check(ip, "ipv4"))?.kind ?? "public";
}

function classifyIpv6(ip: string, g: number[]): AddressClass {
  const zeroPrefix = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroPrefix(8)) return "unspecified";
  if (zeroPrefix(7) && g[7] === 1) return "loopback";
  // Forms that carry an IPv4 address are only as public as that address: IPv4-mapped (::ffff:a.b.c.d),
  // NAT64's well-known prefix (64:ff9b::/96) and 6to4 (2002:AABB:CCDD::/48).
  if (zeroPrefix(5) && g[5] === 0xffff) return classifyIpv4(ipv4Of(g[6], g[7]));
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyIpv4(ipv4Of(g[6], g[7]));
  if (g[0] === 0x2002) return classifyIpv4(ipv4Of(g[1], g[2]));
  if ((g[0] & 0xe000) !== 0x2000) return V6_OUTSIDE.find((r) => r.list.check(ip, "ipv6"))?.kind ?? "reserved";
  return V6.find((r) => r.list.check(ip, "ipv6"))?.kind ?? "public";
}

function ipv4Of(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/** Eight 16-bit groups of an address net.isIPv6 accepted (an embedded IPv4 tail counts as two). */
function parseIpv6(ip: string): number[] | null {
  const [head, tail, ...rest] = ip.split("::");
  if (rest.length > 0) return null;
  const groupsOf = (part: string | undefined) =>
    (part ? part.split(":") : []).flatMap((p) => {
      if (!p.includes(".")) return [Number.parseInt(p, 16)];
      const [a, b, c, d] = p.split(".").map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  const h = groupsOf(head);
  const t = groupsOf(tail);
  const fill = tail === undefined ? 0 : 8 - h.length - t.length;
  const groups = [...h, ...Array(fill).fill(0), ...t];
  return groups.length === 8 && groups.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff) ? groups : null;
}
