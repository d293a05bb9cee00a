// Client IP resolution: the socket address, or with TRUSTED_PROXIES the right-most untrusted X-Forwarded-For hop.
// Used by the custom server (which alone sees the socket) and by route handlers on Vercel.
import net from "node:net";

export type ProxyList = { contains(ip: string): boolean; empty: boolean };

/** "::ffff:1.2.3.4" → "1.2.3.4"; strips brackets and IPv6 zone ids; null when not an IP. */
export function normalizeIp(raw: string | undefined | null): string | null {
  if (!raw) return null;
  let ip = raw.trim();
  if (ip.startsWith("[") && ip.includes("]")) ip = ip.slice(1, ip.indexOf("]"));
  const zone = ip.indexOf("%");
  if (zone !== -1) ip = ip.slice(0, zone);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) ip = mapped[1];
  // "1.2.3.4:5678" as some proxies write it.
  const withPort = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(ip);
  if (withPort) ip = withPort[1];
  return net.isIP(ip) ? ip.toLowerCase() : null;
}

/** Parse "10.0.0.1, 10.1.0.0/16, ::1" into a matcher; throws on a malformed entry so start fails loudly. */
export function parseTrustedProxies(spec: string): ProxyList {
  const list = new net.BlockList();
  const entries = spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [addr, bits, extra] = entry.split("/");
    const ip = normalizeIp(addr);
    if (!ip || extra !== undefined) throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR`);
    const family = net.isIP(ip) === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) {
      list.addAddress(ip, family);
    } else {
      const prefix = Number(bits);
      const max = family === "ipv6" ? 128 : 32;
      if (!/^\d+$/.test(bits) || prefix > max) throw new Error(`TRUSTED_PROXIES: "${entry}" has a bad prefix length`);
      list.addSubnet(ip, prefix, family);
    }
  }
  return {
    empty: entries.length === 0,
    contains(ip: string) {
      const n = normalizeIp(ip);
      if (!n) return false;
      return list.check(n, net.isIP(n) === 6 ? "ipv6" : "ipv4");
    },
  };
}

/**
 * The client's address. A client can only pick its identity through X-Forwarded-For when the socket
 * itself is a trusted proxy, and then only hops to the right of the first untrusted one are skipped.
 */
export function resolveClientIp(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  proxies: ProxyList,
): string | null {
  const peer = normalizeIp(socketAddress);
  if (!peer || proxies.empty || !proxies.contains(peer)) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? ""))
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(hops[i]);
    if (!hop) return null; // garbage in the chain: no usable address rather than a guessed one
    if (!proxies.contains(hop)) return hop;
  }
  // Every hop is a trusted proxy: the left-most is the closest thing to a client we have.
  return hops.length > 0 ? normalizeIp(hops[0]) : peer;
}

/**
 * How the client reached us: over TLS to this socket, or, when the socket is a trusted proxy, what that proxy says
 * in X-Forwarded-Proto. Any other client's X-Forwarded-Proto is ignored: it would only decide our cookie's Secure flag
 * for itself, but a header nobody vouches for decides nothing.
 */
export function resolveClientProto(
  socketEncrypted: boolean,
  socketAddress: string | undefined,
  forwardedProto: string | string[] | undefined,
  proxies: ProxyList,
): "https" | "http" {
  if (socketEncrypted) return "https";
  const peer = normalizeIp(socketAddress);
  if (!peer || proxies.empty || !proxies.contains(peer)) return "http";
  // The proxy that reached us appends nothing: the first value is what the client-facing proxy saw.
  const first = (Array.isArray(forwardedProto) ? forwardedProto.join(",") : (forwardedProto ?? "")).split(",")[0];
  return first.trim().toLowerCase() === "https" ? "https" : "http";
}

/** The quota identity of an address: IPv6 clients usually own a whole /64, so they share one bucket. */
export function ipIdentity(ip: string): string {
  if (net.isIP(ip) !== 6) return ip;
  return ipv6Prefix(ip, 64);
}

/** "2001:db8:1::/48" for any address in that /48 (prefix lengths that are whole groups only). */
export function ipv6Prefix(ip: string, bits: 16 | 32 | 48 | 64): string {
  return `${expandIpv6(ip)
    .slice(0, bits / 16)
    .join(":")}::/${bits}`;
}

function expandIpv6(ip: string): string[] {
  const [head, tail] = ip.split("::");
  const headParts = head ? head.split(":") : [];
  const tailParts = tail !== undefined && tail !== "" ? tail.split(":") : [];
  // An embedded IPv4 tail counts as two groups.
  const toGroups = (parts: string[]) =>
    parts.flatMap((p) => {
      if (!p.includes(".")) return [p];
      const o = p.split(".").map(Number);
      return [((o[0] << 8) | o[1]).toString(16), ((o[2] << 8) | o[3]).toString(16)];
    });
  const h = toGroups(headParts);
  const t = toGroups(tailParts);
  const fill = tail === undefined ? [] : Array(8 - h.length - t.length).fill("0");
  return [...h, ...fill, ...t].map((g) => g.replace(/^0+(?=.)/, "").toLowerCase());
}
