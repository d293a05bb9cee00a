// Counts what each key (a caller identity, a job) holds open at once, up to a limit per key.
export class KeyedSlots {
  private readonly open = new Map<string, number>();

  constructor(readonly limit: number) {}

  /** Takes one slot for `key`, or returns null when it holds `limit` already; the function frees it, once. */
  take(key: string): (() => void) | null {
    const held = this.open.get(key) ?? 0;
    if (held >= this.limit) return null;
    this.open.set(key, held + 1);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left > 0) this.open.set(key, left);
      else this.open.delete(key);
    };
  }

  /** Slots `key` holds now. */
  heldBy(key: string): number {
    return this.open.get(key) ?? 0;
  }
}
