// What one caller may hold open at once on an instance, so that no caller can block the others: uploads still
// arriving and the memory they take, and event streams. One table; the deadlines on upload bodies are set in the
// environment (UPLOAD_IDLE_TIMEOUT_MS, UPLOAD_TIMEOUT_MS) and documented beside these in docs/configuration.md.
import type { Plan } from "@/lib/auth/types";

export type UploadLimits = {
  /** Uploads one identity (an IPv4 address, an IPv6 /64, or a key) may be sending at once. */
  atOnce: number;
  /**
   * The share of MAX_INFLIGHT_UPLOAD_BYTES the uploads one identity is still sending may hold together (never less
   * than one upload of the largest size, nor more than the whole budget).
   */
  budgetShare: number;
};

export const CALLER_LIMITS = {
  /** Pro keys are issued by the operator and may send batches: more at once, a larger share. */
  uploads: { free: { atOnce: 4, budgetShare: 0.25 }, pro: { atOnce: 16, budgetShare: 0.75 } } satisfies Record<
    Plan,
    UploadLimits
  >,
  /** Open event streams (GET /api/jobs/{id}/events) per identity, counted per instance (docs/api.md says so). */
  streamsPerIdentity: 20,
  /** Open event streams on one job, whoever opened them. */
  streamsPerJob: 20,
} as const;

/** Seconds a caller refused for holding too much open is told to wait: an upload or a stream ends by then. */
export const HELD_RETRY_AFTER_S = 5;
