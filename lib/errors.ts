// Domain errors: what engines, enhancement, the store, storage and the work queues throw. They know nothing of
// HTTP; `toApiError` in lib/schemas/api-error.ts is the one place that maps each to a contract code.

export abstract class DomainError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A bounded queue (or the in-flight upload budget) is full; nothing was started. */
export class QueueFull extends DomainError {
  constructor(
    readonly retryAfterS = 5,
    message = "The service is at capacity. Please retry in a few seconds.",
  ) {
    super(message);
  }
}

/** The quota store (SQLite or Redis) cannot answer now: locked, full, unreachable or timed out. */
export class StoreUnavailable extends DomainError {
  constructor(message = "the store is unavailable", options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Image storage has no room (ENOSPC, quota) or cannot be reached; nothing partial was kept. */
export class StorageUnavailable extends DomainError {
  constructor(message = "image storage is unavailable", options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** An image provider refused the prompt on safety grounds; the chain stops there. */
export class Moderated extends DomainError {
  constructor(message = "The prompt was rejected by the image provider's content filter. Please rephrase it.") {
    super(message);
  }
}

/** Every route of a model's chain failed. When all of them were at capacity the caller may retry later. */
export class ChainExhausted extends DomainError {
  constructor(
    readonly allAtCapacity: boolean,
    readonly retryAfterS?: number,
  ) {
    super(allAtCapacity ? "every route is at capacity" : "every route failed");
  }
}

/** An engine returned something that is not the image asked for, or failed outright. */
export class GenerationFailed extends DomainError {}

/** Enhancement failed for a reason that is ours, not the caller's. */
export class EnhanceFailed extends DomainError {}

/** The work was abandoned by its caller (disconnect or cancel) or ran past its deadline. */
export class WorkAborted extends DomainError {
  constructor(readonly reason: "cancelled" | "deadline" = "cancelled") {
    super(reason === "deadline" ? "the work ran past its deadline" : "the work was cancelled");
  }
}

/** The upload is not an image we can read; the message is safe to show. */
export class InvalidImage extends DomainError {}

/** The mask cannot be read, or marks nothing to change; the message is safe to show. */
export class InvalidMask extends DomainError {}

/** No configured route of the model takes the request's inputs; the message names the models that do. */
export class UnsupportedInput extends DomainError {}

/** The upload is larger than the configured bytes or pixels; the message is safe to show. */
export class ImageTooLarge extends DomainError {}

/** A job, image or record that does not exist, has expired, or belongs to someone else. */
export class NotFound extends DomainError {
  constructor(message = "Not found.") {
    super(message);
  }
}

/** A webhook_url that is not https, carries credentials, or points at an address that is not public; safe to show. */
export class InvalidWebhookUrl extends DomainError {}
/** A change that the record's current state no longer allows (approving an entry twice); the message is safe to show. */
export class Conflict extends DomainError {}
