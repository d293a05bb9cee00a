// Async requests: whether the caller asked for one (Prefer: respond-async, or a webhook), accepting a job with the
// contract's 202, and the Idempotency-Key bookkeeping of a request.
import crypto from "node:crypto";
import { after } from "next/server";
import type { Caller } from "@/lib/auth/identify";
import type { JobRunner, JobWork } from "@/lib/jobs/runner";
import type { JobKind } from "@/lib/jobs/types";
import type { JobStore, StoredResponse } from "@/lib/store/jobs";
import { ApiError } from "./errors";
import type { Quota } from "./quota";

export type AsyncMode = { async: false } | { async: true; webhookUrl?: string };

/** RFC 7240: the preference may come with others, in any case, in one or several Prefer headers. */
export function prefersAsync(req: Request): boolean {
  return (req.headers.get("prefer") ?? "")
    .split(",")
    .some((p) => p.split(";")[0].trim().toLowerCase() === "respond-async");
}

/** The request's mode; a webhook implies async and needs a Pro key and an https URL on a public address. */
export function asyncModeOf(req: Request, caller: Caller, webhookUrl: string | undefined, allowHosts: string[]) {
  if (webhookUrl === undefined) return prefersAsync(req) ? { async: true as const } : { async: false as const };
  if (caller.plan !== "pro") {
    throw new ApiError("invalid_webhook_url", "webhook_url needs a Pro key (Authorization: Bearer <key>).");
  }
  return { async: true as const, webhookUrl: checkWebhookUrl(webhookUrl, allowHosts).toString() };
}

/** A first check of a webhook URL; the address is checked again, resolved, when the webhook is sent. */
function checkWebhookUrl(raw: string, allowHosts: string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError("invalid_webhook_url", "webhook_url is not a valid URL.");
  }
  const allowed = allowHosts.includes(url.hostname.toLowerCase());
  if (url.protocol !== "https:" && !(allowed && url.protocol === "http:")) {
    throw new ApiError("invalid_webhook_url", "webhook_url must use https.");
  }
  if (url.username || url.password)
    throw new ApiError("invalid_webhook_url", "webhook_url must not carry credentials.");
  if (!allowed && isPrivateLiteral(url.hostname)) {
    throw new ApiError("invalid_webhook_url", "webhook_url must point at a public address.");
  }
  return url;
}

function isPrivateLiteral(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h)?.slice(1).map(Number);
  if (v4) {
    const [a, b] = v4;
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  return (
    h.includes(":") && (h === "::" || h === "::1" || /^f[cd]/.test(h) || /^fe[89ab]/.test(h) || h.startsWith("::ffff:"))
  );
}

/** Accepts the work as a job holding the request's units, and answers 202 with where to follow it. */
export async function acceptJob(
  runner: JobRunner,
  input: { kind: JobKind; caller: Caller; quota: Quota; webhookUrl?: string; origin: string },
  work: JobWork,
): Promise<{ response: Response; done: Promise<void> }> {
  const record = runner.newRecord({
    kind: input.kind,
    owner: input.caller.identity,
    units: input.quota.heldUnits(),
    webhookUrl: input.webhookUrl,
    keyId: input.caller.keyId,
  });
  const { done } = await runner.accept(record, work);
  input.quota.handOff();
  const location = `/api/jobs/${record.id}`;
  const body = {
    success: true,
    id: record.id,
    status: record.status,
    status_url: `${input.origin}${location}`,
    events_url: `${input.origin}${location}/events`,
  };
  const response = new Response(JSON.stringify(body), {
    status: 202,
    headers: {
      "Content-Type": "application/json",
      "Cache-Control": "no-store",
      "Preference-Applied": "respond-async",
      Location: location,
    },
  });
  return { response, done };
}

/**
 * Keeps the function alive until an accepted job settles: on Vercel through `after` (within the route's
 * maxDuration); a long-lived server runs it to the end anyway.
 */
export function keepAlive(done: Promise<void>): void {
  try {
    after(done);
  } catch {
    // Outside a request scope that supports waitUntil, the process outlives the job by itself.
  }
}

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** One request's Idempotency-Key: claimed before quota, completed with the answer, released on an error. */
export class Idempotency {
  private claimed?: string;

  constructor(
    private readonly jobs: JobStore,
    private readonly caller: Caller,
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
    const existing = await this.jobs.claimIdempotencyKey(key, fingerprint, IDEMPOTENCY_TTL_MS);
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
    await this.jobs.completeIdempotencyKey(this.claimed, stored, IDEMPOTENCY_TTL_MS);
  }

  /** Error answers are not kept: the same key may be used again. */
  async release(): Promise<void> {
    if (this.claimed) await this.jobs.releaseIdempotencyKey(this.claimed);
  }
}

export function sha256(data: string | Buffer): string {
  return crypto.createHash("sha256").update(data).digest("hex");
}
