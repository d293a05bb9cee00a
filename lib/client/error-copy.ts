// One friendly message per error code, so every page explains failures the same way.
import type { ClientError, Quota } from "./api";
import { formatDuration } from "./time";

export type ErrorCopy = {
  title: string;
  detail: string;
  /** What the notice offers next. */
  action?: "waitlist" | "retry" | "rephrase";
};

export function writeErrorCopy(err: ClientError, opts: { quota?: Quota | null; now: number; noun: string }): ErrorCopy {
  switch (err.code) {
    case "rate_limited": {
      const resetMs = opts.quota?.resetAtMs ?? (err.retryAfterSec ? opts.now + err.retryAfterSec * 1000 : undefined);
      const when = resetMs ? `in ${formatDuration(resetMs - opts.now)} (midnight UTC)` : "at midnight UTC";
      const limit = opts.quota?.limit;
      return {
        title: limit !== undefined ? `You've used all ${limit} free ${opts.noun} for today` : "Limit reached",
        detail: `Your free ${opts.noun} come back ${when}. Want more? Pro keys are on the way.`,
        action: "waitlist",
      };
    }
    case "content_filtered":
      return {
        title: "This prompt was blocked by the safety filter",
        detail:
          "Try rephrasing it: describe the scene, subject and mood without graphic or explicit words. Nothing was used from your quota.",
        action: "rephrase",
      };
    case "generation_failed":
      return {
        title: "The model couldn't make this image",
        detail: "This happens now and then. Retry, or try another model. Nothing was used from your quota.",
        action: "retry",
      };
    case "server_error":
      return {
        title: "Something went wrong on our side",
        detail: "Retry in a moment, or try another model. Nothing was used from your quota.",
        action: "retry",
      };
    case "busy":
      return {
        title: "Darkroom is busy right now",
        detail: `Too many requests at once. Retry ${err.retryAfterSec ? `in about ${err.retryAfterSec} s` : "shortly"}; nothing was used from your quota.`,
        action: "retry",
      };
    case "network":
      return { title: "You seem to be offline", detail: err.message, action: "retry" };
    case "job_lost":
      return {
        title: "This job can no longer be found",
        detail:
          "Finished jobs are kept for 24 hours and can only be read from the network that started them. Please try again.",
        action: "retry",
      };
    case "image_too_large":
      return { title: "That image is too large", detail: err.message };
    default:
      // Validation errors carry the server's own precise message.
      return { title: "Please check your input", detail: err.message };
  }
}
