// What one caller may hold open at once on an instance, so that no caller can block the others: uploads still
// arriving, the memory their bytes take, and event streams. One table; the deadlines on upload bodies are set in
// the environment (UPLOAD_IDLE_TIMEOUT_MS, UPLOAD_TIMEOUT_MS) and documented beside these in docs/configuration.md.
export const CALLER_LIMITS = {
  /** Uploads one identity (an IPv4 address, an IPv6 /64, or a key) may be sending at once. */
  uploadsPerIdentity: 4,
  /** The share of MAX_INFLIGHT_UPLOAD_BYTES the uploads of one identity may hold together. */
  uploadBudgetShare: 0.25,
  /** Open event streams (GET /api/jobs/{id}/events) per identity. */
  streamsPerIdentity: 20,
  /** Open event streams on one job, whoever opened them. */
  streamsPerJob: 20,
} as const;

/** Seconds a caller refused for holding too much open is told to wait: an upload or a stream ends by then. */
export const HELD_RETRY_AFTER_S = 5;
