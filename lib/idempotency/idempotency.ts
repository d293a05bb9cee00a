// The Idempotency-Key bookkeeping of a request: the first one with a key does the work, a replay gets its answer.
// A first request still running holds a short lease on its key, renewed while it runs, and records the units of
// quota it holds; when its instance dies the lease lapses, and the next request with the key (or any instance's
// sweep) takes the claim over and gives those units back, once.
import crypto from "node:crypto";
import type { Caller } from "@/lib/auth/types";
import { describeError, log } from "@/lib/log";
import type { HeldUnit } from "@/lib/quota/types";
import { ApiError } from "@/lib/schemas/api-error";

/**
 * A kept answer. `images` holds the stored images whose base64 the body carried (`b64_json`): the body keeps a
 * reference in their place (NUL, the image's index, NUL: JSON text never holds a raw NUL), and a replay reads the
 * images back, so the record stays small whatever the answer's size.
 */
export type StoredResponse = {
  status: number;
  body: string;
  headers: Record<string, string>;
  images?: { id: string; sha256: string }[];
};
export type IdempotencyRecord = { fingerprint: string; response: StoredResponse | null };

/** A claim being made: the request's fingerprint, its own token, and how long its lease lasts unrenewed. */
export type NewClaim = { fingerprint: string; token: string; leaseMs: number };

/**
 * The answer to a claim: ours (with the units a lapsed claim held, which the caller now gives back), or the record
 * already there: a request still running within its lease (no response yet), or the stored answer.
 */
export type ClaimOutcome = { ours: true; lapsedUnits: HeldUnit[] } | { ours: false; existing: IdempotencyRecord };

/** Where idempotency records live: beside the jobs, in the store backend. Every change but a claim is by token. */
export interface IdempotencyStore {
  /**
   * Claims a key: free, or held by a running claim whose lease ended (taken over, atomically: only one claimant
   * gets its units).
   */
  claimIdempotencyKey(key: string, claim: NewClaim): Promise<ClaimOutcome>;
  /** Whether the key has a record: a stored answer or a running claim. */
  hasIdempotencyKey(key: string): Promise<boolean>;
  /** Extends our running claim's lease and, when given, records the units it holds; false when it is not ours. */
  renewIdempotencyKey(key: string, token: string, leaseMs: number, units?: HeldUnit[]): Promise<boolean>;
  /** Keeps the answer of our claim for `ttlMs`; false when the claim is no longer ours. */
  completeIdempotencyKey(key: string, token: string, response: StoredResponse, ttlMs: number): Promise<boolean>;
  /** Compare-and-delete: removes our running claim, never a stored answer or another request's claim. */
  releaseIdempotencyKey(key: string, token: string): Promise<boolean>;
  /** Removes up to `limit` running claims whose lease ended before `now`; returns the units each one held. */
  reclaimLapsedIdempotencyKeys(now: number, limit: number): Promise<HeldUnit[][]>;
}

/** How long a finished first request's answer is kept for replays (the contract's 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

export type IdempotencyOptions = {
  /** How long a running claim lasts unrenewed; it is renewed every third of it. */
  leaseMs: number;
  /** Gives back the units of a lapsed claim this request took over. */
  refund: (units: HeldUnit[]) => Promise<void>;
  /** Reads a stored image's bytes, for answers kept with references to their images; throws when it is gone. */
  readImage?: (id: string) => Promise<Buffer>;
};

/** One request's Idempotency-Key: claimed before quota, completed with the answer, released on an error. */
export class Idempotency {
  private claimed?: { key: string; token: string; renewal: NodeJS.Timeout };

  constructor(
    private readonly records: IdempotencyStore,
    private readonly caller: Pick<Caller, "identity">,
    private readonly endpoint: string,
    private readonly header: string | null,
    private readonly opts: IdempotencyOptions,
  ) {}

  /**
   * Claims the key for this request, or answers for it: the stored answer of a finished first request (marked
   * replayed), 409 while the first still runs, 422 when the key was used for a different request.
   */
  async begin(fingerprintParts: unknown[]): Promise<Response | null> {
    const key = this.recordKey();
    if (key === null) return null;
    const fingerprint = sha256(JSON.stringify(fingerprintParts));
    const token = crypto.randomUUID();
    const outcome = await this.records.claimIdempotencyKey(key, { fingerprint, token, leaseMs: this.opts.leaseMs });
    if (outcome.ours) {
      this.hold(key, token);
      if (outcome.lapsedUnits.length > 0) await refundLapsed(this.opts.refund, outcome.lapsedUnits, "retry");
      return null;
    }
    const { existing } = outcome;
    if (existing.fingerprint !== fingerprint) throw new ApiError("idempotency_mismatch");
    if (!existing.response) throw new ApiError("idempotency_in_progress", undefined, { retryAfter: 1 });
    return new Response(await this.bodyOf(existing.response), {
      status: existing.response.status,
      headers: { ...existing.response.headers, "Idempotent-Replayed": "true" },
    });
  }

  /**
   * Whether this request's key already has a record (an answer to replay, or a first request still running): such a
   * request may cost nothing, so it is let through to its body even when the caller has nothing left.
   */
  async recorded(): Promise<boolean> {
    const key = this.recordKey();
    return key !== null && (await this.records.hasIdempotencyKey(key));
  }

