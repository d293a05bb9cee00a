// POST /api/waitlist: request and response.
import { z } from "zod";
import { emailSchema } from "./fields";

export const USE_CASE_MAX = 500;

export const waitlistRequestSchema = z
  .object({
    email: emailSchema.meta({ example: "ada@example.com" }),
    use_case: z.string().max(USE_CASE_MAX).optional(),
  })
  .meta({ id: "WaitlistRequest" });

export const waitlistResponseSchema = z
  .object({ success: z.literal(true), message: z.string() })
  .meta({ id: "WaitlistResponse" });
