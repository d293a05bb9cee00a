// The contract's error: a code with its status (error-codes.ts). `toApiError` is the one place domain errors become codes.
import {
  ChainExhausted,
  Conflict,
  EnhanceFailed,
  GenerationFailed,
  ImageTooLarge,
  InvalidImage,
  InvalidMask,
  InvalidWebhookUrl,
  Moderated,
  NotFound,
  QueueFull,
  ShuttingDown,
  StorageUnavailable,
  StoreUnavailable,
  TooManyAtOnce,
  UnsupportedInput,
  WorkAborted,
} from "@/lib/errors";
import { describeError, log } from "@/lib/log";
import { ERROR_CODES, type ErrorCode } from "@/lib/schemas/error-codes";

// A brand under a global symbol, so `instanceof ApiError` holds across copies of this module (see DomainError).
const API_ERROR = Symbol.for("darkroom.api-error");

export class ApiError extends Error {
  readonly [API_ERROR] = true;
  readonly code: ErrorCode;
  readonly status: number;
  /** Seconds for Retry-After (429 and 503). */
  readonly retryAfter?: number;
  /** The one request field a 400 is about, when there is one. */
  readonly param?: string;
  /** A 429 for a spent daily quota: retrying before `retryAfter` is in vain. */
  readonly dailyQuota?: boolean;

  constructor(
    code: ErrorCode,
    message?: string,
    opts: { retryAfter?: number; cause?: unknown; param?: string; dailyQuota?: boolean } = {},
  ) {
    super(message ?? ERROR_CODES[code].message, { cause: opts.cause });
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.retryAfter = opts.retryAfter;
    this.param = opts.param;
    this.dailyQuota = opts.dailyQuota;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as { [API_ERROR]?: unknown })[API_ERROR] === true;
  }
}

/** Seconds a caller should wait after a store or storage outage. */
const OUTAGE_RETRY_AFTER_S = 5;
const DEFAULT_BUSY_RETRY_AFTER_S = 30;
/** generation_failed for an enhance mode whose every route failed: the retry it suggests is by mode. */
const ENHANCE_FAILED_MESSAGE =
  "The enhancement engines failed to enhance the image. Please retry with the same or another mode.";

/** The contract's error for anything thrown; what is not a known error is logged and answered as server_error. */
export function toApiError(err: unknown, requestId: string): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof InvalidImage) return new ApiError("invalid_image", err.message, { param: "image" });
  if (err instanceof UnsupportedInput) return new ApiError("unsupported_input", err.message, { param: "model" });
  if (err instanceof InvalidMask) return new ApiError("invalid_mask", err.message, { param: "mask" });
  if (err instanceof ImageTooLarge) return new ApiError("image_too_large", err.message);
  if (err instanceof Moderated) return new ApiError("content_filtered", err.message);
  if (err instanceof InvalidWebhookUrl) return new ApiError("invalid_webhook_url", err.message);
  if (err instanceof NotFound) return new ApiError("not_found", err.message);
  if (err instanceof Conflict) return new ApiError("conflict", err.message);
  if (err instanceof QueueFull || err instanceof ShuttingDown) {
    return new ApiError("busy", err.message, { retryAfter: err.retryAfterS });
  }
  if (err instanceof TooManyAtOnce) return new ApiError("rate_limited", err.message, { retryAfter: err.retryAfterS });
  if (err instanceof ChainExhausted) {
    if (!err.allAtCapacity) {
      return new ApiError("generation_failed", err.work === "enhance" ? ENHANCE_FAILED_MESSAGE : undefined);
    }
    return new ApiError("busy", "The image providers are at capacity. Please retry shortly.", {
      retryAfter: err.retryAfterS ?? DEFAULT_BUSY_RETRY_AFTER_S,
    });
  }
  if (err instanceof StoreUnavailable || err instanceof StorageUnavailable) {
    log.warn("dependency unavailable", { request_id: requestId, ...describeError(err) });
    return new ApiError("busy", "A service dependency is unavailable. Please retry shortly.", {
      retryAfter: OUTAGE_RETRY_AFTER_S,
    });
  }
  if (err instanceof GenerationFailed || err instanceof WorkAborted) return new ApiError("generation_failed");
  if (err instanceof EnhanceFailed) return new ApiError("server_error", "The image could not be enhanced.");
  log.error("unhandled error", { request_id: requestId, ...describeError(err) });
  return new ApiError("server_error");
}
