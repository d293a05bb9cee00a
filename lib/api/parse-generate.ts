// Validates a generate body field by field, in the contract's order, into one error code.

import { ApiError } from "@/lib/schemas/api-error";
import { ERROR_CODES } from "@/lib/schemas/error-codes";
import {
  GENERATE_FIELD_CODES,
  type GenerateRequest,
  generateRequestSchema,
  INVALID_MODEL_MESSAGE,
} from "@/lib/schemas/generate";
import { readJsonObject } from "./read-json";

export function validateGenerate(body: Record<string, unknown>): GenerateRequest {
  const parsed = generateRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const failing = new Set(parsed.error.issues.map((i) => i.path[0]));
  for (const [field, code] of GENERATE_FIELD_CODES) {
    if (failing.has(field)) throw new ApiError(code, messageFor(code));
  }
  throw new ApiError("invalid_request");
}

function messageFor(code: keyof typeof ERROR_CODES): string {
  if (code === "invalid_model") return INVALID_MODEL_MESSAGE;
  if (code === "invalid_style") return "Unsupported style. GET /api/status lists the style presets.";
  return ERROR_CODES[code].message;
}

export async function parseGenerate(req: Request): Promise<GenerateRequest> {
  return validateGenerate(await readJsonObject(req));
}
