// What the cloud enhance routes (Stability, Replicate, fal) share: their dependencies, the route's own deadline,
// answers read into the domain's failures, the image as a data URI, and downloads of result URLs.
import type { FetchFn } from "@/lib/engines/bounded-fetch";
import { ModerationError, ProviderError, retryAfterOf } from "@/lib/engines/failures";

/** What a remote route is built from; `fetch` is the provider's guarded, host-allow-listed, bounded fetch. */
export type RemoteRouteDeps = {
  apiKey: string;
  /** The provider's *_BASE_URL; empty for the provider's own API. */
  baseUrl: string;
  fetch: FetchFn;
  /** The route's deadline: past it the attempt fails as a timeout (and the provider's job is cancelled). */
  timeoutMs: number;
  /** Between two status polls; the provider's own pace unless a test shortens it. */
  pollIntervalMs?: number;
};

/** The base URL without trailing slashes, or the provider's default when none is configured. */
export function baseOf(configured: string, fallback: string): string {
  return (configured.trim() || fallback).replace(/\/+$/, "");
}

export function pngDataUri(png: Buffer): string {
  return `data:image/png;base64,${png.toString("base64")}`;
}

/**
 * Runs one attempt under the job's signal and the route's deadline. The job's abort (the caller left, or the
 * chain's own deadline) propagates as it is; the route's deadline becomes a timeout failure the chain fails over.
 */
export async function withDeadline<T>(
  route: string,
  jobSignal: AbortSignal,
  timeoutMs: number,
  attempt: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([jobSignal, deadline]);
  try {
    return await attempt(signal);
  } catch (err) {
    if (jobSignal.aborted) throw err;
    if (deadline.aborted) throw new ProviderError("timeout", `${route}: no answer within ${timeoutMs} ms`);
    throw err;
  }
}

/**
 * A refused answer as a failure: 429 and 402 are capacity, anything else http (both fail over to the next
 * route); a refusal on content grounds (`isRefusal`) is moderation, as in generation. The provider's text goes
 * into the message for the log only; the chain answers callers with the contract's own words.
 */
export async function failureOf(
  provider: string,
  res: Response,
  isRefusal: (status: number, body: string) => boolean = () => false,
): Promise<Error> {
  const body = await res.text().catch(() => "");
  if (isRefusal(res.status, body)) return new ModerationError(`${provider} ${res.status}: ${body.slice(0, 300)}`);
  const kind = res.status === 429 || res.status === 402 ? "capacity" : "http";
  return new ProviderError(
    kind,
    `${provider} ${res.status}: ${body.slice(0, 500)}`,
    res.status,
    retryAfterOf(res.headers),
  );
}

/** The JSON body of a successful answer, or a malformed-answer failure. */
export async function jsonOf(provider: string, res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json().catch(() => null)) as unknown;
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new ProviderError("malformed", `${provider}: the answer is not a JSON object`);
  return body as Record<string, unknown>;
}

/** The bytes at a result URL (a delivery host, or a data: URI from a Cog server), through the guarded fetch. */
export async function download(provider: string, fetch: FetchFn, url: unknown, signal: AbortSignal): Promise<Buffer> {
  if (typeof url !== "string" || url === "")
    throw new ProviderError("malformed", `${provider}: no image URL in the answer`);
  const res = await fetch(url, { method: "GET", signal });
  if (!res.ok) throw await failureOf(`${provider} download`, res);
  const bytes = Buffer.from(await res.arrayBuffer());
  if (bytes.length === 0) throw new ProviderError("malformed", `${provider}: the image is empty`);
  return bytes;
}
