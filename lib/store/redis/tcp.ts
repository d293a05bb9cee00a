// The Redis backend's TCP transport (REDIS_URL): the part of @upstash/redis's client the store and @upstash/ratelimit
// use, on the official `redis` client, talking to any Redis 6.2+. Replies are Redis's own (RESP2), as the REST client
// hands them back with deserialization off, so the store code above cannot tell the transports apart.
//
// Fails closed like the REST transport: a command waits at most `timeoutMs` (for the connection too), nothing is
// queued while Redis is unreachable, and a command after a lost connection connects again, so the next request after
// Redis returns works with no restart.
import crypto from "node:crypto";
import { createClient, ErrorReply } from "redis";
import { log } from "@/lib/log";

type Arg = string | number;

/** Upstash marks its scripts `#!lua flags=allow-key-locking`, a flag only Upstash knows; stock Redis rejects it. */
const UPSTASH_SHEBANG = /^#!lua flags=allow-key-locking[^\n]*\n/;

const sha1 = (text: string) => crypto.createHash("sha1").update(text).digest("hex");

export type TcpRedisOptions = { url: string; timeoutMs: number };

export class TcpRedis {
  private readonly client;
  private readonly timeoutMs: number;
  /** Script hashes as callers know them (of the text with its shebang) → the hash of the text Redis runs. */
  private readonly loaded = new Map<string, string>();
  private connecting: Promise<void> | undefined;
  private pending = 0;
  private down = false;

