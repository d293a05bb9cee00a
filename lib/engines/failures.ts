// Typed provider failures, so the chain can decide "next route", "stop: moderated" or "busy" without reading provider text.
import { APICallError, JSONParseError, NoImageGeneratedError, TypeValidationError } from "ai";

/** The provider's safety system refused the prompt or the image. */
export class ModerationError extends Error {
  readonly name = "ModerationError";
}

/** Anything else a provider did wrong; `kind` drives the chain's final answer. */
export class ProviderError extends Error {
  readonly name = "ProviderError";
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly status?: number,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export type FailureKind = "capacity" | "http" | "malformed" | "timeout" | "cancelled" | "network";

export type Failure = { kind: FailureKind | "moderation"; detail: string; status?: number; retryAfter?: number };

const OPENAI_MODERATION_CODES = ["content_policy_violation", "moderation_blocked"];

/** Maps whatever a provider call threw onto a failure; `timedOut`/`cancelled` say which signal fired. */
export function classifyFailure(err: unknown, signals: { timedOut: boolean; cancelled: boolean }): Failure {
  if (signals.cancelled) return { kind: "cancelled", detail: "client went away" };
  if (signals.timedOut) return { kind: "timeout", detail: "the route's deadline passed" };
  if (err instanceof ModerationError) return { kind: "moderation", detail: err.message };
  if (err instanceof ProviderError)
    return { kind: err.kind, detail: err.message, status: err.status, retryAfter: err.retryAfter };
  if (APICallError.isInstance(err)) return classifyApiCallError(err);
  if (NoImageGeneratedError.isInstance(err)) return { kind: "malformed", detail: "no image in the response" };
  if (TypeValidationError.isInstance(err) || JSONParseError.isInstance(err))
    return { kind: "malformed", detail: err.message };
  return { kind: "network", detail: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
}

function classifyApiCallError(err: APICallError): Failure {
  const status = err.statusCode;
  const detail = `${err.message}${err.responseBody ? ` | ${err.responseBody.slice(0, 500)}` : ""}`;
  if (status === 429 || status === 402)
    return { kind: "capacity", detail, status, retryAfter: retryAfterOf(err.responseHeaders) };
  if (
    status !== undefined &&
    status >= 400 &&
    OPENAI_MODERATION_CODES.some((c) => err.responseBody?.includes(`"${c}"`))
  ) {
    return { kind: "moderation", detail, status };
  }
  if (status === undefined) return { kind: "network", detail };
  // A 2xx that the SDK could not parse is a malformed response, not an HTTP failure.
  if (status < 300) return { kind: "malformed", detail, status };
  return { kind: "http", detail, status };
}

/** Seconds from a Retry-After header, clamped to something sensible for our own Retry-After. */
export function retryAfterOf(headers: Record<string, string> | Headers | undefined): number | undefined {
  const raw = headers instanceof Headers ? headers.get("retry-after") : headers?.["retry-after"];
  const seconds = raw ? Number(raw) : NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(300, Math.max(1, Math.ceil(seconds))) : undefined;
}
