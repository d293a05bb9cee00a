// OpenAPI 3.1 document built from the zod schemas that validate requests, so the docs cannot drift from the API.
import { z } from "zod";
import { DEFAULT_ENHANCE_MODE, describeEnhanceModes } from "@/lib/catalog/enhance-modes";
import { DEFAULT_MODEL } from "@/lib/catalog/models";
import { accountResponseSchema, usageResponseSchema } from "@/lib/schemas/account";
import { enhanceRequestSchema, enhanceResponseSchema } from "@/lib/schemas/enhance";
import { ERROR_CODES, type ErrorCode, openaiAnswerOf } from "@/lib/schemas/error-codes";
import { errorBodySchema } from "@/lib/schemas/errors";
import { PROMPT_MAX_CODE_POINTS } from "@/lib/schemas/fields";
import { generateMultipartSchema, generateRequestSchema, generateResponseSchema } from "@/lib/schemas/generate";
import {
  IMAGES_DEFAULT_LIMIT,
  IMAGES_MAX_LIMIT,
  imageDeleteResponseSchema,
  imageListResponseSchema,
} from "@/lib/schemas/images";
import { jobAcceptedSchema, jobSchema } from "@/lib/schemas/jobs";
import {
  openaiEditsMultipartSchema,
  openaiErrorSchema,
  openaiGenerationsSchema,
  openaiImagesResponseSchema,
  openaiModelListSchema,
  openaiModelSchema,
  openaiVariationsMultipartSchema,
} from "@/lib/schemas/openai";
import { API_REVISION, API_VERSION, statusResponseSchema } from "@/lib/schemas/status";
import { waitlistRequestSchema, waitlistResponseSchema } from "@/lib/schemas/waitlist";

type JsonSchema = Record<string, unknown>;
export type Endpoint = {
  method: "get" | "post" | "delete";
  path: string;
  summary: string;
  description: string;
  /** "key": Pro keys only; "key-or-delete-token": the owning key, or the image's X-Delete-Token. */
  auth: "key-or-browser" | "open" | "key" | "key-or-delete-token";
  /** Query, path and header parameters. */
  parameters?: {
    name: string;
    in: "query" | "path" | "header";
    required: boolean;
    description: string;
    schema: JsonSchema;
  }[];
  request?: {
    contentType: "application/json" | "multipart/form-data";
    schema: z.ZodType;
    example?: unknown;
    /** A second form of the same request: multipart/form-data with files (generate's image input, 1.2). */
    multipart?: z.ZodType;
  };
  response: z.ZodType;
  /** The 200 answer's media type, when it is not JSON (the events stream). */
  responseType?: "text/event-stream";
  /** Accepts `Prefer: respond-async` and `Idempotency-Key`; answers 202 with this body when async. */
  async?: boolean;
  errors: ErrorCode[];
  curl: (origin: string) => string;
  /** The docs page's anchor, when the path alone is not unique (several methods, path parameters). */
  anchor?: string;
  /** Described on the docs page in a section of its own (the Pro self-view, /v1), not as a generic endpoint. */
  section?: "account" | "openai";
  /** The OpenAI-compatible routes answer errors in OpenAI's body, with its statuses. */
  errorBody?: "openai";
};

export function anchorOf(ep: Endpoint): string {
  return ep.anchor ?? ep.path.replace("/api/", "");
}

