// The deadlines on a request body as it arrives: it must make progress at least every `idleTimeoutMs` and end
// within `timeoutMs` in all (UPLOAD_IDLE_TIMEOUT_MS, UPLOAD_TIMEOUT_MS), else it is answered 408 request_timeout.
// Uploads (read-upload.ts) and JSON bodies (read-json.ts) are read under the same watch.
import { ApiError } from "@/lib/schemas/api-error";

export type BodyDeadlines = { idleTimeoutMs: number; timeoutMs: number };

export type BodyWatch = {
  /** A chunk arrived: the idle deadline starts again. */
  progress(): void;
  /** The body was read (or failed otherwise): no deadline fires after this. */
  clear(): void;
};

/** Watches a body called `noun` ("upload", "request body"); `fail` hears of the first deadline that passes. */
export function watchBody(deadlines: BodyDeadlines, noun: string, fail: (err: ApiError) => void): BodyWatch {
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  const idle = setTimeout(
    () =>
      fail(new ApiError("request_timeout", `The ${noun} made no progress for ${seconds(deadlines.idleTimeoutMs)}.`)),
    deadlines.idleTimeoutMs,
  );
  const total = setTimeout(
    () => fail(new ApiError("request_timeout", `The ${noun} took longer than ${seconds(deadlines.timeoutMs)}.`)),
    deadlines.timeoutMs,
  );
  return {
    progress: () => idle.refresh(),
    clear() {
      clearTimeout(idle);
      clearTimeout(total);
    },
  };
}
