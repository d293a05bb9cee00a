// The Idempotency-Key bookkeeping of a request: the first one with a key does the work, a replay gets its answer.
import crypto from "node:crypto";
import type { Caller } from "@/lib/auth/types";
import { ApiError } from "@/lib/schemas/api-error";

export type StoredResponse = { status: number; body: string; headers: Record<string, string> };
export type IdempotencyRecord = { fingerprint: string; response: StoredResponse | null };

/** Where idempotency records live: beside the jobs, in the store backend. */
export interface IdempotencyStore {
  /**
   * Claims an Idempotency-Key for a first request. Returns null when the claim is ours, else what is there: a
   * request still running (no response yet) or the stored answer.
   */
  claimIdempotencyKey(key: string, fingerprint: string, ttlMs: number): Promise<IdempotencyRecord | null>;
  completeIdempotencyKey(key: string, response: StoredResponse, ttlMs: number): Promise<void>;
  releaseIdempotencyKey(key: string): Promise<void>;
}

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** One request's Idempotency-Key: claimed before quota, completed with the answer, released on an error. */
export class Idempotency {
  private claimed?: string;

  constructor(
    private readonly records: IdempotencyStore,
    private readonly caller: Pick<Caller, "identity">,
    private readonly endpoint: string,
    private readonly header: string | null,
  ) {}

  /**
   * Claims the key for this request, or answers for it: the stored answer of a finished first request (marked
   * replayed), 409 while the first still runs, 422 when the key was used for a different request.
   */
  async begin(fingerprintParts: unknown[]): Promise<Response | null> {
    if (this.header === null) return null;
    if (!IDEMPOTENCY_KEY.test(this.header)) {
      throw new ApiError("invalid_request", "Idempotency-Key must be 1 to 255 printable ASCII characters.");
    }
    const key = `${this.caller.identity}:${this.endpoint}:${sha256(this.header)}`;
    const fingerprint = sha256(JSON.stringify(fingerprintParts));
    const existing = await this.records.claimIdempotencyKey(key, fingerprint, IDEMPOTENCY_TTL_MS);
    if (!existing) {
      this.claimed = key;
      return null;
    }
    if (existing.fingerprint !== fingerprint) throw new ApiError("idempotency_mismatch");
    if (!existing.response) throw new ApiError("idempotency_in_progress", undefined, { retryAfter: 1 });
    return new Response(existing.response.body, {
      status: existing.response.status,
      headers: { ...existing.response.headers, "Idempotent-Replayed": "true" },
    });
  }

  /** Keeps a 200 or 202 answer for replays. */
  async complete(response: Response): Promise<void> {
    if (!this.claimed) return;
    const stored: StoredResponse = {
      status: response.status,
      body: await response.clone().text(),
      headers: Object.fromEntries(
        ["content-type", "location", "preference-applied"].flatMap((h) => {
          const v = response.headers.get(h);
          return v ? [[h, v]] : [];
        }),
      ),
    };
    await this.records.completeIdempotencyKey(this.claimed, stored, IDEMPOTENCY_TTL_MS);
  }

  /** Error answers are not kept: the same key may be used again. */
  async release(): Promise<void> {
    if (this.claimed) await this.records.releaseIdempotencyKey(this.claimed);
  }
}

export function sha256(data: string | Buffer): string {
  return crypto.createHash("sha256").update(data).digest("hex");
}