const JOB_ERRORS: ErrorCode[] = ["unauthorized", "not_found", "rate_limited", "server_error"];
const ASYNC_ERRORS: ErrorCode[] = ["invalid_webhook_url", "idempotency_in_progress", "idempotency_mismatch"];
const ASYNC_PARAMETERS = [
  {
    name: "Prefer",
    in: "header",
    required: false,
    description:
      "`respond-async` (RFC 7240): every check still runs first; once accepted the answer is 202 with the job's URLs.",
    schema: { type: "string", example: "respond-async" },
  },
  {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description:
      "1 to 255 printable ASCII characters. The first 200/202 answer is kept 24 hours; a repeat gets it again with `Idempotent-Replayed: true` and uses no quota; a different request with the same key gets 422, a repeat while the first runs 409.",
    schema: { type: "string", minLength: 1, maxLength: 255 },
  },
];
const JOB_ID_PARAMETER: NonNullable<Endpoint["parameters"]>[number] = {
  name: "id",
  in: "path",
  required: true,
  description: "The job's `id`, from the 202 answer.",
  schema: { type: "string", pattern: "^job_[a-f0-9]{32}$" },
};

const KEY = '-H "Authorization: Bearer $DARKROOM_API_KEY"';

const OPENAI_IMAGE_ERRORS: ErrorCode[] = [
  "invalid_request",
  "invalid_prompt",
  "invalid_model",
  "invalid_n",
  "invalid_style",
  "invalid_seed",
  "invalid_negative_prompt",
  "invalid_output_format",
  "unsupported_input",
  "idempotency_in_progress",
  "idempotency_mismatch",
  "unauthorized",
  "content_filtered",
  "rate_limited",
  "busy",
  "generation_failed",
  "server_error",
];
const OPENAI_UPLOAD_ERRORS: ErrorCode[] = ["invalid_image", "invalid_mask", "invalid_strength", "image_too_large"];
const IDEMPOTENCY_PARAMETER = { ...ASYNC_PARAMETERS[1], in: "header" as const };

/** The OpenAI-compatible API (docs/openai-compatible.md): OpenAI's shapes over the same pipeline as /api. */
const OPENAI_ENDPOINTS: Endpoint[] = [
  {
    method: "post",
    path: "/v1/images/generations",
    section: "openai",
    errorBody: "openai",
    summary: "OpenAI-compatible: generate images",
    description:
      "OpenAI's Images API: `size` maps to the nearest ratio, `response_format` b64_json (default) or url, `stream` answers server-sent events (`image_generation.partial_image`, `image_generation.completed`). One unit per image from the key's daily quota, shared with /api/generate. Errors in OpenAI's body; a filtered prompt is 400 `moderation_blocked`.",
    auth: "key",
    parameters: [IDEMPOTENCY_PARAMETER],
    request: {
      contentType: "application/json",
      schema: openaiGenerationsSchema,
      example: { model: "alpha-schnell", prompt: "a lighthouse at dusk", size: "1536x1024" },
    },
    response: openaiImagesResponseSchema,
    errors: OPENAI_IMAGE_ERRORS,
    curl: (o) =>
      `curl -X POST ${o}/v1/images/generations \\\n  ${KEY} \\\n  -H "Content-Type: application/json" \\\n  -d '{"model":"alpha-schnell","prompt":"a lighthouse at dusk"}'`,
  },
  {
    method: "post",
    path: "/v1/images/edits",
    section: "openai",
    errorBody: "openai",
    summary: "OpenAI-compatible: edit an image",
    description:
      "multipart/form-data: `image` (or up to 4 as `image`/`image[]`; the first is edited), an optional `mask` (transparent = change), `prompt` and the generation fields; `strength` as an extension. Streams `image_edit.*` events with `stream`.",
    auth: "key",
    parameters: [IDEMPOTENCY_PARAMETER],
    request: { contentType: "multipart/form-data", schema: openaiEditsMultipartSchema },
    response: openaiImagesResponseSchema,
    errors: [...OPENAI_IMAGE_ERRORS, ...OPENAI_UPLOAD_ERRORS],
    curl: (o) =>
      `curl -X POST ${o}/v1/images/edits \\\n  ${KEY} \\\n  -F "image=@photo.png" \\\n  -F "mask=@mask.png" \\\n  -F "prompt=a red barn"`,
  },
  {
    method: "post",
    path: "/v1/images/variations",
    section: "openai",
    errorBody: "openai",
    summary: "OpenAI-compatible: variations of an image",
    description:
      "multipart/form-data: `image`, `n`, `size`, `response_format`, `model`. Image to image at strength 0.5 with a fresh seed each.",
    auth: "key",
    parameters: [IDEMPOTENCY_PARAMETER],
    request: { contentType: "multipart/form-data", schema: openaiVariationsMultipartSchema },
    response: openaiImagesResponseSchema,
    errors: [...OPENAI_IMAGE_ERRORS, ...OPENAI_UPLOAD_ERRORS],
    curl: (o) => `curl -X POST ${o}/v1/images/variations \\\n  ${KEY} \\\n  -F "image=@photo.png" \\\n  -F "n=2"`,
  },
  {
    method: "get",
    path: "/v1/models",
    section: "openai",
    errorBody: "openai",
    summary: "OpenAI-compatible: the models",
    description:
      "The four Darkroom models in OpenAI's list shape. Uses no daily quota; counts on the 60-per-minute status guard.",
    auth: "key",
    response: openaiModelListSchema,
    errors: ["unauthorized", "rate_limited", "server_error"],
    curl: (o) => `curl ${o}/v1/models \\\n  ${KEY}`,
  },
  {
    method: "get",
    path: "/v1/models/{id}",
    anchor: "v1-models-get",
    section: "openai",
    errorBody: "openai",
    summary: "OpenAI-compatible: one model",
    description: "One Darkroom model; 404 `not_found` for any other id.",
    auth: "key",
    parameters: [
      { name: "id", in: "path", required: true, description: "A Darkroom model name.", schema: { type: "string" } },
    ],
    response: openaiModelSchema,
    errors: ["unauthorized", "not_found", "rate_limited", "server_error"],
    curl: (o) => `curl ${o}/v1/models/alpha-pro \\\n  ${KEY}`,
  },
];

