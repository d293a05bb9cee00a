// Uploads held in memory at once. Bytes are counted as they arrive, not as declared, within a process-wide budget.
// While a body is still arriving it also counts against its identity: a few uploads at once, and a share of the
// budget (CALLER_LIMITS), so one slow or hostile client cannot starve everyone else.
import type { Caller, Plan } from "@/lib/auth/types";
import { QueueFull, TooManyAtOnce } from "@/lib/errors";
import { CALLER_LIMITS, HELD_RETRY_AFTER_S, type UploadLimits } from "./caller-limits";
import { KeyedSlots } from "./keyed-slots";
import { budgetFull, type PixelBudget } from "./pixel-budget";

/** Room for multipart boundaries and the small text fields on top of the files themselves. */
export const MULTIPART_ENVELOPE_BYTES = 64 * 1024;

export type UploadGateOptions = {
  /** Bytes held at once across every upload (MAX_INFLIGHT_UPLOAD_BYTES). */
  capacity: number;
  /** The largest file accepted (MAX_UPLOAD_BYTES): an identity's share always fits one body of two such files. */
  maxFileBytes: number;
  /** Milliseconds an upload body may go without a byte arriving (UPLOAD_IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
  /** Milliseconds an upload body may take in all (UPLOAD_TIMEOUT_MS). */
  timeoutMs: number;
  /** @default CALLER_LIMITS.uploads */
  perPlan?: Record<Plan, UploadLimits>;
  /** The process's budget for image data (PIXEL_BUDGET_MB): upload bytes count in it too, beside the decodes. */
  pixels?: PixelBudget;
};

/** One upload's hold on the gate, from the start of its body until the work on it is done. */
export type UploadSlot = {
  /** Counts `bytes` more as arrived; throws when they do not fit the identity's share or the budget. */
  grow(bytes: number): void;
  /** The body has arrived: it no longer counts against its identity; its bytes stay held in the budget. */
  arrived(): void;
  /** Gives every byte back and frees the slot; once. */
  release(): void;
};

type PlanGate = { sending: KeyedSlots; identityBytes: number };

export class UploadGate {
  private used = 0;
  /** Bytes of the bodies each identity is still sending. */
  private readonly sendingBytes = new Map<string, number>();
  private readonly plans: Record<Plan, PlanGate>;
  readonly idleTimeoutMs: number;
  readonly timeoutMs: number;

  constructor(private readonly options: UploadGateOptions) {
    const largestBody = 2 * options.maxFileBytes + MULTIPART_ENVELOPE_BYTES;
    const gateOf = (limits: UploadLimits): PlanGate => ({
      sending: new KeyedSlots(limits.atOnce),
      identityBytes: Math.min(
        options.capacity,
        Math.max(Math.floor(options.capacity * limits.budgetShare), largestBody),
      ),
    });
    const perPlan = options.perPlan ?? CALLER_LIMITS.uploads;
    this.plans = { free: gateOf(perPlan.free), pro: gateOf(perPlan.pro) };
    this.idleTimeoutMs = options.idleTimeoutMs;
    this.timeoutMs = options.timeoutMs;
  }

  /** Bytes held now, across every upload. */
  get inUse(): number {
    return this.used;
  }

  /** Opens an upload for a caller, or throws TooManyAtOnce when it is sending as many as it may already. */
  open(caller: Pick<Caller, "identity" | "plan">): UploadSlot {
    const { identity } = caller;
    const plan = this.plans[caller.plan];
    const stopSending = plan.sending.take(identity);
    if (!stopSending) {
      throw new TooManyAtOnce(
        `Too many uploads in progress from you: at most ${plan.sending.limit} at once. Retry when one has finished.`,
        HELD_RETRY_AFTER_S,
      );
    }
    let held = 0;
    let sending = true;
    let released = false;
    const arrived = () => {
      if (!sending) return;
      sending = false;
      stopSending();
      const left = (this.sendingBytes.get(identity) ?? 0) - held;
      if (left > 0) this.sendingBytes.set(identity, left);
      else this.sendingBytes.delete(identity);
    };
    return {
      grow: (bytes) => {
        if (released || !sending) return;
        const mine = this.sendingBytes.get(identity) ?? 0;
        if (this.used + bytes > this.options.capacity) {
          throw new QueueFull(
            HELD_RETRY_AFTER_S,
            "Too many uploads are being processed. Please retry in a few seconds.",
          );
        }
        if (mine + bytes > plan.identityBytes) {
          throw new TooManyAtOnce(
            "Your uploads in progress hold as much memory as one caller may. Retry when one has finished.",
            HELD_RETRY_AFTER_S,
          );
        }
        if (this.options.pixels && !this.options.pixels.tryTake(bytes)) {
          throw budgetFull(HELD_RETRY_AFTER_S);
        }
        this.used += bytes;
        this.sendingBytes.set(identity, mine + bytes);
        held += bytes;
      },
      arrived,
      release: () => {
        if (released) return;
        arrived();
        released = true;
        this.used -= held;
        this.options.pixels?.giveBack(held);
      },
    };
  }
}
