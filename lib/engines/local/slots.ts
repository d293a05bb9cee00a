// Slots that cap how many calls a GPU server holds at once (GPU_SERVER_CONCURRENCY). Inline, one process counts
// them; on the work tier every worker shares the count in Redis (lib/tier/slots.ts), so the cap holds across workers.
import { KeyedSlots } from "@/lib/work/keyed-slots";

export type SharedSlots = {
  /** Takes one of the slots of `name` if one is free: the function that frees it (once), or null when all are held. */
  tryTake(name: string): Promise<(() => void) | null>;
};

/** `limit` slots per name, counted in this process. */
export function createProcessSlots(limit: number): SharedSlots {
  const slots = new KeyedSlots(limit);
  return { tryTake: async (name) => slots.take(name) };
}
