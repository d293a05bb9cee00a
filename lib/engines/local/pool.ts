// A pool of GPU servers of one kind: least-busy selection, failover to the next server, and a 30 s time-out for a
// server that keeps failing or refuses connections.
import { ProviderError } from "@/lib/engines/failures";
import { sleep } from "@/lib/engines/providers/poll";
import { LOCAL_ENV, type LocalKind } from "@/lib/engines/routes";
import { log } from "@/lib/log";
import { isRefused } from "./http";
import type { SharedSlots } from "./slots";

export const FAILURES_TO_EJECT = 3;
export const EJECT_MS = 30_000;
/** How old a server's reported queue length may be before selection asks again. */
export const QUEUE_TTL_MS = 1_000;
/** How often a call waits to look again for a free slot while every server holds its cap (GPU_SERVER_CONCURRENCY). */
export const SLOT_POLL_MS = 150;

export type PoolServer = {
  /** 1-based position in the configured list: what status shows instead of the URL. */
  readonly index: number;
  readonly url: string;
  inFlight: number;
  /** Consecutive failures; a success resets it. */
  failures: number;
  /** Out of the pool until this time (ms since the epoch); 0 when in. */
  outUntil: number;
  /** Pending + running work the server itself reported, when its API does. */
  queue: number | null;
  queueAt: number;
  lastPicked: number;
  /** Per-server facts a client learns once, e.g. whether ComfyUI serves its /api/ paths. */
  readonly facts: Map<string, unknown>;
};

export type ServerHealth = {
  server: number;
  health: "ok" | "failing" | "out";
  in_flight: number;
  queue: number | null;
  retry_in_s?: number;
};

/** True when no server of a pool can take work: every one is out. */
export function everyServerOut(servers: readonly ServerHealth[]): boolean {
  return servers.every((s) => s.health === "out");
}

export type RunContext = {
  requestId: string;
  /** Fires on the client's cancel or the route's deadline. */
  signal: AbortSignal;
  /** True when the client went away (not the deadline): no server is blamed for that. */
  cancelled: () => boolean;
  /** Asks a server for its queue length (and so checks it is up) before selection; absent where no API reports it. */
  probe?: (server: PoolServer) => Promise<void>;
};

export class ServerPool {
  readonly servers: PoolServer[];
  private picks = 0;

  constructor(
    readonly kind: LocalKind,
    urls: readonly string[],
    private readonly now: () => number = Date.now,
    /** Each server's cap of calls, counted where every process that calls the servers sees it; none when absent. */
    private readonly slots?: SharedSlots,
  ) {
    this.servers = urls.map((url, i) => ({
      index: i + 1,
      url,
      inFlight: 0,
      failures: 0,
      outUntil: 0,
      queue: null,
      queueAt: 0,
      lastPicked: 0,
      facts: new Map(),
    }));
  }

  /** Runs `attempt` on the least-busy server, then on the next ones while they fail, before giving up. */
  async run<T>(ctx: RunContext, attempt: (server: PoolServer) => Promise<T>): Promise<T> {
    const tried = new Set<PoolServer>();
    let last: unknown;
    for (let picked = await this.pick(tried, ctx); picked; picked = await this.pick(tried, ctx)) {
      const { server, free } = picked;
      tried.add(server);
      try {
        const result = await attempt(server);
        this.recordSuccess(server);
        return result;
      } catch (err) {
        // A client that goes away says nothing about the server; a missed deadline does, but leaves no time to retry.
        if (ctx.cancelled()) throw err;
        this.recordFailure(server, err, ctx.requestId);
        if (ctx.signal.aborted) throw err;
        last = err;
      } finally {
        server.inFlight--;
        free?.();
      }
    }
    if (last !== undefined) throw last;
    const back = Math.min(...this.servers.map((s) => s.outUntil)) - this.now();
    throw new ProviderError(
      "capacity",
      `every ${this.kind} server is out of the pool`,
      undefined,
      Math.max(1, Math.ceil(back / 1000)),
    );
  }

  /**
   * Spreads `count` images of one request over the pool: as many parts as servers in service (at most `count`),
   * their sizes differing by at most one, each part one call (`attempt` with its first image's index and its size)
   * with the usual failover. Returns the images of the parts that succeeded, in order; throws when none did.
   */
  async runSpread<T>(
    ctx: RunContext,
    count: number,
    attempt: (server: PoolServer, offset: number, size: number) => Promise<T[]>,
  ): Promise<T[]> {
    const inService = this.servers.filter((s) => !this.isOut(s)).length;
    const parts = Math.max(1, Math.min(count, inService));
    const sizes = Array.from({ length: parts }, (_, i) => Math.floor(count / parts) + (i < count % parts ? 1 : 0));
    const offsets = sizes.map((_, i) => sizes.slice(0, i).reduce((sum, size) => sum + size, 0));
    const settled = await Promise.allSettled(
      sizes.map((size, i) => this.run(ctx, (server) => attempt(server, offsets[i], size))),
    );
    const made = settled.flatMap((s) => (s.status === "fulfilled" ? s.value : []));
    if (made.length === 0) throw (settled.find((s) => s.status === "rejected") as PromiseRejectedResult).reason;
    return made;
  }