  /** The store's key for this caller, endpoint and header; null without a header, 400 for a malformed one. */
  private recordKey(): string | null {
    if (this.header === null) return null;
    if (!IDEMPOTENCY_KEY.test(this.header)) {
      throw new ApiError("invalid_request", "Idempotency-Key must be 1 to 255 printable ASCII characters.");
    }
    return `${this.caller.identity}:${this.endpoint}:${sha256(this.header)}`;
  }

  /**
   * Records the units of quota the request holds now, so another instance can give them back if this one dies.
   * False when the claim is no longer this request's: its lease lapsed and a takeover gave its units back.
   */
  readonly holding = async (units: HeldUnit[]): Promise<boolean> => {
    if (!this.claimed) return true;
    return this.records.renewIdempotencyKey(this.claimed.key, this.claimed.token, this.opts.leaseMs, units);
  };

  /** Keeps a 200 or 202 answer for replays. */
  async complete(response: Response): Promise<void> {
    const claim = this.claimed;
    if (!claim) return;
    const stored: StoredResponse = {
      status: response.status,
      ...withImageReferences(await response.clone().text(), this.opts.readImage !== undefined),
      headers: Object.fromEntries(
        ["content-type", "location", "preference-applied"].flatMap((h) => {
          const v = response.headers.get(h);
          return v ? [[h, v]] : [];
        }),
      ),
    };
    this.stop();
    await this.records.completeIdempotencyKey(claim.key, claim.token, stored, IDEMPOTENCY_TTL_MS);
  }

  /** A kept answer's body as it was sent: each referenced image read back into its place, checked by its hash. */
  private async bodyOf(stored: StoredResponse): Promise<string> {
    const images = stored.images ?? [];
    if (images.length === 0) return stored.body;
    const read = this.opts.readImage;
    const base64 = await Promise.all(
      images.map(async ({ id, sha256: hash }) => {
        const text = read ? (await read(id).catch(() => null))?.toString("base64") : undefined;
        if (text === undefined || sha256(text) !== hash) {
          throw new ApiError(
            "not_found",
            "The image of this Idempotency-Key's answer was deleted or has expired. Send the request with a new key.",
          );
        }
        return text;
      }),
    );
    // Split on the NULs around each reference: every odd part is an image's index.
    return stored.body
      .split(REFERENCE_MARK)
      .map((part, i) => (i % 2 === 1 ? base64[Number(part)] : part))
      .join("");
  }

  /** Error answers are not kept: the same key may be used again. Only our own claim is removed. */
  async release(): Promise<void> {
    const claim = this.claimed;
    if (!claim) return;
    this.stop();
    await this.records.releaseIdempotencyKey(claim.key, claim.token);
  }

  /** Renews the lease every third of it while the request runs (the timer never keeps the process alive). */
  private hold(key: string, token: string) {
    const renewal = setInterval(() => {
      this.records
        .renewIdempotencyKey(key, token, this.opts.leaseMs)
        .catch((err: unknown) => log.warn("idempotency lease renewal failed", describeError(err)));
    }, this.opts.leaseMs / 3);
    renewal.unref();
    this.claimed = { key, token, renewal };
  }

  private stop() {
    if (this.claimed) clearInterval(this.claimed.renewal);
  }
}

/** Marks a reference's two ends: JSON text escapes NUL, so no other text in a body holds one. */
const REFERENCE_MARK = "\u0000";

/**
 * A JSON body with each stored image's base64 (`b64_json` beside the image's `id`, as /v1 answers carry them)
 * replaced by a reference; other bodies, and every body when images cannot be read back, are kept whole.
 */
export function withImageReferences(body: string, canRead: boolean): Pick<StoredResponse, "body" | "images"> {
  if (!canRead || !body.includes('"b64_json"')) return { body };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { body };
  }
  const images: { id: string; sha256: string }[] = [];
  let compact = body;
  for (const item of imageItemsOf(parsed)) {
    // Base64 needs no escaping in JSON, so the value appears in the text exactly, quoted.
    const quoted = `"${item.b64_json}"`;
    if (!compact.includes(quoted)) continue;
    compact = compact.replace(quoted, `"${REFERENCE_MARK}${images.length}${REFERENCE_MARK}"`);
    images.push({ id: item.id, sha256: sha256(item.b64_json) });
  }
  return images.length > 0 ? { body: compact, images } : { body };
}

/** The objects of an answer that carry an image's base64 with its id: /v1's `data` items. */
function imageItemsOf(parsed: unknown): { id: string; b64_json: string }[] {
  const data = (parsed as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return [];
  return data.filter(
    (item): item is { id: string; b64_json: string } =>
      typeof item?.id === "string" && typeof item?.b64_json === "string" && item.b64_json.length > 0,
  );
}

/** Takes over the claims whose lease lapsed (their instance died) and gives their units back, each once. */
export async function reclaimLapsedClaims(
  records: IdempotencyStore,
  refund: (units: HeldUnit[]) => Promise<void>,
  now = Date.now(),
): Promise<number> {
  const lapsed = await records.reclaimLapsedIdempotencyKeys(now, 100);
  for (const units of lapsed) if (units.length > 0) await refundLapsed(refund, units, "sweep");
  return lapsed.length;
}

async function refundLapsed(refund: (units: HeldUnit[]) => Promise<void>, units: HeldUnit[], by: "retry" | "sweep") {
  log.warn("idempotency claim lapsed: its request's instance stopped; giving its units back", {
    units: units.length,
    by,
  });
  await refund(units).catch((err: unknown) => log.error("idempotency refund failed", describeError(err)));
}

export function sha256(data: string | Buffer): string {
  return crypto.createHash("sha256").update(data).digest("hex");
}
