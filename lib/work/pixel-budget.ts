// The memory that image data may hold at once in this process, in bytes: uploads as their bytes arrive (the upload
// gate), and each decode's pixels, its input's and the output it will make (width × height × channels, a byte per
// channel). Work waits for its turn holding only its compressed upload; a decode takes its pixels here first and
// waits (a bounded few, for a bounded time) while they do not fit, or is refused busy. A decode that finds no other
// decode holding pixels always goes: uploads waiting for their turn never starve the decodes that would free them,
// and an image larger than the whole budget runs alone rather than never. Whatever ends the work (success, failure,
// abort) gives its pixels back.
import { QueueFull } from "@/lib/errors";

export type PixelBudgetOptions = {
  /** Bytes of image data held at once (PIXEL_BUDGET_MB). */
  capacity: number;
  /** Decodes that may wait for room at once; beyond them, busy. */
  maxWaiting: number;
  /** How long a decode may wait for room before it is refused busy. */
  maxWaitMs: number;
  /** Seconds a refused caller is told to wait. @default 5 */
  retryAfterS?: number;
};

/** A take on the budget: gives its bytes back once, whatever ends the work. */
export type PixelHold = { readonly bytes: number; release(): void };

type Waiter = { bytes: number; grant: () => void; refuse: (err: unknown) => void };

/** The bytes of a decode's pixels: its input's and its output's, a byte per channel. */
export function pixelBytesOf(
  input: { width: number; height: number; channels: number },
  output?: { width: number; height: number; channels: number },
): number {
  const of = (i: { width: number; height: number; channels: number }) => i.width * i.height * i.channels;
  return of(input) + (output ? of(output) : 0);
}

export class PixelBudget {
  private used = 0;
  /** Bytes held by decodes (take), apart from uploads (tryTake). */
  private decoding = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly options: PixelBudgetOptions) {}

  get capacity(): number {
    return this.options.capacity;
  }

  /** Bytes held now, and decodes waiting for room. */
  get stats(): { used: number; waiting: number } {
    return { used: this.used, waiting: this.waiting.length };
  }

  /**
   * Takes a decode's `bytes` at once when they fit (or no other decode holds any) and no decode waits before; else
   * waits in line (first come, first served), refused with QueueFull when the line is full or the wait lasts past
   * maxWaitMs. A signal that aborts gives up the place.
   */
  async take(bytes: number, signal?: AbortSignal): Promise<PixelHold> {
    signal?.throwIfAborted();
    const want = Math.max(0, Math.ceil(bytes));
    if (this.waiting.length === 0 && this.admits(want)) return this.hold(want);
    if (this.waiting.length >= this.options.maxWaiting) throw this.busy();
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        bytes: want,
        grant: () => {
          settle();
          resolve();
        },
        refuse: (err) => {
          settle();
          const i = this.waiting.indexOf(waiter);
          if (i !== -1) this.waiting.splice(i, 1);
          // The next in line may fit now that this one is gone.
          this.grantWaiting();
          reject(err);
        },
      };
      const onAbort = () => waiter.refuse(signal?.reason ?? new Error("aborted"));
      // Not unref'd: a waiting decode is work in flight, as the request that waits on it.
      const timer = setTimeout(() => waiter.refuse(this.busy()), this.options.maxWaitMs);
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
    return this.hold(want, true);
  }

  /**
   * Takes `bytes` now or not at all (the upload gate, which answers busy itself rather than wait): true when they
   * fit. Uploads have their own cap (MAX_INFLIGHT_UPLOAD_BYTES), so they do not queue behind decodes.
   */
  tryTake(bytes: number): boolean {
    if (!this.fits(bytes)) return false;
    this.used += bytes;
    return true;
  }

  /** Gives back bytes taken with tryTake. */
  giveBack(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
    this.grantWaiting();
  }

  private fits(bytes: number): boolean {
    return this.used + bytes <= this.options.capacity;
  }

  /** A decode goes when it fits, or when no other decode holds pixels (only uploads do, or nothing). */
  private admits(bytes: number): boolean {
    return this.fits(bytes) || this.decoding === 0;
  }

  /** `granted`: the bytes were already counted when the waiter was let in. */
  private hold(bytes: number, granted = false): PixelHold {
    if (!granted) this.count(bytes);
    let released = false;
    return {
      bytes,
      release: () => {
        if (released) return;
        released = true;
        this.decoding -= bytes;
        this.giveBack(bytes);
      },
    };
  }

  private count(bytes: number): void {
    this.used += bytes;
    this.decoding += bytes;
  }

  /** Lets in waiters from the front of the line while they are admitted; the first that is not holds the rest back. */
  private grantWaiting(): void {
    while (this.waiting.length > 0 && this.admits(this.waiting[0].bytes)) {
      const next = this.waiting.shift() as Waiter;
      this.count(next.bytes);
      next.grant();
    }
  }

  private busy(): QueueFull {
    return budgetFull(this.options.retryAfterS);
  }
}

/** The busy refusal of work that found no room in the budget. */
export function budgetFull(retryAfterS = 5): QueueFull {
  return new QueueFull(retryAfterS, "The server is busy with other large images. Please retry in a few seconds.");
}
