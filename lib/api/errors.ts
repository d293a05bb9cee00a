// Errors thrown anywhere in a request; the wrapper turns them into the contract's error body.
import { ERROR_CODES, type ErrorCode } from "./error-codes";

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Seconds for Retry-After (429 and 503). */
  readonly retryAfter?: number;

  constructor(code: ErrorCode, message?: string, opts: { retryAfter?: number; cause?: unknown } = {}) {
    super(message ?? ERROR_CODES[code].message, { cause: opts.cause });
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.retryAfter = opts.retryAfter;
  }
}

/** Thrown when a backend (store, queue) cannot serve now; maps to 503 busy. */
export class UnavailableError extends Error {
  constructor(message = "dependency unavailable", options?: { cause?: unknown }) {
    super(message, options);
  }
}
