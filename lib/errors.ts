// Domain errors: what engines, enhancement, the store, storage and the work queues throw. They know nothing of
// HTTP; `toApiError` in lib/schemas/api-error.ts is the one place that maps each to a contract code.

// Each error carries the kinds of its class chain under a global symbol, and `instanceof` reads them, so a check holds
// across copies of this module: server.ts builds the services in its own module graph, and Next bundles the routes
// that catch their errors apart from it (and minifies class names, hence the explicit `kind`).
const KINDS = Symbol.for("darkroom.domain-error.kinds");

function isOfKind(cls: { kind: string }, value: unknown): boolean {
  // A subclass that names no kind of its own is checked the ordinary way, never as its parent's kind.
  if (!Object.hasOwn(cls, "kind")) return Function.prototype[Symbol.hasInstance].call(cls, value);
  if (typeof value !== "object" || value === null) return false;
  const kinds = (value as { [KINDS]?: unknown })[KINDS];
  return Array.isArray(kinds) && kinds.includes(cls.kind);
}

export abstract class DomainError extends Error {
  static readonly kind: string = "DomainError";
  readonly [KINDS]: readonly string[];

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    const kinds: string[] = [];
    for (let c = new.target as unknown as { kind?: string } | null; c; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, "kind") && c.kind) kinds.push(c.kind);
    }
    this[KINDS] = kinds;
    this.name = kinds[0] ?? "DomainError";
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of `instanceof`, a subclass too.
    return isOfKind(this, value);
  }
}

/** A bounded queue (or the in-flight upload budget) is full; nothing was started. */
export class QueueFull extends DomainError {
  static override readonly kind = "QueueFull";
  constructor(
    readonly retryAfterS = 5,
    message = "The service is at capacity. Please retry in a few seconds.",
  ) {
    super(message);
  }
}

/** The process is shutting down and its grace is over: the work still running is stopped, nothing is charged. */
export class ShuttingDown extends DomainError {
  static override readonly kind = "ShuttingDown";
  constructor(
    readonly retryAfterS = 5,
    message = "The server is restarting. Please retry in a few seconds.",
  ) {
    super(message);
  }
}

/** One caller holds as much open at once as it may (uploads being sent, event streams); others are not affected. */
export class TooManyAtOnce extends DomainError {
  static override readonly kind = "TooManyAtOnce";
  constructor(
    message: string,
    readonly retryAfterS = 5,
  ) {
    super(message);
  }
}

/** The quota store (SQLite or Redis) cannot answer now: locked, full, unreachable or timed out. */
export class StoreUnavailable extends DomainError {
  static override readonly kind = "StoreUnavailable";
  constructor(message = "the store is unavailable", options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Image storage has no room (ENOSPC, quota) or cannot be reached; nothing partial was kept. */
export class StorageUnavailable extends DomainError {
  static override readonly kind = "StorageUnavailable";
  /** True when the service answered but refuses the configuration (credentials, bucket): the message says what. */
  readonly refused: boolean;
  constructor(message = "image storage is unavailable", options?: { cause?: unknown; refused?: boolean }) {
    super(message, options);
    this.refused = options?.refused ?? false;
  }
}

/** An image provider refused the prompt on safety grounds; the chain stops there. */
export class Moderated extends DomainError {
  static override readonly kind = "Moderated";
  constructor(message = "The prompt was rejected by the image provider's content filter. Please rephrase it.") {
    super(message);
  }
}

/**
 * Every route of a model's or an enhance mode's chain failed. When all of them were at capacity the caller may retry
 * later. `work` says which kind of chain, so the answer can suggest another model or another mode.
 */
export class ChainExhausted extends DomainError {
  static override readonly kind = "ChainExhausted";
  constructor(
    readonly allAtCapacity: boolean,
    readonly retryAfterS?: number,
    readonly work: "generation" | "enhance" = "generation",
  ) {
    super(allAtCapacity ? "every route is at capacity" : "every route failed");
  }
}

/** An engine returned something that is not the image asked for, or failed outright. */
export class GenerationFailed extends DomainError {
  static override readonly kind = "GenerationFailed";
}

/** Enhancement failed for a reason that is ours, not the caller's. */
export class EnhanceFailed extends DomainError {
  static override readonly kind = "EnhanceFailed";
}

/** The work was abandoned by its caller (disconnect or cancel) or ran past its deadline. */
export class WorkAborted extends DomainError {
  static override readonly kind = "WorkAborted";
  constructor(readonly reason: "cancelled" | "deadline" = "cancelled") {
    super(reason === "deadline" ? "the work ran past its deadline" : "the work was cancelled");
  }
}

/** The upload is not an image we can read; the message is safe to show. */
export class InvalidImage extends DomainError {
  static override readonly kind = "InvalidImage";
}

/** The mask cannot be read, or marks nothing to change; the message is safe to show. */
export class InvalidMask extends DomainError {
  static override readonly kind = "InvalidMask";
}

/** No configured route of the model takes the request's inputs; the message names the models that do. */
export class UnsupportedInput extends DomainError {
  static override readonly kind = "UnsupportedInput";
}

/** The upload is larger than the configured bytes or pixels; the message is safe to show. */
export class ImageTooLarge extends DomainError {
  static override readonly kind = "ImageTooLarge";
}

/** A job, image or record that does not exist, has expired, or belongs to someone else. */
export class NotFound extends DomainError {
  static override readonly kind = "NotFound";
  constructor(message = "Not found.") {
    super(message);
  }
}

/** A webhook_url that is not https, carries credentials, or points at an address that is not public; safe to show. */
export class InvalidWebhookUrl extends DomainError {
  static override readonly kind = "InvalidWebhookUrl";
}
/** A change that the record's current state no longer allows (approving an entry twice); the message is safe to show. */
export class Conflict extends DomainError {
  static override readonly kind = "Conflict";
}
