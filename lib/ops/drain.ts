// Work in flight in this process (HTTP requests, async jobs), counted so that SIGTERM lets it finish before the
// process exits (server.ts). Process-wide: Next may bundle this module once per route.
import { processSingleton } from "@/lib/singleton";

type State = { count: number; waiters: Set<() => void> };
const state = processSingleton<State>("in-flight-work", () => ({ count: 0, waiters: new Set() }));

/** Counts `work` as in flight until it settles; returns it unchanged. */
export function trackWork<T>(work: Promise<T>): Promise<T> {
  state.count++;
  const done = () => {
    state.count--;
    if (state.count === 0) for (const wake of [...state.waiters]) wake();
  };
  work.then(done, done);
  return work;
}

export function workInFlight(): number {
  return state.count;
}

/** Resolves true once nothing is in flight, or false when `timeoutMs` passes first. */
export function whenIdle(timeoutMs: number): Promise<boolean> {
  if (state.count === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      state.waiters.delete(wake);
      resolve(true);
    };
    const timer = setTimeout(() => {
      state.waiters.delete(wake);
      resolve(false);
    }, timeoutMs);
    state.waiters.add(wake);
  });
}
