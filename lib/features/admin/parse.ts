// Reads admin request bodies and query strings against lib/schemas/admin.ts; anything off is 400.
import type { z } from "zod";
import { readJsonObject } from "@/lib/http/read-json";
import { ApiError } from "@/lib/schemas/api-error";

/** The first problem, named by its field, as a 400 invalid_request (invalid_email for the email). */
function refusal(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const field = issue?.path.join(".") || "body";
  if (field === "email") return new ApiError("invalid_email");
  return new ApiError("invalid_request", `Invalid ${field}: ${issue?.message ?? "not valid"}.`);
}

export async function parseAdminBody<T extends z.ZodType>(req: Request, schema: T): Promise<z.infer<T>> {
  const parsed = schema.safeParse(await readJsonObject(req));
  if (!parsed.success) throw refusal(parsed.error);
  return parsed.data;
}

/** Query parameters; an empty value counts as absent. */
export function parseQuery<T extends z.ZodType>(req: Request, schema: T): z.infer<T> {
  const params = Object.fromEntries([...new URL(req.url).searchParams].filter(([, v]) => v !== ""));
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw refusal(parsed.error);
  return parsed.data;
}

/** `?days=N`: 1 to 90, default 30. */
export function parseDays(req: Request, schema: z.ZodType<number>): number {
  const raw = new URL(req.url).searchParams.get("days");
  const parsed = schema.safeParse(raw === null || raw === "" ? undefined : raw);
  if (!parsed.success) throw new ApiError("invalid_request", "days must be an integer from 1 to 90.");
  return parsed.data;
}
