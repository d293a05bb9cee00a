// Name resolution that is checked once and then pinned: the connection goes to exactly the addresses that passed
// the check, so a DNS answer that changes in between (rebinding) cannot reach another host.
import dns from "node:dns";
import net from "node:net";
import { type AddressClass, classifyAddress } from "./address";

export type ResolvedAddress = { address: string; family: number };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** A URL's host as the resolver and the socket take it: an IPv6 literal without its brackets. */
export function bareHostname(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

export async function resolveWithSystem(hostname: string): Promise<ResolvedAddress[]> {
  return dns.promises.lookup(hostname, { all: true, verbatim: true });
}

/**
 * Every address `host` stands for: an IP literal is itself, a name is resolved (empty when it has none). With a
 * signal, the caller stops waiting at its abort (a lookup cannot be cancelled).
 */
export async function resolveAddresses(
  host: string,
  resolve: Resolver,
  signal?: AbortSignal,
): Promise<ResolvedAddress[]> {
  const family = net.isIP(host);
  if (family !== 0) return [{ address: host, family }];
  if (!signal) return resolve(host);
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  return Promise.race([resolve(host), aborted]);
}

/** The first address that is not public, with its class: one such address refuses the whole host. */
export function firstNonPublic(addresses: ResolvedAddress[]): { address: string; kind: AddressClass } | null {
  for (const { address } of addresses) {
    const kind = classifyAddress(address);
    if (kind !== "public") return { address, kind };
  }
  return null;
}

/** A lookup that answers with the addresses already checked, instead of asking DNS a second time. */
export function pinnedLookup(addresses: ResolvedAddress[]): net.LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family;
    const wanted = family === 4 || family === "IPv4" ? 4 : family === 6 || family === "IPv6" ? 6 : 0;
    const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
    if (usable.length === 0) {
      const err = Object.assign(new Error(`no IPv${wanted} address`), { code: "ENOTFOUND" });
      callback(err, "", 0);
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, usable[0].address, usable[0].family);
  };
}
