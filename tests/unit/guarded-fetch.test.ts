// The guarded fetch on its own, against loopback servers: host policy, address checks before connecting, pinned
// connections, credentials and redirects. Names under .test never resolve for real: a stubbed resolver answers them.
import assert from "node:assert/strict";
import dc from "node:diagnostics_channel";
import http from "node:http";
import type net from "node:net";
import { after, before, beforeEach, describe, it } from "node:test";
import zlib from "node:zlib";
import {
  createGuardedFetch,
  RefusedUrlError,
  type ResolvedAddress,
  type UrlPolicy,
  type UrlVerdict,
} from "@/lib/net/guarded-fetch";

type Seen = { path: string; method: string; headers: http.IncomingHttpHeaders; body: string };
type Server = { port: number; seen: Seen[]; close: () => Promise<void> };
type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function startServer(route: Route): Promise<Server> {
  const seen: Seen[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({
        path: req.url ?? "",
        method: req.method ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      route(req, res);
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** TCP client sockets created in this process: the guard must refuse before creating one. */
let socketsOpened = 0;
const countSocket = () => socketsOpened++;
dc.subscribe("net.client.socket", countSocket);

const SECRETS = { authorization: "Bearer secret", "x-key": "secret", cookie: "session=secret" };
const ALLOW: UrlVerdict = { allowed: true, anyAddress: true, credentials: true };
const ALLOW_NO_CREDENTIALS: UrlVerdict = { allowed: true, anyAddress: true, credentials: false };

/** A policy by origin; anything unlisted is refused. */
function policyOf(origins: Record<string, UrlVerdict>): UrlPolicy {
  return (url) => origins[url.origin] ?? { allowed: false, reason: "not on the list" };
}

/** Resolves the given names and counts calls; any other name fails as DNS would. */
function stubResolver(answers: Record<string, ResolvedAddress[]>) {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return found;
  };
  return { resolve, calls };
}

const loopback = [{ address: "127.0.0.1", family: 4 }];

let a: Server;
let b: Server;
let aUrl: string;
let bUrl: string;

before(async () => {
  a = await startServer((req, res) => {
    const redirect = /^\/redirect\/(\d+)\?to=(.*)$/.exec(req.url ?? "");
    if (redirect) {
      res.writeHead(Number(redirect[1]), { Location: decodeURIComponent(redirect[2]) });
      return res.end();
    }
    if (req.url === "/loop") {
      res.writeHead(302, { Location: "/loop" });
      return res.end();
    }
    if (req.url === "/gzip") {
      const body = zlib.gzipSync(JSON.stringify({ packed: true }));
      res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip" });
      return res.end(body);
    }
    if (req.url === "/hang") {
      res.writeHead(200, { "Content-Type": "application/octet-stream" });
      return res.write("partial");
    }
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ from: "a", path: req.url }));
  });
  b = await startServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ from: "b" }));
  });
  aUrl = `http://127.0.0.1:${a.port}`;
  bUrl = `http://127.0.0.1:${b.port}`;
});
after(async () => {
  dc.unsubscribe("net.client.socket", countSocket);
  await Promise.all([a.close(), b.close()]);
});
beforeEach(() => {
  a.seen.length = 0;
  b.seen.length = 0;
});

async function assertRefused(work: Promise<unknown>, reason: RegExp) {
  await assert.rejects(work, (err: unknown) => err instanceof RefusedUrlError && reason.test(err.message));
}

describe("host policy", () => {
  it("fetches an allowed origin and refuses any other before opening a socket", async () => {
    const fetch = createGuardedFetch({ policy: policyOf({ [aUrl]: ALLOW }) });
    const res = await fetch(`${aUrl}/ok`);
    assert.deepEqual(await res.json(), { from: "a", path: "/ok" });
    const opened = socketsOpened;
    await assertRefused(fetch(`${bUrl}/ok`), /not on the list/);
    assert.equal(socketsOpened, opened, "no socket for a refused URL");
    assert.equal(b.seen.length, 0);
  });

  it("refuses URLs with user info and non-HTTP schemes", async () => {
    const fetch = createGuardedFetch({ policy: () => ALLOW });
    await assertRefused(fetch(`http://user:pass@127.0.0.1:${a.port}/`), /user info/);
    await assertRefused(fetch("file:///etc/passwd"), /file:/);
    assert.equal(a.seen.length, 0);
  });

  it("passes data: URLs through without any network", async () => {
    const fetch = createGuardedFetch({ policy: () => ({ allowed: false, reason: "never asked" }) });
    const res = await fetch("data:text/plain;base64,aGVsbG8=");
    assert.equal(await res.text(), "hello");
  });
});

