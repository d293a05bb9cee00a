// Validates a waitlist signup: a normalised email and an optional use case.

import { readJsonObject } from "@/lib/http/read-json";
import { ApiError } from "@/lib/schemas/api-error";
import { waitlistRequestSchema } from "@/lib/schemas/waitlist";

export type WaitlistSignup = { email: string; useCase: string | null };

export async function parseWaitlist(req: Request): Promise<WaitlistSignup> {
  const body = await readJsonObject(req);
  const parsed = waitlistRequestSchema.safeParse({
    ...body,
    email: typeof body.email === "string" ? body.email.trim().toLowerCase() : body.email,
  });
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path[0];
    throw new ApiError(field === "use_case" ? "invalid_use_case" : "invalid_email");
  }
  return { email: parsed.data.email, useCase: parsed.data.use_case?.trim() || null };
}
