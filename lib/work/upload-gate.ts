// Uploads held in memory at once. Bytes are counted as they arrive, not as declared, within a process-wide budget;
// no identity holds more than its share of that budget, or sends more than a few uploads at once, so one slow or
// hostile client cannot starve everyone else.
import { QueueFull, TooManyAtOnce } from "@/lib/errors";
import { CALLER_LIMITS, HELD_RETRY_AFTER_S } from "./caller-limits";
import { KeyedSlots } from "./keyed-slots";

export type UploadGateLimits = {
  /** Bytes held at once across every upload (MAX_INFLIGHT_UPLOAD_BYTES). */
  capacity: number;
  /** Milliseconds an upload body may go without a byte arriving (UPLOAD_IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
  /** Milliseconds an upload body may take in all (UPLOAD_TIMEOUT_MS). */
  timeoutMs: number;
  /** @default CALLER_LIMITS.uploadsPerIdentity */
  uploadsPerIdentity?: number;
  /** @default CALLER_LIMITS.uploadBudgetShare */
  budgetShare?: number;
};

/** One upload's hold on the gate, from its first byte until the work on it is done. */
export type UploadSlot = {
  /** Counts `bytes` more as held; throws when they do not fit the identity's share or the budget. */
  grow(bytes: number): void;
  /** The body has arrived: the upload no longer counts as one being sent (its bytes stay held). */
  arrived(): void;
  /** Gives every byte back and frees the slot; once. */
  release(): void;
};

export class UploadGate {
  private used = 0;
  private readonly heldBy = new Map<string, number>();
  private readonly sending: KeyedSlots;
  /** Bytes one identity may hold together. */
  readonly identityBytes: number;
  readonly idleTimeoutMs: number;
  readonly timeoutMs: number;

  constructor(readonly limits: UploadGateLimits) {
    this.sending = new KeyedSlots(limits.uploadsPerIdentity ?? CALLER_LIMITS.uploadsPerIdentity);
    this.identityBytes = Math.floor(limits.capacity * (limits.budgetShare ?? CALLER_LIMITS.uploadBudgetShare));
    this.idleTimeoutMs = limits.idleTimeoutMs;
    this.timeoutMs = limits.timeoutMs;
  }

  /** Bytes held now, across every upload. */
  get inUse(): number {
    return this.used;
  }

  /** Opens an upload for `identity`, or throws TooManyAtOnce when it is sending as many as it may already. */
  open(identity: string): UploadSlot {
    const stopSending = this.sending.take(identity);
    if (!stopSending) {
      throw new TooManyAtOnce(
        `Too many uploads in progress from you: at most ${this.sending.limit} at once. Retry when one has finished.`,
        HELD_RETRY_AFTER_S,
      );
    }
    let held = 0;
    let released = false;
    return {
      grow: (bytes) => {
        if (released) return;
        const mine = this.heldBy.get(identity) ?? 0;
        if (mine + bytes > this.identityBytes) {
          throw new TooManyAtOnce(
            "Your uploads in progress hold as much memory as one caller may. Retry when one has finished.",
            HELD_RETRY_AFTER_S,
          );
        }
        if (this.used + bytes > this.limits.capacity) {
          throw new QueueFull(
            HELD_RETRY_AFTER_S,
            "Too many uploads are being processed. Please retry in a few seconds.",
          );
        }
        this.used += bytes;
        this.heldBy.set(identity, mine + bytes);
        held += bytes;
      },
      arrived: stopSending,
      release: () => {
        if (released) return;
        released = true;
        stopSending();
        this.used -= held;
        const left = (this.heldBy.get(identity) ?? 0) - held;
        if (left > 0) this.heldBy.set(identity, left);
        else this.heldBy.delete(identity);
      },
    };
  }
}