export const ENDPOINTS: Endpoint[] = [
  {
    method: "post",
    path: "/api/generate",
    summary: "Generate images from a prompt, or from an image and a mask",
    description:
      "Renders `n` images (default 1; png unless `output_format` says otherwise) and returns their URLs. Each image counts one unit against the daily quota, only when it is made. As multipart/form-data it also takes `image` (image-to-image), `mask` (inpainting: white changes, black keeps; transparent changes in a mask with alpha) and `strength`; JSON or form may name `image_id` from the caller's library instead. See docs/image-input.md.",
    auth: "key-or-browser",
    request: {
      contentType: "application/json",
      schema: generateRequestSchema,
      example: { prompt: "a lighthouse on a cliff at sunset", model: DEFAULT_MODEL, style: "Cinematic", ratio: "16:9" },
      multipart: generateMultipartSchema,
    },
    response: generateResponseSchema,
    async: true,
    errors: [
      "invalid_request",
      "invalid_prompt",
      "invalid_model",
      "invalid_style",
      "invalid_ratio",
      "invalid_seed",
      "invalid_negative_prompt",
      "invalid_n",
      "invalid_output_format",
      "invalid_image",
      "invalid_mask",
      "invalid_strength",
      "unsupported_input",
      "image_too_large",
      "request_timeout",
      "not_found",
      ...ASYNC_ERRORS,
      "unauthorized",
      "content_filtered",
      "rate_limited",
      "busy",
      "generation_failed",
      "server_error",
    ],
    curl: (o) =>
      `curl -X POST ${o}/api/generate \\\n  ${KEY} \\\n  -H "Content-Type: application/json" \\\n  -d '{"prompt":"a lighthouse on a cliff at sunset","style":"Cinematic","ratio":"16:9"}'`,
  },
  {
    method: "post",
    path: "/api/enhance",
    summary: "Enhance and upscale a photo",
    description: `Neural super-resolution (ESRGAN on ONNX Runtime): upscales 2× (or 4×) up to 4,096 px on the long side, applies EXIF orientation and strips metadata. \`model\` picks ${describeEnhanceModes()}. Returns a PNG URL.`,
    auth: "key-or-browser",
    request: { contentType: "multipart/form-data", schema: enhanceRequestSchema },
    response: enhanceResponseSchema,
    async: true,
    errors: [
      "invalid_request",
      ...ASYNC_ERRORS,
      "invalid_image",
      "invalid_strength",
      "invalid_scale",
      "invalid_model",
      "invalid_output_format",
      "image_too_large",
      "request_timeout",
      "unauthorized",
      "rate_limited",
      "busy",
      "server_error",
    ],
    curl: (o) =>
      `curl -X POST ${o}/api/enhance \\\n  ${KEY} \\\n  -F "image=@photo.jpg" \\\n  -F "strength=0.6" \\\n  -F "scale=2" \\\n  -F "model=${DEFAULT_ENHANCE_MODE}"`,
  },
  {
    method: "get",
    path: "/api/status",
    summary: "Service status and your usage",
    description:
      "Health, the caller's daily counter, and the published models, styles and ratios. Does not use quota; at most 60 calls a minute.",
    auth: "key-or-browser",
    response: statusResponseSchema,
    errors: ["unauthorized", "rate_limited", "server_error"],
    curl: (o) => `curl ${o}/api/status \\\n  ${KEY}`,
  },
  {
    method: "get",
    path: "/api/jobs/{id}",
    anchor: "jobs-get",
    parameters: [JOB_ID_PARAMETER],
    summary: "An async job",
    description:
      "The job's status, progress and, once finished, its result or error. Only the caller that created it sees it (404 for anyone else). Finished jobs are kept 24 hours. Uses no daily quota; at most 120 job reads a minute.",
    auth: "key-or-browser",
    response: jobSchema,
    errors: JOB_ERRORS,
    curl: (o) => `curl ${o}/api/jobs/job_… \\\n  ${KEY}`,
  },
  {
    method: "get",
    path: "/api/jobs/{id}/events",
    anchor: "jobs-events",
    parameters: [JOB_ID_PARAMETER],
    summary: "Follow an async job",
    description:
      "Server-sent events: first the current state as a `progress` event (`{ status, progress }`), a `progress` event on each change, then exactly one of `succeeded` (data: the result), `failed` (data: the error) or `canceled`, and the stream closes. A comment line comes at least every 15 s. Works on any instance.",
    auth: "key-or-browser",
    response: z.string().meta({ description: "text/event-stream" }),
    responseType: "text/event-stream",
    errors: JOB_ERRORS,
    curl: (o) => `curl -N ${o}/api/jobs/job_…/events \\\n  ${KEY}`,
  },
  {
    method: "delete",
    path: "/api/jobs/{id}",
    anchor: "jobs-delete",
    parameters: [JOB_ID_PARAMETER],
    summary: "Cancel an async job",
    description:
      "A queued job is dropped and its unit given back; a running job is stopped where the engine allows and keeps its unit (the cost was spent); a finished job answers 409 `job_finished`. Answers the job record.",
    auth: "key-or-browser",
    response: jobSchema,
    errors: [...JOB_ERRORS, "job_finished"],
    curl: (o) => `curl -X DELETE ${o}/api/jobs/job_… \\\n  ${KEY}`,
  },
  {
    method: "get",
    path: "/api/account",
    section: "account",
    summary: "Your key",
    description:
      "The Pro key's own record and its webhook signing secret. Pro keys only (401 otherwise); uses no daily quota and counts on the 60-per-minute status guard.",
    auth: "key",
    response: accountResponseSchema,
    errors: ["unauthorized", "rate_limited", "busy", "server_error"],
    curl: (o) => `curl ${o}/api/account \\\n  ${KEY}`,
  },
  {
    method: "get",
    path: "/api/usage",
    section: "account",
    summary: "Your usage",
    description:
      "The Pro key's daily use, oldest first, one entry per UTC day including days without use. Pro keys only (401 otherwise); uses no daily quota and counts on the 60-per-minute status guard.",
    auth: "key",
    parameters: [
      {
        name: "days",
        in: "query",
        required: false,
        description: "How many days, 1 to 90; default 30.",
        schema: { type: "integer", minimum: 1, maximum: 90, default: 30 },
      },
    ],
    response: usageResponseSchema,
    errors: ["invalid_request", "unauthorized", "rate_limited", "busy", "server_error"],
    curl: (o) => `curl "${o}/api/usage?days=30" \\\n  ${KEY}`,
  },
  {
    method: "get",
    path: "/api/images",
    summary: "List your images",
    description:
      "The key's own stored images, newest first, a page at a time; follow `next_cursor` until it is null. Images past their `expires_at` are not listed. Pro keys only; uses no daily quota and counts on the 60-per-minute status guard.",
    auth: "key",
    parameters: [
      {
        name: "limit",
        in: "query",
        required: false,
        description: `Images per page, 1 to ${IMAGES_MAX_LIMIT} (larger values are capped); default ${IMAGES_DEFAULT_LIMIT}.`,
        schema: { type: "integer", minimum: 1, default: IMAGES_DEFAULT_LIMIT },
      },
      {
        name: "cursor",
        in: "query",
        required: false,
        description: "The `next_cursor` of the previous page, as given.",
        schema: { type: "string" },
      },
    ],
    response: imageListResponseSchema,
    errors: ["invalid_request", "unauthorized", "rate_limited", "busy", "server_error"],
    curl: (o) => `curl "${o}/api/images?limit=20" \\\n  ${KEY}`,
  },
  {
    method: "delete",
    path: "/api/images/{id}",
    anchor: "images-delete",
    summary: "Delete an image",
    description:
      "Deletes the image file and its record; its URL answers 404 afterwards. Allowed for the owning Pro key, or for anyone sending the `delete_token` of the generate or enhance answer as `X-Delete-Token` (no key needed). Anything else is 404 `not_found`, never 403. Uses no daily quota; counts on the 60-per-minute status guard.",
    auth: "key-or-delete-token",
    parameters: [
      {
        name: "id",
        in: "path",
        required: true,
        description: "The image `id` (Blob ids contain slashes; send them as they are or percent-encoded).",
        schema: { type: "string" },
      },
      {
        name: "X-Delete-Token",
        in: "header",
        required: false,
        description: "The `delete_token` from the answer that created the image.",
        schema: { type: "string" },
      },
    ],
    response: imageDeleteResponseSchema,
    errors: ["unauthorized", "not_found", "rate_limited", "busy", "server_error"],
    curl: (o) => `curl -X DELETE ${o}/api/images/$IMAGE_ID \\\n  -H "X-Delete-Token: $DELETE_TOKEN"`,
  },
  {
    method: "post",
    path: "/api/waitlist",
    summary: "Join the Pro waitlist",
    description: "Open to anyone. The answer is the same whether or not the email was already on the list.",
    auth: "open",
    request: {
      contentType: "application/json",
      schema: waitlistRequestSchema,
      example: { email: "ada@example.com", use_case: "Product shots for my shop" },
    },
    response: waitlistResponseSchema,
    errors: ["invalid_request", "invalid_email", "invalid_use_case", "rate_limited", "server_error"],
    curl: (o) =>
      `curl -X POST ${o}/api/waitlist \\\n  -H "Content-Type: application/json" \\\n  -d '{"email":"ada@example.com","use_case":"Product shots for my shop"}'`,
  },
  ...OPENAI_ENDPOINTS,
];

