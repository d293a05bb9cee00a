// Name resolution that is checked once and then pinned: the connection goes to exactly the addresses that passed
// the check, so a DNS answer that changes in between (rebinding) cannot reach another host.
import dns from "node:dns";
import type net from "node:net";

export type ResolvedAddress = { address: string; family: number };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export async function resolveWithSystem(hostname: string): Promise<ResolvedAddress[]> {
  return dns.promises.lookup(hostname, { all: true, verbatim: true });
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
