// Test-only Upstash REST bridge to a local redis-server: @upstash/redis speaks HTTP, and no npm package serves that API.
//
// Limits (deliberate; this is test infrastructure, not a product):
// - Routes: POST `/` (one command as a JSON array), POST `/pipeline`, POST `/multi-exec`. No path-style
//   commands (`GET /set/k/v`), no SSE subscribe, no `/monitor`, no read-your-writes sync tokens.
// - Bearer-token auth only (no read-only tokens, no ACL). One logical database.
// - Talks RESP2 only (no HELLO 3), so map/set/double replies arrive as RESP2 arrays and bulk strings, which is
//   also what Upstash returns on its REST API.
// - Connections are shared round-robin; commands that change or block a connection (MULTI outside /multi-exec,
//   WATCH, SELECT, SUBSCRIBE, blocking pops, ...) are refused rather than emulated.
// - Lua: the `allow-key-locking` shebang flag (Upstash-only) is removed before the script reaches Redis. Redis then
//   hashes a different text, so EVALSHA / SCRIPT LOAD / SCRIPT EXISTS shas are translated through a per-bridge map;
//   an unknown sha passes through and Redis answers NOSCRIPT, which makes the client fall back to EVAL.
// - Replies: bulk and simple strings are base64-encoded when `Upstash-Encoding: base64` is sent; integers stay
//   numbers; nil is null; errors nested inside an array reply become their message string.
// - No request timeout towards Redis: a hung (not dead) redis-server hangs the request until the client aborts.
// - An incomplete reply is re-parsed from its start as data arrives: fine for test payloads, slow for huge ones.
// - Fault injection: `dropResponses` runs a request's commands and then cuts the connection instead of answering,
//   as a response lost on the way back would; the client sees a network error after Redis applied the commands.
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { after } from "node:test";
import { hasRedisServer, type RedisServer, startRedisServer } from "./redis-server";

export class ReplyError {
  constructor(readonly message: string) {}
}
export type Reply = Buffer | number | null | ReplyError | Reply[];

const CRLF = Buffer.from("\r\n");

function encodeCommand(args: string[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.from(arg, "utf8");
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, CRLF);
  }
  return Buffer.concat(parts);
}

/** Parses one RESP2 reply at `pos`; undefined when the buffer does not hold a whole reply yet. */
function parseReply(buf: Buffer, pos: number): [Reply, number] | undefined {
  const eol = buf.indexOf(CRLF, pos);
  if (eol < 0) return undefined;
  const line = buf.toString("utf8", pos + 1, eol);
  const next = eol + 2;
  switch (buf[pos]) {
    case 0x2b /* + */:
      return [Buffer.from(line, "utf8"), next];
    case 0x2d /* - */:
      return [new ReplyError(line), next];
    case 0x3a /* : */:
      return [Number(line), next];
    case 0x24 /* $ */:
      {
        const len = Number(line);
        if (len < 0) return [null, next];
        if (buf.length < next + len + 2) return undefined;
        return [buf.subarray(next, next + len), next + len + 2];
      }
    case 0x2a /* * */:
      {
        const count = Number(line);
        if (count < 0) return [null, next];
        const items: Reply[] = [];
        let at = next;
        for (let i = 0; i < count; i++) {
          const parsed = parseReply(buf, at);
          if (!parsed) return undefined;
          items.push(parsed[0]);
          at = parsed[1];
        }
        return [items, at];
      }
    default:
      throw new Error(`RESP: unexpected type byte ${buf[pos]}`);
  }
}

type Batch = { count: number; replies: Reply[]; resolve: (r: Reply[]) => void; reject: (e: Error) => void };

/** One socket; a batch of commands is written in one go and its replies come back in order. */
class RespConnection {
  private buf: Buffer = Buffer.alloc(0);
  private batches: Batch[] = [];
  closed = false;

