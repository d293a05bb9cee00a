// Elapsed seconds since a start time, ticking while work is in flight.
"use client";
import { useNow } from "./use-now";

export function useElapsed(startedAt: number | null): number {
  const now = useNow(100, startedAt !== null);
  return startedAt === null ? 0 : Math.max(0, (now - startedAt) / 1000);
}
