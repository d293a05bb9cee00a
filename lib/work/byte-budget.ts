// A process-wide bound on bytes held at once (uploads buffered in memory): past it new work is refused, not queued.
import { QueueFull } from "@/lib/errors";

export class ByteBudget {
  private used = 0;

  constructor(readonly capacity: number) {}

  get inUse(): number {
    return this.used;
  }

  /** Reserves `bytes`, or throws QueueFull when they do not fit; the returned function releases them, once. */
  reserve(bytes: number): () => void {
    if (this.used + bytes > this.capacity) {
      throw new QueueFull(5, "Too many uploads are being processed. Please retry in a few seconds.");
    }
    this.used += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
    };
  }
}
