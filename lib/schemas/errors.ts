// The one error body every endpoint returns.
import { z } from "zod";
import { ERROR_CODE_NAMES } from "@/lib/schemas/error-codes";

export const errorBodySchema = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(ERROR_CODE_NAMES),
      message: z.string(),
      param: z.string().optional().meta({ description: "The request field a 400 is about, when it is one field." }),
      request_id: z.string(),
    }),
  })
  .meta({ id: "ErrorBody" });

export type ErrorBody = z.infer<typeof errorBodySchema>;
