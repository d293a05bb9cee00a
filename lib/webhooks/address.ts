// Sorts an IP address into the special-purpose ranges (RFC 6890, the IANA registries), so a webhook is only ever
// sent to a public unicast host. Forms that embed an IPv4 address are judged by that address.
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

type Range = { base: bigint; bits: number; kind: AddressClass };

const range = (base: bigint, bits: number, kind: AddressClass): Range => ({ base, bits, kind });

// 240/4 includes the limited broadcast address 255.255.255.255.
const V4_RANGES: Range[] = [
  range(0x00000000n, 8, "unspecified"),
  range(0x0a000000n, 8, "private"),
  range(0x64400000n, 10, "shared"),
  range(0x7f000000n, 8, "loopback"),
  range(0xa9fe0000n, 16, "link-local"),
  range(0xac100000n, 12, "private"),
  range(0xc0000000n, 24, "reserved"),
  range(0xc0000200n, 24, "documentation"),
  range(0xc0586300n, 24, "reserved"),
  range(0xc0a80000n, 16, "private"),
  range(0xc6120000n, 15, "benchmarking"),
  range(0xc6336400n, 24, "documentation"),
  range(0xcb007100n, 24, "documentation"),
  range(0xe0000000n, 4, "multicast"),
  range(0xf0000000n, 4, "reserved"),
];

// Only 2000::/3 is global unicast; the named ranges outside it are named for the log, the rest is "reserved".
const V6_RANGES: Range[] = [
  range(0x2001_0db8n << 96n, 32, "documentation"),
  range(0x2001n << 112n, 23, "reserved"),
  range(0x3fffn << 112n, 20, "documentation"),
  range(0x0064_ff9b_0001n << 80n, 48, "private"),
  range(0xfc00n << 112n, 7, "unique-local"),
  range(0xfe80n << 112n, 10, "link-local"),
  range(0xfec0n << 112n, 10, "site-local"),
  range(0xff00n << 112n, 8, "multicast"),
];

const inRange = (value: bigint, width: number, r: Range) =>
  value >> BigInt(width - r.bits) === r.base >> BigInt(width - r.bits);

/** "public" for a global unicast address, else the special range it falls in; a non-address is "invalid". */
export function classifyAddress(address: string): AddressClass {
  let ip = address.trim();
  if (ip.startsWith("[") && ip.endsWith("]")) ip = ip.slice(1, -1);
  // A zone id (fe80::1%eth0) names an interface, not a different address.
  const zone = ip.indexOf("%");
  if (zone !== -1) ip = ip.slice(0, zone);
  if (net.isIPv4(ip)) return classifyV4(v4Value(ip));
  if (!net.isIPv6(ip)) return "invalid";
  const value = v6Value(ip);
  return value === null ? "invalid" : classifyV6(value);
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === "public";
}

function classifyV4(value: bigint): AddressClass {
  return V4_RANGES.find((r) => inRange(value, 32, r))?.kind ?? "public";
}

function classifyV6(value: bigint): AddressClass {
  const low32 = value & 0xffff_ffffn;
  const high96 = value >> 32n;
  if (value === 0n) return "unspecified";
  if (value === 1n) return "loopback";
  // IPv4-mapped ::ffff:a.b.c.d, NAT64's well-known prefix 64:ff9b::/96 and 6to4 2002:AABB:CCDD::/48 reach the
  // IPv4 address inside; the deprecated IPv4-compatible ::a.b.c.d is refused outright.
  if (high96 === 0xffffn) return classifyV4(low32);
  if (high96 === 0x0064_ff9b_0000_0000_0000_0000n) return classifyV4(low32);
  if (value >> 112n === 0x2002n) return classifyV4((value >> 80n) & 0xffff_ffffn);
  if (high96 === 0n) return "reserved";
  const named = V6_RANGES.find((r) => inRange(value, 128, r))?.kind;
  if (named) return named;
  return value >> 125n === 1n ? "public" : "reserved";
}

function v4Value(ip: string): bigint {
  return ip.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** The 128-bit value of an address net.isIPv6 accepted; an embedded dotted IPv4 tail counts as two groups. */
function v6Value(ip: string): bigint | null {
  const halves = ip.split("::");
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] =>
    part === ""
      ? []
      : part.split(":").flatMap((p) => {
          if (!p.includes(".")) return [Number.parseInt(p, 16)];
          const v = Number(v4Value(p));
          return [v >>> 16, v & 0xffff];
        });
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<number>(fill).fill(0), ...tail];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}