describe("addresses", () => {
  it("resolves a name once, checks it, and connects to exactly that address", async () => {
    const { resolve, calls } = stubResolver({ "pinned.test": loopback });
    const fetch = createGuardedFetch({ policy: () => ALLOW, resolve });
    // pinned.test has no real address: reaching the server proves the connection used the checked answer.
    const res = await fetch(`http://pinned.test:${a.port}/pinned`);
    assert.deepEqual(await res.json(), { from: "a", path: "/pinned" });
    assert.deepEqual(calls, ["pinned.test"]);
    assert.equal(a.seen[0].headers.host, `pinned.test:${a.port}`);
  });

  it("refuses a public-looking name that resolves to a private address, before connecting", async () => {
    const { resolve, calls } = stubResolver({ "cdn.example.test": [{ address: "10.0.0.1", family: 4 }] });
    const fetch = createGuardedFetch({
      policy: () => ({ allowed: true, anyAddress: false, credentials: false }),
      resolve,
    });
    const opened = socketsOpened;
    await assertRefused(
      fetch("https://cdn.example.test/image.png"),
      /cdn\.example\.test is at 10\.0\.0\.1, a private address/,
    );
    assert.deepEqual(calls, ["cdn.example.test"]);
    assert.equal(socketsOpened, opened, "no connection was attempted");
  });

  it("refuses when any one of the addresses is not public", async () => {
    const mixed = [
      { address: "93.184.216.34", family: 4 },
      { address: "::ffff:169.254.169.254", family: 6 },
    ];
    const { resolve } = stubResolver({ "mixed.test": mixed });
    const fetch = createGuardedFetch({
      policy: () => ({ allowed: true, anyAddress: false, credentials: false }),
      resolve,
    });
    const opened = socketsOpened;
    await assertRefused(fetch("https://mixed.test/x"), /::ffff:169\.254\.169\.254, a link-local address/);
    assert.equal(socketsOpened, opened);
  });

  it("checks IP literals without asking the resolver", async () => {
    const { resolve, calls } = stubResolver({});
    const fetch = createGuardedFetch({
      policy: () => ({ allowed: true, anyAddress: false, credentials: false }),
      resolve,
    });
    const opened = socketsOpened;
    await assertRefused(fetch(`http://127.0.0.1:${a.port}/`), /a loopback address/);
    await assertRefused(fetch(`http://[::1]:${a.port}/`), /a loopback address/);
    await assertRefused(fetch(`http://[::ffff:7f00:1]:${a.port}/`), /a loopback address/);
    // The URL parser turns these spellings into 127.0.0.1 before the check sees them.
    await assertRefused(fetch(`http://0x7f.1:${a.port}/`), /a loopback address/);
    await assertRefused(fetch(`http://2130706433:${a.port}/`), /a loopback address/);
    assert.deepEqual(calls, []);
    assert.equal(socketsOpened, opened);
    assert.equal(a.seen.length, 0);
  });

  it("refuses a name with no address", async () => {
    const fetch = createGuardedFetch({ policy: () => ALLOW, resolve: async () => [] });
    await assertRefused(fetch("http://nothing.test/"), /has no address/);
  });
});

describe("credentials", () => {
  it("sends credential headers only where the policy allows them", async () => {
    const fetch = createGuardedFetch({ policy: policyOf({ [aUrl]: ALLOW, [bUrl]: ALLOW_NO_CREDENTIALS }) });
    await fetch(`${aUrl}/api`, { headers: { ...SECRETS, accept: "application/json" } });
    await fetch(`${bUrl}/file`, { headers: { ...SECRETS, accept: "application/json" } });
    assert.equal(a.seen[0].headers["x-key"], "secret");
    assert.equal(a.seen[0].headers.authorization, "Bearer secret");
    const toB = b.seen[0].headers;
    assert.equal(toB.authorization, undefined);
    assert.equal(toB["x-key"], undefined);
    assert.equal(toB.cookie, undefined);
    assert.equal(toB.accept, "application/json", "other headers still go");
  });
});