export const RATE_LIMIT_HEADERS = [
  {
    name: "X-RateLimit-Limit",
    description: "The daily limit of the bucket this endpoint counts on.",
    schema: { type: "integer" },
  },
  {
    name: "X-RateLimit-Remaining",
    description: "Units left in that bucket (never negative).",
    schema: { type: "integer", minimum: 0 },
  },
  {
    name: "X-RateLimit-Reset",
    description: "When the bucket resets: Unix time in seconds, the next 00:00 UTC.",
    schema: { type: "integer" },
  },
  { name: "Retry-After", description: "On 429 and 503: seconds until you may retry.", schema: { type: "integer" } },
  {
    name: "X-Request-Id",
    description: "A unique id per request, also in error bodies. Quote it when reporting a problem.",
    schema: { type: "string" },
  },
] as const;

/** zod emits `$defs` per schema; OpenAPI wants them under components, so refs are rewritten. */
function toComponent(schema: z.ZodType, io: "input" | "output", into: Record<string, JsonSchema>): JsonSchema {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  const text = JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/');
  const { $defs, $schema: _dialect, ...root } = JSON.parse(text) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  Object.assign(into, $defs ?? {});
  return root;
}

/** Responses may gain fields (the contract allows extras), so clients must not be told to reject unknown ones. */
function allowExtraFields(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) allowExtraFields(item);
    return;
  }
  if (!node || typeof node !== "object") return;
  const obj = node as JsonSchema;
  if (obj.additionalProperties === false) delete obj.additionalProperties;
  for (const child of Object.values(obj)) allowExtraFields(child);
}