  constructor(opts: TcpRedisOptions) {
    this.timeoutMs = opts.timeoutMs;
    this.client = createClient({
      url: opts.url,
      RESP: 2,
      // A command sent while disconnected fails at once instead of waiting for a Redis that may not come back.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: opts.timeoutMs,
        // No reconnecting in the background: the next command connects again (see ready()), so nothing runs, and
        // nothing holds a CLI's process open, while Redis is away.
        reconnectStrategy: false,
      },
    });
    this.client.on("error", (err: unknown) => {
      if (this.down) return;
      this.down = true;
      log.warn("redis: connection lost; failing closed until it returns", {
        error: err instanceof Error ? err.message : String(err),
      });
    });
    this.client.on("ready", () => {
      if (this.down) log.info("redis: connection restored");
      this.down = false;
    });
    // An idle connection does not keep the process alive; a command in flight does (see command()).
    this.client.unref();
  }

  /** Connects (once at a time) when there is no connection, and waits for it within the deadline. */
  private async ready(deadline: number): Promise<void> {
    if (this.client.isReady) return;
    if (!this.client.isOpen && !this.connecting) {
      this.connecting = this.client
        .connect()
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => {
          this.connecting = undefined;
        });
    }
    while (!this.client.isReady) {
      if (Date.now() >= deadline) throw new Error("redis: connection timed out");
      if (!this.connecting && !this.client.isOpen) throw new Error("redis: cannot connect");
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Sends one command and returns Redis's reply as is. */
  async command<T = unknown>(args: Arg[]): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    const argv = args.map(String);
    if (this.pending++ === 0) this.client.ref();
    try {
      return await this.attempt<T>(argv, deadline);
    } finally {
      if (--this.pending === 0) this.client.unref();
    }
  }

  private async attempt<T>(argv: string[], deadline: number): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.ready(deadline);
        const timeout = Math.max(1, deadline - Date.now());
        return (await this.client.sendCommand(argv, { timeout })) as T;
      } catch (err) {
        // Redis answered with an error (a script error, NOSCRIPT, a wrong type): sending again would not help.
        // One quick retry absorbs a connection that died under a command, as on the REST transport.
        if (err instanceof ErrorReply || attempt >= 1 || Date.now() >= deadline) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  // Scripts: EVALSHA, and EVAL when Redis does not know the script yet (after a restart, say).
  createScript<T = unknown>(script: string) {
    const body = script.replace(UPSTASH_SHEBANG, "");
    const hash = sha1(body);
    return {
      exec: (keys: string[], args: string[]): Promise<T> => this.runScript<T>(hash, body, keys, args),
    };
  }

  private async runScript<T>(hash: string, body: string, keys: string[], args: Arg[]): Promise<T> {
    try {
      return await this.command<T>(["EVALSHA", hash, keys.length, ...keys, ...args]);
    } catch (err) {
      if (!(err instanceof ErrorReply) || !err.message.startsWith("NOSCRIPT")) throw err;
      return this.command<T>(["EVAL", body, keys.length, ...keys, ...args]);
    }
  }

  /** As @upstash/ratelimit calls it: NOSCRIPT makes it call eval() with the text, which registers the hash. */
  evalsha<T = unknown>(hash: string, keys: string[], args: Arg[]): Promise<T> {
    return this.command<T>(["EVALSHA", this.loaded.get(hash) ?? hash, keys.length, ...keys, ...args]);
  }

  eval<T = unknown>(script: string, keys: string[], args: Arg[]): Promise<T> {
    const body = script.replace(UPSTASH_SHEBANG, "");
    this.loaded.set(sha1(script), sha1(body));
    return this.command<T>(["EVAL", body, keys.length, ...keys, ...args]);
  }

  /** Loads a script as given (no shebang handling: callers then run it by this hash with evalsha). */
  scriptLoad(script: string): Promise<string> {
    return this.command(["SCRIPT", "LOAD", script]);
  }

  publish(channel: string, message: string): Promise<number> {
    return this.command(["PUBLISH", channel, message]);
  }

  /**
   * Listens on `channel` over a connection of its own, which reconnects in the background (and subscribes again)
   * after Redis goes away; `onLive` hears when messages can arrive and when they cannot. Returns the stop function.
   */
  subscribe(
    channel: string,
    onMessage: (message: string) => void,
    onLive: (live: boolean) => void,
  ): () => Promise<void> {
    const sub = this.client.duplicate({
      disableOfflineQueue: false,
      socket: {
        connectTimeout: this.timeoutMs,
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000),
      },
    });
    let live = false;
    const setLive = (next: boolean) => {
      if (next === live) return;
      live = next;
      onLive(next);
    };
    sub.on("error", () => setLive(false));
    sub.on("end", () => setLive(false));
    // Live once subscribed; after a reconnect the client subscribes again before it reports ready.
    let subscribed = false;
    sub.on("ready", () => subscribed && setLive(true));
    sub.unref();
    let stopped = false;
    const started = sub
      .connect()
      .then(() => sub.subscribe(channel, (message: string) => onMessage(message)))
      .then(() => {
        subscribed = true;
        setLive(sub.isReady);
      })
      .catch((err: unknown) => {
        setLive(false);
        log.warn("redis: subscribe failed; polling instead", {
          error: err instanceof Error ? err.message : String(err),
        });
      });
    return async () => {
      if (stopped) return;
      stopped = true;
      await started;
      setLive(false);
      if (sub.isOpen) await sub.close().catch(() => undefined);
    };
  }

  ping(): Promise<string> {
    return this.command(["PING"]);
  }
  get<T = string>(key: string): Promise<T | null> {
    return this.command(["GET", key]);
  }
  set(
    key: string,
    value: string,
    opts: { nx?: boolean; xx?: boolean; px?: number; ex?: number } = {},
  ): Promise<string | null> {
    const args: Arg[] = ["SET", key, value];
    if (opts.nx) args.push("NX");
    if (opts.xx) args.push("XX");
    if (opts.px !== undefined) args.push("PX", opts.px);
    if (opts.ex !== undefined) args.push("EX", opts.ex);
    return this.command(args);
  }
  del(...keys: string[]): Promise<number> {
    return this.command(["DEL", ...keys]);
  }
  exists(...keys: string[]): Promise<number> {
    return this.command(["EXISTS", ...keys]);
  }
  hget<T = string>(key: string, field: string): Promise<T | null> {
    return this.command(["HGET", key, field]);
  }
  hmget(key: string, ...fields: string[]): Promise<unknown> {
    return this.command(["HMGET", key, ...fields]);
  }
  hgetall(key: string): Promise<unknown> {
    return this.command(["HGETALL", key]);
  }
  hset(key: string, values: Record<string, string | number>): Promise<number> {
    return this.command(["HSET", key, ...Object.entries(values).flat()]);
  }
  hsetnx(key: string, field: string, value: string): Promise<0 | 1> {
    return this.command(["HSETNX", key, field, value]);
  }
  hdel(key: string, ...fields: string[]): Promise<number> {
    return this.command(["HDEL", key, ...fields]);
  }
  hlen(key: string): Promise<number> {
    return this.command(["HLEN", key]);
  }
  lrange<T = string>(key: string, start: number, stop: number): Promise<T[]> {
    return this.command(["LRANGE", key, start, stop]);
  }
  zrange<T extends unknown[] = string[]>(
    key: string,
    min: Arg,
    max: Arg,
    opts: { byScore?: boolean; rev?: boolean; offset?: number; count?: number; withScores?: boolean } = {},
  ): Promise<T> {
    const args: Arg[] = ["ZRANGE", key, min, max];
    if (opts.byScore) args.push("BYSCORE");
    if (opts.rev) args.push("REV");
    if (opts.offset !== undefined && opts.count !== undefined) args.push("LIMIT", opts.offset, opts.count);
    if (opts.withScores) args.push("WITHSCORES");
    return this.command(args);
  }
  zrem(key: string, ...members: string[]): Promise<number> {
    return this.command(["ZREM", key, ...members]);
  }
  zscore(key: string, member: string): Promise<number | string | null> {
    return this.command(["ZSCORE", key, member]);
  }

  /** Closes the connection (tests, shutdown). */
  async quit(): Promise<void> {
    if (this.client.isOpen) await this.client.quit();
  }
}
