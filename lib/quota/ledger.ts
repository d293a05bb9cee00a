// The quota bookkeeping of one request, owned by the wrapper: it takes units, gives them back when work fails
// through no act of the caller, keeps them when the caller abandons work that already started, and knows the usage
// the rate-limit headers and the 200 body report.
import type { Caller } from "@/lib/auth/types";
import { StoreUnavailable } from "@/lib/errors";
import { describeError, log } from "@/lib/log";
import { withSpan } from "@/lib/metrics/trace";
import { type Buckets, dailyBucketOf, type Endpoint, freeCapsOf } from "@/lib/quota/policies";
import type { HeldUnit } from "@/lib/quota/types";
import { type Bucket, emptyUsage, type QuotaCounters, secondsUntil, type Take, type Usage } from "@/lib/quota/types";
import { ApiError } from "@/lib/schemas/api-error";

/** What a route learned of the work, noted on its quota (`quota.note`). Only validated values belong here. */
export type UsageNote = {
  model?: string;
  engine?: string;
  /** Images made and images that failed, when a request asked for several: each is one unit in the history. */
  made?: number;
  failedImages?: number;
};

/** One bucket a unit is counted on, and what a caller is told when it is used up. */
type Charge = { bucket: Bucket; identity: string; refusal: (take: Take) => ApiError };

export class Quota {
  private readonly taken: { charge: Charge; take: Take }[] = [];
  private current?: Usage;
  /** Units whose work has started (a provider call sent): a caller who leaves keeps these, and only these. */
  private startedUnits = 0;
  private holdingChanged?: (held: HeldUnit[]) => Promise<boolean | undefined>;

  /** `charges[0]` is the bucket the endpoint reports on; the others (caps) are counted on too. */
  constructor(
    private readonly store: QuotaCounters,
    private readonly charges: Charge[],
    private readonly abandoned: () => boolean,
  ) {}

  /**
   * Takes `units` units (one per image) from every charge, or none: each charge gives them all in one atomic take
   * (so a request for several units never holds part of them while another request is refused), and the first
   * charge that cannot is thrown as 429 after everything taken is refunded.
   */
  take(units = 1): Promise<Usage> {
    return withSpan("darkroom.quota_take", { "darkroom.bucket": this.charges[0]?.bucket.name ?? "" }, async () => {
      const takes: { charge: Charge; take: Take }[] = [];
      // One entry per unit and charge, unit by unit, so giveBack and jobs can return single images' units.
      const hold = () => {
        for (let unit = 0; unit < units; unit++) this.taken.push(...takes);
      };
      for (const charge of this.charges) {
        let take: Take;
        try {
          take = await this.store.take(charge.bucket, charge.identity, undefined, units);
        } catch (err) {
          // A later charge (a Free cap) the store could not count: what earlier charges took goes back.
          hold();
          await this.refund().catch((refundErr: unknown) =>
            log.warn("could not give back units after a failed take", describeError(refundErr)),
          );
          throw err;
        }
        if (charge === this.charges[0]) this.current = take;
        if (!take.ok) {
          hold();
          await this.refund();
          throw charge.refusal(take);
        }
        takes.push({ charge, take });
      }
      hold();
      await this.holdingChanged?.(this.heldUnits());
      return this.usage();
    });
  }

  /**
   * Refuses with the 429 `take` would give when any charge has fewer than `units` left, taking nothing: a caller with
   * nothing left is turned away before it sends an upload. A store that cannot answer leaves it to `take`.
   */
  async assertLeft(units = 1): Promise<void> {
    let found: Usage[];
    try {
      found = await Promise.all(this.charges.map((c) => this.store.peek(c.bucket, c.identity)));
    } catch (err) {
      if (err instanceof StoreUnavailable) return;
      throw err;
    }
    this.current = found[0];
    const spent = this.charges.findIndex((_, i) => found[i].remaining < units);
    if (spent === -1) return;
    const usage = found[spent];
    const windowStart = usage.resetMs - this.charges[spent].bucket.windowMs;
    throw this.charges[spent].refusal({ ...usage, ok: false, windowStart });
  }

  /** Gives back `units` of the units taken (images that failed while others were made). */
  async giveBack(units: number): Promise<Usage> {
    if (units > 0) await this.refund(this.taken.length - units * this.charges.length);
    return this.usage();
  }

  /** What the route learned of the work (model, engine), for the usage history. */
  readonly noted: UsageNote = {};
  readonly note = (fields: UsageNote): void => {
    Object.assign(this.noted, fields);
  };

  /**
   * The work of `units` units is under way (a provider call sent, an enhancement running): a caller who leaves now
   * keeps those units; the ones whose work never started go back.
   */
  readonly markStarted = (units = 1): void => {
    this.startedUnits += units;
  };

  /**
   * Hears what the request holds after each take and before each refund (its Idempotency-Key claim records it, so
   * another instance can give the units back if this one dies). A crash between the two loses a unit rather than
   * giving it back twice. A listener that answers false says another instance took the claim over and gave the
   * units back already, so a refund then gives nothing back again.
   */
  follow(listener: (held: HeldUnit[]) => Promise<boolean | undefined>): void {
    this.holdingChanged = listener;
  }

  /** The units taken so far, as a job would hold them. */
  heldUnits(): HeldUnit[] {
    return this.taken.map(({ charge, take }) => ({
      bucket: charge.bucket,
      identity: charge.identity,
      windowStart: take.windowStart,
    }));
  }

  /**
   * The units pass to an accepted job: `accept` stores it, then this request will not give them back. The claim
   * following this quota (follow) drops them first, so a crash in between never has them given back twice.
   */
  async handOff<T>(accept: () => Promise<T>): Promise<T> {
    await this.holdingChanged?.([]);
    const accepted = await accept();
    this.taken.splice(0);
    return accepted;
  }

