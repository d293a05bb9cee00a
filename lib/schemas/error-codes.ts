// One table maps every error code to its HTTP status and default message, the field it is about when the error
// itself does not say (`param`, which the OpenAI SDKs show), and how /v1 answers it where OpenAI differs (`openai`).
// The /api answer, the /v1 mapping and the OpenAPI document read it; a unit test keeps docs/api.md's table equal.
type ErrorRow = {
  status: number;
  message: string;
  param?: string;
  openai?: { status: number; code: string };
};

export const ERROR_CODES = {
  invalid_request: { status: 400, message: "The request body is not valid for this endpoint." },
  invalid_prompt: { status: 400, message: "Prompt must be 1 to 400 characters.", param: "prompt" },
  invalid_model: { status: 400, message: "Unsupported model.", param: "model" },
  invalid_style: { status: 400, message: "Unsupported style.", param: "style" },
  invalid_ratio: { status: 400, message: "Ratio must be one of 1:1, 16:9, 9:16." },
  invalid_seed: { status: 400, message: "Seed must be an integer from 0 to 4294967295.", param: "seed" },
  invalid_negative_prompt: {
    status: 400,
    message: "Negative prompt must be a string of at most 400 characters.",
    param: "negative_prompt",
  },
  invalid_image: { status: 400, message: "The image must be a PNG, JPEG, WebP, AVIF or GIF file.", param: "image" },
  invalid_strength: { status: 400, message: "Strength must be a number from 0 to 1.", param: "strength" },
  invalid_scale: { status: 400, message: "Scale must be 2 or 4." },
  invalid_email: { status: 400, message: "Please enter a valid email address." },
  invalid_use_case: { status: 400, message: "Use case must be at most 500 characters." },
  invalid_webhook_url: {
    status: 400,
    message: "webhook_url must be an https URL that points at a public address, and needs a Pro key.",
  },
  invalid_n: { status: 400, message: "n must be an integer from 1 to 4.", param: "n" },
  invalid_output_format: {
    status: 400,
    message: "output_format must be png, jpeg, webp or avif, and output_quality an integer from 1 to 100.",
    param: "output_format",
  },
  invalid_mask: {
    status: 400,
    message: "The mask must be a PNG, JPEG or WebP image sent with an image.",
    param: "mask",
  },
  unsupported_input: {
    status: 400,
    message: "This model has no configured route that takes this input.",
    param: "model",
  },
  image_too_large: { status: 413, message: "The image is too large.", param: "image" },
  request_timeout: { status: 408, message: "The upload stalled or took too long. Please send it again." },
  unauthorized: { status: 401, message: "A valid API key is required." },
  content_filtered: {
    status: 422,
    message: "The prompt was rejected by the content safety filter. Please rephrase it.",
    param: "prompt",
    // OpenAI answers a blocked prompt 400 `moderation_blocked`.
    openai: { status: 400, code: "moderation_blocked" },
  },
  rate_limited: { status: 429, message: "Rate limit reached." },
  busy: { status: 503, message: "The service is at capacity. Please retry shortly." },
  generation_failed: {
    status: 500,
    message: "The image model failed to generate an image. Please retry with the same or a different model.",
  },
  server_error: { status: 500, message: "Unexpected server error." },
  not_found: { status: 404, message: "Not found." },
  job_finished: { status: 409, message: "The job has already finished." },
  idempotency_in_progress: {
    status: 409,
    message: "A request with this Idempotency-Key is still running. Retry once it has finished.",
  },
  idempotency_mismatch: {
    status: 422,
    message: "This Idempotency-Key was used for a different request. Use a new key for a new request.",
  },
  method_not_allowed: { status: 405, message: "This method is not allowed on this endpoint." },
  // The operators' console (1.1).
  conflict: { status: 409, message: "The record has changed; reload it." },
  forbidden: { status: 403, message: "This call must come from the console's own page." },
} as const satisfies Record<string, ErrorRow>;

export type ErrorCode = keyof typeof ERROR_CODES;

const rowOf = (code: ErrorCode): ErrorRow => ERROR_CODES[code];

/** The field an error is about when the error itself does not say, or null. */
export function paramOf(code: ErrorCode): string | null {
  return rowOf(code).param ?? null;
}

/** How /v1 answers a code: OpenAI's own status and code where it differs, else the /api ones (or `status`). */
export function openaiAnswerOf(code: ErrorCode, status = rowOf(code).status): { status: number; code: string } {
  return rowOf(code).openai ?? { status, code };
}
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];
