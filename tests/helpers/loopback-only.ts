// A tripwire for tests that feed private addresses to code which must refuse them: while armed, every TCP connect
// in this process is counted, and one aimed at anything but loopback fails before a packet leaves. A broken guard
// then shows up as a failed test, never as traffic to 10.x or 169.254.x.
import dns from "node:dns";
import net from "node:net";

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

export type Tripwire = {
  /** Connects started since arming, loopback or not. */
  readonly connects: number;
  /** Connects that aimed at a non-loopback address and were stopped. */
  readonly blocked: string[];
  disarm(): void;
};

const isLoopback = (address: string) => {
  const a = address.replace(/^::ffff:/i, "");
  return (net.isIPv4(a) && a.startsWith("127.")) || a === "::1";
};

export function armLoopbackOnly(): Tripwire {
  const proto = net.Socket.prototype as unknown as { connect: (...args: unknown[]) => net.Socket };
  const original = proto.connect;
  const state = { connects: 0, blocked: [] as string[] };

  proto.connect = function (this: net.Socket, ...args: unknown[]) {
    state.connects++;
    // net.connect passes [options, callback] as one normalised array; a direct call passes options or a port.
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as net.TcpNetConnectOpts | undefined;
    if (options && typeof options === "object" && "port" in options) {
      const host = options.host ?? "localhost";
      if (net.isIP(host) !== 0 && !isLoopback(host)) {
        state.blocked.push(host);
        options.host = "blocked.invalid";
        options.lookup = (_h, _o, cb) => cb(Object.assign(new Error(`tripwire: ${host}`), { code: "EBLOCKED" }), "");
      } else if (net.isIP(host) === 0) {
        const inner = (options.lookup ?? dns.lookup) as net.LookupFunction;
        options.lookup = (hostname, lookupOptions, callback) =>
          inner(hostname, lookupOptions, ((err, address, family) => {
            if (err) return callback(err, "", 0);
            const list = Array.isArray(address) ? address.map((a) => a.address) : [address];
            const outside = list.filter((a) => !isLoopback(a));
            if (outside.length > 0) {
              state.blocked.push(...outside);
              return callback(Object.assign(new Error(`tripwire: ${outside.join(", ")}`), { code: "EBLOCKED" }), "", 0);
            }
            (callback as LookupCallback)(null, address, family);
          }) as LookupCallback);
      }
    }
    return original.apply(this, args);
  };

  return {
    get connects() {
      return state.connects;
    },
    get blocked() {
      return state.blocked;
    },
    disarm() {
      proto.connect = original;
    },
  };
}