  /**
   * Settles a failed request: the units go back, except, when the caller abandoned it, those of the work that had
   * started (the cost was spent).
   */
  async fail(): Promise<void> {
    if (this.startedUnits === 0 || !this.abandoned()) return this.refund();
    const held = this.taken.length / Math.max(1, this.charges.length);
    await this.giveBack(held - Math.min(held, this.startedUnits));
  }

  /** The usage of the reported bucket without taking anything; null when the store cannot answer. */
  async read(): Promise<Usage | null> {
    const usage = await this.peek(this.charges[0].bucket);
    if (usage) this.current = usage;
    return usage;
  }

  /** The caller's usage of another bucket (status shows Free callers their enhancements too); null when down. */
  async peek(bucket: Bucket): Promise<Usage | null> {
    try {
      return await this.store.peek(bucket, this.charges[0].identity);
    } catch (err) {
      if (err instanceof StoreUnavailable) return null;
      throw err;
    }
  }

  /** The usage known so far (after a take, counting this request). */
  usage(): Usage {
    return this.current ?? emptyUsage(this.charges[0].bucket);
  }

  /** What the rate-limit headers report: the known usage, else a fresh read, else an empty window. */
  async usageForHeaders(): Promise<Usage> {
    if (this.current) return this.current;
    return (await this.read().catch(() => null)) ?? emptyUsage(this.charges[0].bucket);
  }

  /** Refunds what was taken from position `from` on (all of it by default). */
  private async refund(from = 0): Promise<void> {
    const start = Math.max(0, from);
    // Recorded first, so a crash in between never gives a unit back twice; a store error still lets the refund run.
    let ours: boolean | undefined = true;
    if (start < this.taken.length && this.holdingChanged) {
      ours = await this.holdingChanged(this.heldUnits().slice(0, start)).catch((err: unknown) => {
        log.warn("recording held units failed", describeError(err));
        return true;
      });
    }
    const taken = this.taken.splice(start);
    if (ours === false) {
      log.warn("a request's Idempotency-Key claim was taken over; its units were given back there, not again here");
      return;
    }
    await refundUnits(
      this.store,
      taken.map(({ charge, take }) => ({
        bucket: charge.bucket,
        identity: charge.identity,
        windowStart: take.windowStart,
      })),
    );
    const primary = taken.filter((t) => t.charge === this.charges[0]).length;
    if (primary > 0 && this.current) {
      this.current = {
        ...this.current,
        used: this.current.used - primary,
        remaining: this.current.remaining + primary,
      };
    }
  }
}

/** Gives held units back: a failed request's, or a job's that failed through no act of its caller. */
export async function refundUnits(counters: QuotaCounters, units: HeldUnit[]): Promise<void> {
  await Promise.all(units.map((u) => counters.refund(u.bucket, u.identity, u.windowStart)));
}

const resetPhrase = (take: Take) => `It resets at ${new Date(take.resetMs).toISOString()} (midnight UTC).`;
const rateLimited = (take: Take, message: string) =>
  new ApiError("rate_limited", message, { retryAfter: secondsUntil(take.resetMs), dailyQuota: true });

/** The charges of a generate or enhance unit for a caller: its own bucket, then the Free plan's caps. */
export function chargesFor(buckets: Buckets, endpoint: Endpoint, caller: Caller): Charge[] {
  const own: Charge = {
    bucket: dailyBucketOf(buckets, endpoint, caller.plan, caller.dailyLimit),
    identity: caller.identity,
    refusal: (take) =>
      rateLimited(
        take,
        caller.plan === "free"
          ? `Daily free limit of ${take.limit} reached. ${resetPhrase(take)} For more, join the Pro waitlist at /waitlist.`
          : `Daily limit of ${take.limit} requests for this key reached. ${resetPhrase(take)}`,
      ),
  };
  if (caller.plan !== "free" || endpoint === "status") return [own];
  const caps = freeCapsOf(buckets, endpoint);
  const charges = [own];
  if (caller.net48) {
    charges.push({
      bucket: caps.per48,
      identity: caller.net48,
      refusal: (take) => rateLimited(take, `Daily free limit for this IPv6 network reached. ${resetPhrase(take)}`),
    });
  }
  if (caps.global.limit > 0) {
    charges.push({
      bucket: caps.global,
      identity: "all",
      refusal: (take) =>
        rateLimited(
          take,
          `The free plan's capacity for today is used up. ${resetPhrase(take)} Pro keys are not affected.`,
        ),
    });
  }
  return charges;
}

/**
 * The waitlist's signup limits, as the Free plan has them: per address (an IPv6 /64), per IPv6 /48 together (the
 * same factor), and for everyone together per day.
 */
export function waitlistCharges(buckets: Buckets, caller: Caller): Charge[] {
  const charges: Charge[] = [
    {
      bucket: buckets.waitlistSignups,
      identity: caller.identity,
      refusal: (take) => rateLimited(take, "Too many signups from this address today. Please try again tomorrow."),
    },
  ];
  if (caller.net48) {
    charges.push({
      bucket: buckets.waitlistSignupsPer48,
      identity: caller.net48,
      refusal: (take) => rateLimited(take, "Too many signups from this IPv6 network today. Please try again tomorrow."),
    });
  }
  if (buckets.waitlistGlobalSignups.limit > 0) {
    charges.push({
      bucket: buckets.waitlistGlobalSignups,
      identity: "all",
      refusal: (take) =>
        rateLimited(take, `The waitlist takes no more signups today. ${resetPhrase(take)} Please try again then.`),
    });
  }
  return charges;
}