  private constructor(
    private readonly socket: net.Socket,
    onClose: () => void,
  ) {
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      this.closed = true;
      onClose();
      for (const b of this.batches.splice(0)) b.reject(new Error("redis connection closed"));
    });
  }

  static connect(host: string, port: number, onClose: () => void): Promise<RespConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      socket.setNoDelay(true);
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        resolve(new RespConnection(socket, onClose));
      });
    });
  }

  send(commands: string[][]): Promise<Reply[]> {
    if (this.closed) return Promise.reject(new Error("redis connection closed"));
    return new Promise((resolve, reject) => {
      this.batches.push({ count: commands.length, replies: [], resolve, reject });
      this.socket.write(Buffer.concat(commands.map(encodeCommand)));
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    let pos = 0;
    for (;;) {
      const parsed = pos < this.buf.length ? parseReply(this.buf, pos) : undefined;
      if (!parsed) break;
      pos = parsed[1];
      const batch = this.batches[0];
      if (!batch) continue;
      batch.replies.push(parsed[0]);
      if (batch.replies.length === batch.count) {
        this.batches.shift();
        batch.resolve(batch.replies);
      }
    }
    // Copy the tail so parsed replies (subarrays) don't pin a growing buffer.
    this.buf = Buffer.from(this.buf.subarray(pos));
  }
}

/** A few lazily opened connections; a dead one is replaced on next use, so a restarted redis-server is picked up. */
class RespPool {
  private slots: Array<Promise<RespConnection> | undefined>;
  private next = 0;

  constructor(
    private readonly host: string,
    private readonly port: number,
    size: number,
  ) {
    this.slots = new Array<Promise<RespConnection> | undefined>(size).fill(undefined);
  }

  async exec(commands: string[][]): Promise<Reply[]> {
    const i = this.next++ % this.slots.length;
    let slot = this.slots[i];
    if (!slot) {
      const created: Promise<RespConnection> = RespConnection.connect(this.host, this.port, () => {
        if (this.slots[i] === created) this.slots[i] = undefined;
      });
      created.catch(() => {
        if (this.slots[i] === created) this.slots[i] = undefined;
      });
      this.slots[i] = slot = created;
    }
    return (await slot).send(commands);
  }

  async close(): Promise<void> {
    const open = this.slots.splice(0).map((s) =>
      s?.then(
        (c) => c.close(),
        () => undefined,
      ),
    );
    await Promise.all(open);
  }
}

// Upstash's Lua flag; stock Redis rejects unknown shebang flags.
const UPSTASH_ONLY_FLAGS = new Set(["allow-key-locking"]);

function stripUpstashFlags(script: string): string {
  if (!script.startsWith("#!")) return script;
  const eol = script.indexOf("\n");
  const first = eol < 0 ? script : script.slice(0, eol);
  const rest = eol < 0 ? "" : script.slice(eol);
  const match = /^#!lua(?:\s+flags=(\S*))?\s*$/.exec(first);
  if (!match) return script;
  const flags = (match[1] ?? "").split(",").filter((f) => f && !UPSTASH_ONLY_FLAGS.has(f));
  // Dropping the shebang entirely (not leaving a bare `#!lua`) keeps Redis's permissive legacy script mode;
  // the blank line keeps Lua error line numbers right.
  return (flags.length ? `#!lua flags=${flags.join(",")}` : "") + rest;
}

const sha1 = (s: string) => crypto.createHash("sha1").update(s, "utf8").digest("hex");

// These would change or block a shared connection.
const REFUSED = new Set([
  "MULTI",
  "EXEC",
  "DISCARD",
  "WATCH",
  "UNWATCH",
  "SELECT",
  "HELLO",
  "QUIT",
  "RESET",
  "AUTH",
  "MONITOR",
  "SUBSCRIBE",
  "PSUBSCRIBE",
  "SSUBSCRIBE",
  "UNSUBSCRIBE",
  "PUNSUBSCRIBE",
  "SUNSUBSCRIBE",
  "BLPOP",
  "BRPOP",
  "BLMOVE",
  "BRPOPLPUSH",
  "BLMPOP",
  "BZPOPMIN",
  "BZPOPMAX",
  "BZMPOP",
  "WAIT",
  "WAITAOF",
]);

type Json = string | number | null | Json[];

function toJson(reply: Reply, base64: boolean): Json {
  if (Buffer.isBuffer(reply)) return reply.toString(base64 ? "base64" : "utf8");
  if (reply instanceof ReplyError) return reply.message;
  if (Array.isArray(reply)) return reply.map((r) => toJson(r, base64));
  return reply;
}

class BadRequest extends Error {}

function parseCommands(body: unknown, many: boolean): string[][] {
  const asCommand = (c: unknown): string[] => {
    if (!Array.isArray(c) || c.length === 0) throw new BadRequest("command must be a non-empty JSON array");
    return c.map((a: unknown) => (typeof a === "string" ? a : JSON.stringify(a)));
  };
  if (!many) return [asCommand(body)];
  if (!Array.isArray(body) || body.length === 0) throw new BadRequest("body must be a non-empty array of commands");
  return body.map(asCommand);
}

export type UpstashBridge = {
  url: string;
  token: string;
  /**
   * Loses the responses to the next `count` requests whose commands match (all requests when no `match`), after
   * Redis has run them. Returns a function that tells how many were lost so far.
   */
  dropResponses(count: number, match?: (commands: string[][]) => boolean): () => number;
  close(): Promise<void>;
};

export type UpstashBridgeOptions = {
  /** redis://host:port, or give redisPort (and redisHost, default 127.0.0.1). */
  redisUrl?: string;
  redisPort?: number;
  redisHost?: string;
  /** Bearer token clients must send; random when omitted. */
  token?: string;
  /** Port to listen on (127.0.0.1); 0 or omitted picks a free one. */
  port?: number;
  poolSize?: number;
};

export async function startUpstashBridge(opts: UpstashBridgeOptions): Promise<UpstashBridge> {
  const target = opts.redisUrl ? new URL(opts.redisUrl) : undefined;
  const redisPort = target ? Number(target.port || 6379) : opts.redisPort;
  if (!redisPort) throw new Error("startUpstashBridge: give redisUrl or redisPort");
  const token = opts.token ?? crypto.randomBytes(16).toString("hex");
  const pool = new RespPool(target?.hostname || opts.redisHost || "127.0.0.1", redisPort, opts.poolSize ?? 4);
  // sha1(original script) → sha1(script Redis actually holds).
  const shas = new Map<string, string>();

  /** Rewrites script commands for stock Redis; `fix` maps the reply back to what Upstash would answer. */
  const translate = (cmd: string[]): { args: string[]; fix?: (r: Reply) => Reply } => {
    const name = cmd[0].toUpperCase();
    const sub = (cmd[1] ?? "").toUpperCase();
    if (REFUSED.has(name)) throw new BadRequest(`ERR command ${name} is not supported by the test bridge`);
    const remember = (script: string) => {
      const stripped = stripUpstashFlags(script);
      if (stripped !== script) shas.set(sha1(script), sha1(stripped));
      return stripped;
    };
    if ((name === "EVAL" || name === "EVAL_RO") && cmd.length > 1) {
      return { args: [cmd[0], remember(cmd[1]), ...cmd.slice(2)] };
    }
    if ((name === "EVALSHA" || name === "EVALSHA_RO") && cmd.length > 1) {
      return { args: [cmd[0], shas.get(cmd[1].toLowerCase()) ?? cmd[1], ...cmd.slice(2)] };
    }
    if (name === "SCRIPT" && sub === "LOAD" && cmd.length > 2) {
      const original = sha1(cmd[2]);
      return {
        args: [cmd[0], cmd[1], remember(cmd[2])],
        fix: (r) => (r instanceof ReplyError ? r : Buffer.from(original)),
      };
    }
    if (name === "SCRIPT" && sub === "EXISTS") {
      return { args: [cmd[0], cmd[1], ...cmd.slice(2).map((s) => shas.get(s.toLowerCase()) ?? s)] };
    }
    return { args: cmd };
  };

  const handle = async (path: string, body: unknown, base64: boolean): Promise<[number, unknown]> => {
    const entry = (r: Reply) => (r instanceof ReplyError ? { error: r.message } : { result: toJson(r, base64) });
    if (path === "/") {
      const { args, fix } = translate(parseCommands(body, false)[0]);
      const [reply] = await pool.exec([args]);
      const fixed = fix ? fix(reply) : reply;
      return fixed instanceof ReplyError ? [400, { error: fixed.message }] : [200, { result: toJson(fixed, base64) }];
    }
    if (path === "/pipeline") {
      const translated = parseCommands(body, true).map(translate);
      // One connection, one write: Redis runs them in order.
      const replies = await pool.exec(translated.map((t) => t.args));
      return [200, replies.map((r, i) => entry(translated[i].fix ? translated[i].fix(r) : r))];
    }
    if (path === "/multi-exec") {
      const translated = parseCommands(body, true).map(translate);
      // MULTI … EXEC written together on one connection, so nothing interleaves.
      const replies = await pool.exec([["MULTI"], ...translated.map((t) => t.args), ["EXEC"]]);
      const exec = replies[replies.length - 1];
      if (exec instanceof ReplyError) return [400, { error: exec.message }];
      if (!Array.isArray(exec)) return [400, { error: "ERR transaction aborted" }];
      return [200, exec.map((r, i) => entry(translated[i].fix ? translated[i].fix(r) : r))];
    }
    return [404, { error: `ERR unsupported path ${path}` }];
  };

  const drops: Array<{ left: number; dropped: number; match: (commands: string[][]) => boolean }> = [];
  /** Takes one pending drop that matches the request, if any. */
  const dropFor = (path: string, body: unknown): boolean => {
    const commands = parseCommands(body, path !== "/");
    const drop = drops.find((d) => d.left > 0 && d.match(commands));
    if (!drop) return false;
    drop.left--;
    drop.dropped++;
    return true;
  };

  const server = http.createServer((req, res) => {
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(json));
    };
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: "Unauthorized" });
      if (req.method !== "POST") return send(405, { error: "ERR only POST is supported by the test bridge" });
      const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
      const path = new URL(req.url ?? "/", "http://bridge").pathname.replace(/(.)\/$/, "$1");
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return send(400, { error: "ERR body is not valid JSON" });
      }
      handle(path, body, base64).then(
        ([status, json]) => (dropFor(path, body) ? req.socket.destroy() : send(status, json)),
        (err: unknown) =>
          err instanceof BadRequest
            ? send(400, { error: err.message })
            : send(503, { error: `ERR redis unavailable: ${err instanceof Error ? err.message : String(err)}` }),
      );
    });
  });
  // Longer than undici's idle keep-alive, so the client never reuses a socket the server has just closed.
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    dropResponses(count, match = () => true) {
      const drop = { left: count, dropped: 0, match };
      drops.push(drop);
      return () => drop.dropped;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.close();
    },
  };
}

export type BridgedRedis = { redis: RedisServer; bridge: UpstashBridge };

/**
 * One redis-server behind one bridge for a test file: started on first use, closed after the file's tests. `skip`
 * says why the file cannot run here (no redis-server on PATH).
 */
export function sharedUpstashBridge(): { skip: string | false; setup: () => Promise<BridgedRedis> } {
  let env: Promise<BridgedRedis> | undefined;
  after(async () => {
    if (!env) return;
    const { redis, bridge } = await env;
    await bridge.close();
    await redis.close();
  });
  return {
    skip: hasRedisServer() ? false : "redis-server is not on PATH (apt-get install -y redis-server)",
    setup: () =>
      (env ??= (async () => {
        const redis = await startRedisServer();
        return { redis, bridge: await startUpstashBridge({ redisPort: redis.port }) };
      })()),
  };
}
