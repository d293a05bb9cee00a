// OpenAI's envelope for /v1: its error body, type and code, and its rate-limit headers beside Darkroom's own, read
// by the official SDKs (openai-node src/core/error.ts and src/client.ts: x-request-id, x-should-retry, retry-after).
import { type ApiPolicy, type Dialect, respond } from "@/lib/http/with-api";
import { secondsUntil, type Usage } from "@/lib/quota/types";
import type { ApiError } from "@/lib/schemas/api-error";
import { openaiAnswerOf, paramOf } from "@/lib/schemas/error-codes";

type OpenAIErrorType = "invalid_request_error" | "authentication_error" | "rate_limit_error" | "server_error";

/** OpenAI's error type by HTTP status; every other status below 500 is a request error. */
const TYPE_BY_STATUS: Record<number, OpenAIErrorType> = {
  401: "authentication_error",
  429: "rate_limit_error",
  500: "server_error",
  503: "server_error",
};

export type OpenAIErrorBody = {
  error: { message: string; type: OpenAIErrorType; param: string | null; code: string };
};

export function openaiErrorBody(err: ApiError): { status: number; body: OpenAIErrorBody } {
  const answer = openaiAnswerOf(err.code, err.status);
  const { status } = answer;
  const type = TYPE_BY_STATUS[status] ?? (status >= 500 ? "server_error" : "invalid_request_error");
  const param = err.param ?? paramOf(err.code);
  return { status, body: { error: { message: err.message, type, param, code: answer.code } } };
}

/** "23h59m12s", "6m0s", "1s": how OpenAI writes the time until a limit resets. */
export function openaiDuration(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h}h${m}m${s % 60}s`;
  if (m > 0) return `${m}m${s % 60}s`;
  return `${s}s`;
}

export const OPENAI_DIALECT: Dialect = {
  errorResponse(err, requestId, usage) {
    const { status, body } = openaiErrorBody(err);
    const res = respond(status, body, requestId, usage, err.retryAfter);
    // A spent daily quota frees at midnight UTC: the SDKs' automatic retries would be in vain. Others may retry.
    if (err.dailyQuota) res.headers.set("x-should-retry", "false");
    return res;
  },
  headers: (usage: Usage) => ({
    "x-ratelimit-limit-requests": String(usage.limit),
    "x-ratelimit-remaining-requests": String(Math.max(0, usage.remaining)),
    "x-ratelimit-reset-requests": openaiDuration(secondsUntil(usage.resetMs)),
  }),
};

const PRO_ONLY = "The OpenAI-compatible API";

/** Who may call /v1 and what it counts on: a Pro key only, on the key's daily bucket, in OpenAI's envelope. */
export const OPENAI_POLICIES = {
  /** The Images endpoints take one unit per image from the same bucket as /api/generate. */
  images: { quota: "generate", accepts: ["key"], proOnly: PRO_ONLY, dialect: OPENAI_DIALECT },
  /** The model list uses no daily quota; the per-minute status guard bounds it. */
  models: {
    quota: "status",
    accepts: ["key"],
    proOnly: PRO_ONLY,
    guard: { bucket: "statusGuard", what: "model list" },
    dialect: OPENAI_DIALECT,
  },
} as const satisfies Record<string, ApiPolicy>;