/** The prompt rule is a refinement (code points, not UTF-16 units), which zod cannot express; JSON Schema lengths already count code points. */
function describePromptLength(schemas: Record<string, JsonSchema>): void {
  const props = (schemas.GenerateRequest?.properties ?? {}) as Record<string, JsonSchema>;
  if (props.prompt) Object.assign(props.prompt, { minLength: 1, maxLength: PROMPT_MAX_CODE_POINTS, pattern: "\\S" });
  if (props.negative_prompt) Object.assign(props.negative_prompt, { maxLength: PROMPT_MAX_CODE_POINTS });
}

const SECURITY: Record<Endpoint["auth"], JsonSchema[]> = {
  open: [],
  "key-or-browser": [{ bearerAuth: [] }, { browser: [] }],
  key: [{ bearerAuth: [] }],
  "key-or-delete-token": [{ bearerAuth: [] }, { deleteToken: [] }],
};

/** "generate", "status", …; "listImages" and "deleteImage" for the library. */
function operationIdOf(ep: Endpoint): string {
  if (ep.path.startsWith("/v1/")) return `openai-${ep.method}-${ep.path.slice(4).replace(/[{}]/g, "")}`;
  if (ep.path === "/api/images") return "listImages";
  if (ep.path === "/api/images/{id}") return "deleteImage";
  return `${ep.method}-${ep.path.replace("/api/", "").replace(/[{}]/g, "")}`;
}

