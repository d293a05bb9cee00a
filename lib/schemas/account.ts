// GET /api/account and GET /api/usage: a Pro key's own record and its daily use, as the API answers them.
import { z } from "zod";

export const accountResponseSchema = z
  .object({
    success: z.literal(true),
    key: z.object({
      id: z.string(),
      label: z.string(),
      last4: z.string(),
      created_at: z.iso.datetime(),
      daily_limit: z.int().min(0).meta({ description: "The key's own limit, else PRO_REQUESTS_PER_DAY." }),
      email: z.string().nullable().meta({ description: "Who the key was issued to, when known." }),
    }),
    webhook_secret: z
      .string()
      .regex(/^whsec_/)
      .meta({ description: "The key webhooks are signed with (Standard Webhooks): whsec_ and base64." }),
  })
  .meta({ id: "Account" });

const usageDaySchema = z.object({
  date: z.iso.date(),
  generate: z.int().min(0).meta({ description: "Generations that succeeded that UTC day." }),
  enhance: z.int().min(0).meta({ description: "Enhancements that succeeded." }),
  failed: z.int().min(0).meta({ description: "Requests that failed on the service's side." }),
  refused: z.int().min(0).meta({ description: "Requests refused for their input, the filter or the quota." }),
  by_model: z.record(z.string(), z.int().min(0)).meta({ description: "Successes per model." }),
});

export const usageResponseSchema = z
  .object({
    success: z.literal(true),
    days: z
      .array(usageDaySchema)
      .meta({ description: "One entry per UTC day, oldest first, days without use included." }),
    total: z.int().min(0).meta({ description: "Successes over the period." }),
    daily_limit: z.int().min(0),
    today: z
      .object({ used: z.int().min(0), remaining: z.int().min(0), reset_at: z.iso.datetime() })
      .optional()
      .meta({ description: "Today's quota counter, as in /api/status." }),
  })
  .meta({ id: "Usage" });