  recordSuccess(server: PoolServer): void {
    server.failures = 0;
    server.outUntil = 0;
  }

  recordFailure(server: PoolServer, err: unknown, requestId?: string): void {
    server.failures++;
    const refused = isRefused(err);
    log.warn("gpu server failed", {
      request_id: requestId,
      pool: this.kind,
      server: server.index,
      failures: server.failures,
      detail: err instanceof Error ? err.message : String(err),
    });
    if (refused || server.failures >= FAILURES_TO_EJECT) {
      // After the time-out the server is tried again; one more failure then takes it out again.
      server.outUntil = this.now() + EJECT_MS;
      log.warn("gpu server taken out of the pool", {
        pool: this.kind,
        server: server.index,
        seconds: EJECT_MS / 1000,
        reason: refused ? "refused connection" : `${server.failures} failures in a row`,
      });
    }
  }

  /** Records a queue length the server reported (e.g. in a websocket status message). */
  recordQueue(server: PoolServer, queue: number): void {
    server.queue = queue;
    server.queueAt = this.now();
  }

  /** Our prompt has left the server's queue, so the last count it reported is out of date: ask again next time. */
  markQueueStale(server: PoolServer): void {
    server.queueAt = 0;
  }

  isOut(server: PoolServer): boolean {
    return server.outUntil > this.now();
  }

  /** Why this pool's routes cannot take work (every server out, naming the variable that lists them), or null. */
  outReason(): string | null {
    return everyServerOut(this.describe()) ? `every server of ${LOCAL_ENV[this.kind]} is out` : null;
  }

  describe(): ServerHealth[] {
    const now = this.now();
    return this.servers.map((s) => {
      const out = s.outUntil > now;
      return {
        server: s.index,
        health: out ? "out" : s.failures > 0 ? "failing" : "ok",
        in_flight: s.inFlight,
        queue: s.queue,
        ...(out && { retry_in_s: Math.ceil((s.outUntil - now) / 1000) }),
      };
    });
  }

  /** The least-busy server not yet tried with a free slot, waiting while every one holds its cap; none when aborted. */
  private async pick(tried: Set<PoolServer>, ctx: RunContext): Promise<Picked | undefined> {
    for (;;) {
      if (ctx.signal.aborted) return undefined;
      let candidates = this.servers.filter((s) => !tried.has(s) && !this.isOut(s));
      if (candidates.length > 1 && ctx.probe) {
        const stale = candidates.filter((s) => this.now() - s.queueAt > QUEUE_TTL_MS);
        await Promise.all(stale.map((s) => this.probe(s, ctx)));
        candidates = candidates.filter((s) => !this.isOut(s));
      }
      // Busy = what we have in flight there, or what the server says it holds (which includes ours), whichever is more.
      const busy = (s: PoolServer) => Math.max(s.inFlight, s.queue ?? 0);
      candidates.sort(
        (a, b) => busy(a) - busy(b) || a.inFlight - b.inFlight || a.lastPicked - b.lastPicked || a.index - b.index,
      );
      if (candidates.length === 0) return undefined;
      for (const server of candidates) {
        // Counted in the same step as chosen, so work picked at the same moment sees it and goes elsewhere.
        server.inFlight++;
        // A count that cannot be read (Redis away) fails the call, and the server is not left counted busy.
        const free = this.slots
          ? await this.slots.tryTake(`${this.kind} ${server.url}`).catch((err: unknown) => {
              server.inFlight--;
              throw err;
            })
          : undefined;
        if (free === null) {
          server.inFlight--;
          continue;
        }
        server.lastPicked = ++this.picks;
        return { server, free };
      }
      // An abort ends the wait; the loop's first line then gives up.
      await sleep(SLOT_POLL_MS, ctx.signal).catch(() => undefined);
    }
  }

  private async probe(server: PoolServer, ctx: RunContext): Promise<void> {
    try {
      await ctx.probe?.(server);
    } catch (err) {
      // A refused probe takes the server out now; other probe failures are left to the real call to judge.
      if (isRefused(err)) this.recordFailure(server, err, ctx.requestId);
    }
  }
}

/** A chosen server, and what frees its slot when servers have a cap. */
type Picked = { server: PoolServer; free?: () => void };

/** One pool per kind and server list, shared by every route that uses it and by /api/status. */
export type GpuPools = (kind: LocalKind, urls: readonly string[]) => ServerPool;

export function createGpuPools(slots?: SharedSlots): GpuPools {
  const pools = new Map<string, ServerPool>();
  return (kind, urls) => {
    const key = `${kind} ${urls.join(",")}`;
    let pool = pools.get(key);
    if (!pool) {
      pool = new ServerPool(kind, urls, Date.now, slots);
      pools.set(key, pool);
    }
    return pool;
  };
}