export function statusOf(code: ErrorCode, body: Endpoint["errorBody"] = undefined): number {
  return body === "openai" ? openaiAnswerOf(code).status : ERROR_CODES[code].status;
}

/** The Bearer key, the browser's own pages and an image's delete token. */
const SECURITY_SCHEMES: JsonSchema = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    description: "A Pro API key. Keys are issued from the waitlist.",
  },
  browser: {
    type: "apiKey",
    in: "header",
    name: "X-Requested-With",
    description: "`XMLHttpRequest`: the app's own pages on the Free plan, counted per IP.",
  },
  deleteToken: {
    type: "apiKey",
    in: "header",
    name: "X-Delete-Token",
    description: "The `delete_token` of one image, from the answer that created it; deletes only that image.",
  },
};

/** The rate-limit headers an answer of `status` carries, as references (Retry-After only on 429 and 503). */
function headerRefsFor(status: number): JsonSchema {
  return Object.fromEntries(
    RATE_LIMIT_HEADERS.filter((h) => h.name !== "Retry-After" || status === 429 || status === 503).map((h) => [
      h.name,
      { $ref: `#/components/headers/${h.name}` },
    ]),
  );
}

/** What one operation builds on: the component schemas so far and the two error bodies' references. */
type Components = { schemas: Record<string, JsonSchema>; errorRef: JsonSchema; openaiErrorRef: JsonSchema };

