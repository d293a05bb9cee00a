// Open event streams on this instance, capped per caller identity and per job (CALLER_LIMITS). The counts are kept
// per instance: behind a load balancer each instance applies the caps on its own.
import { TooManyAtOnce } from "@/lib/errors";
import { CALLER_LIMITS, HELD_RETRY_AFTER_S } from "./caller-limits";
import { KeyedSlots } from "./keyed-slots";

export class StreamSlots {
  private readonly perIdentity: KeyedSlots;
  private readonly perJob: KeyedSlots;

  constructor(
    limits: { perIdentity: number; perJob: number } = {
      perIdentity: CALLER_LIMITS.streamsPerIdentity,
      perJob: CALLER_LIMITS.streamsPerJob,
    },
  ) {
    this.perIdentity = new KeyedSlots(limits.perIdentity);
    this.perJob = new KeyedSlots(limits.perJob);
  }

  /** Opens a stream of `jobId` for `identity`, or throws TooManyAtOnce past a cap; the function frees it, once. */
  open(identity: string, jobId: string): () => void {
    const mine = this.perIdentity.take(identity);
    if (!mine) {
      throw new TooManyAtOnce(
        `Too many open event streams: at most ${this.perIdentity.limit} at once per caller. Close one first.`,
        HELD_RETRY_AFTER_S,
      );
    }
    const job = this.perJob.take(jobId);
    if (!job) {
      mine();
      throw new TooManyAtOnce(
        `Too many open event streams on this job: at most ${this.perJob.limit} at once. Close one first.`,
        HELD_RETRY_AFTER_S,
      );
    }
    return () => {
      mine();
      job();
    };
  }
}