describe("redirects", () => {
  const redirect = (status: number, to: string) => `${aUrl}/redirect/${status}?to=${encodeURIComponent(to)}`;

  it("never carries credentials to another origin, even one the policy trusts with them", async () => {
    const fetch = createGuardedFetch({ policy: policyOf({ [aUrl]: ALLOW, [bUrl]: ALLOW }) });
    for (const status of [301, 302, 303, 307, 308]) {
      b.seen.length = 0;
      const res = await fetch(redirect(status, `${bUrl}/landed`), { headers: SECRETS });
      assert.deepEqual(await res.json(), { from: "b" });
      assert.equal(b.seen.length, 1, `${status} was followed`);
      assert.equal(b.seen[0].headers["x-key"], undefined, `${status}: no x-key`);
      assert.equal(b.seen[0].headers.authorization, undefined, `${status}: no Authorization`);
      assert.equal(b.seen[0].headers.cookie, undefined, `${status}: no cookie`);
    }
  });

  it("keeps credentials on a same-origin redirect", async () => {
    const fetch = createGuardedFetch({ policy: policyOf({ [aUrl]: ALLOW }) });
    const res = await fetch(redirect(302, "/landed"), { headers: SECRETS });
    assert.deepEqual(await res.json(), { from: "a", path: "/landed" });
    assert.equal(a.seen[1].headers["x-key"], "secret");
  });

  it("checks every hop against the policy, and refuses a hop to an origin it does not allow", async () => {
    const fetch = createGuardedFetch({ policy: policyOf({ [aUrl]: ALLOW }) });
    await assertRefused(fetch(redirect(307, `${bUrl}/landed`), { headers: SECRETS }), /not on the list/);
    assert.equal(b.seen.length, 0, "the other origin was never contacted");
  });

  it("refuses a hop to a private address even from an origin that may be private", async () => {
    const { resolve } = stubResolver({ "internal.test": [{ address: "192.168.1.10", family: 4 }] });
    const policy: UrlPolicy = (url) =>
      url.origin === aUrl ? ALLOW : { allowed: true, anyAddress: false, credentials: false };
    const fetch = createGuardedFetch({ policy, resolve });
    const opened = socketsOpened;
    await assertRefused(fetch(redirect(302, "http://internal.test/admin")), /192\.168\.1\.10, a private address/);
    assert.equal(socketsOpened - opened, 1, "only the socket to the first origin");
  });

  it("turns a POST into a body-less GET on 303, keeps it on 307", async () => {
    const fetch = createGuardedFetch({ policy: policyOf({ [aUrl]: ALLOW }) });
    const init = { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' };
    await fetch(redirect(303, "/after-303"), init);
    assert.deepEqual([a.seen[1].method, a.seen[1].body, a.seen[1].headers["content-type"]], ["GET", "", undefined]);
    a.seen.length = 0;
    await fetch(redirect(307, "/after-307"), init);
    assert.deepEqual([a.seen[1].method, a.seen[1].body], ["POST", '{"a":1}']);
    assert.equal(a.seen[1].headers["content-length"], "7", "a known length, not chunked");
    assert.equal(a.seen[1].headers["transfer-encoding"], undefined);
  });

  it("gives up after five redirects", async () => {
    const fetch = createGuardedFetch({ policy: policyOf({ [aUrl]: ALLOW }) });
    await assertRefused(fetch(`${aUrl}/loop`), /more than 5 redirects/);
    assert.equal(a.seen.length, 6);
  });
});

describe("responses", () => {
  it("decodes a gzip body", async () => {
    const fetch = createGuardedFetch({ policy: policyOf({ [aUrl]: ALLOW }) });
    assert.deepEqual(await (await fetch(`${aUrl}/gzip`)).json(), { packed: true });
  });

  it("stops reading when the caller aborts", async () => {
    const fetch = createGuardedFetch({ policy: policyOf({ [aUrl]: ALLOW }) });
    const controller = new AbortController();
    const res = await fetch(`${aUrl}/hang`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("deadline")), 50);
    await assert.rejects(res.arrayBuffer());
  });

  it("reports a refused connection the way fetch does", async () => {
    const closed = await startServer(() => undefined);
    await closed.close();
    const origin = `http://127.0.0.1:${closed.port}`;
    const fetch = createGuardedFetch({ policy: policyOf({ [origin]: ALLOW }) });
    await assert.rejects(
      fetch(`${origin}/`),
      (err: unknown) => err instanceof TypeError && err.message === "fetch failed" && err.cause instanceof Error,
    );
  });
});