/** An endpoint's answers: 200, 202 when it runs async, and one entry per error status with the codes it shares. */
function responsesOf(ep: Endpoint, c: Components): Record<string, JsonSchema> {
  const responses: Record<string, JsonSchema> = {
    "200": {
      description: "Success.",
      headers: headerRefsFor(200),
      content: {
        [ep.responseType ?? "application/json"]: {
          schema: ep.responseType ? { type: "string" } : toComponent(ep.response, "output", c.schemas),
        },
      },
    },
  };
  if (ep.async) {
    responses["202"] = {
      description: "Accepted as an async job (`Prefer: respond-async`, or a `webhook_url`).",
      headers: {
        ...headerRefsFor(202),
        "Preference-Applied": { schema: { type: "string", const: "respond-async" } },
        Location: { description: "/api/jobs/{id}", schema: { type: "string" } },
      },
      content: { "application/json": { schema: toComponent(jobAcceptedSchema, "output", c.schemas) } },
    };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ep.errors) {
    const status = statusOf(code, ep.errorBody);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of byStatus) {
    responses[String(status)] = {
      description: `Error: ${codes.map((code) => (ep.errorBody === "openai" ? openaiAnswerOf(code).code : code)).join(", ")}.`,
      headers: headerRefsFor(status),
      content: { "application/json": { schema: ep.errorBody === "openai" ? c.openaiErrorRef : c.errorRef } },
    };
  }
  return responses;
}

/** One endpoint's operation: its answers, security, curl sample, request body and parameters. */
function operationOf(ep: Endpoint, origin: string, c: Components): JsonSchema {
  const operation: JsonSchema = {
    operationId: operationIdOf(ep),
    summary: ep.summary,
    description: ep.description,
    security: SECURITY[ep.auth],
    responses: responsesOf(ep, c),
    "x-codeSamples": [{ lang: "curl", source: ep.curl(origin) }],
  };
  if (ep.request) {
    const media: JsonSchema = { schema: toComponent(ep.request.schema, "input", c.schemas) };
    if (ep.request.example) media.example = ep.request.example;
    const content: JsonSchema = { [ep.request.contentType]: media };
    if (ep.request.multipart) {
      content["multipart/form-data"] = { schema: toComponent(ep.request.multipart, "input", c.schemas) };
    }
    operation.requestBody = { required: true, content };
  }
  const parameters = [...(ep.async ? ASYNC_PARAMETERS : []), ...(ep.parameters ?? [])];
  if (parameters.length > 0) operation.parameters = parameters;
  return operation;
}

export function buildOpenApi(origin: string): JsonSchema {
  const schemas: Record<string, JsonSchema> = {};
  const c: Components = {
    schemas,
    errorRef: toComponent(errorBodySchema, "output", schemas),
    openaiErrorRef: toComponent(openaiErrorSchema, "output", schemas),
  };
  const headers = Object.fromEntries(
    RATE_LIMIT_HEADERS.map((h) => [h.name, { description: h.description, schema: h.schema }]),
  );
  const paths: Record<string, JsonSchema> = {};
  for (const ep of ENDPOINTS) paths[ep.path] = { ...paths[ep.path], [ep.method]: operationOf(ep, origin, c) };
  describePromptLength(schemas);
  allowExtraFields(schemas);

  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Darkroom API",
      version: API_VERSION,
      "x-api-revision": API_REVISION,
      description:
        "Image generation and enhancement. Send `Authorization: Bearer <key>` (Pro). Daily windows reset at 00:00 UTC.",
    },
    servers: [{ url: origin }],
    paths,
    components: { schemas, headers, securitySchemes: SECURITY_SCHEMES },
  };
}
