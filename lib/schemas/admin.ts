// The operators' console API and the Pro account endpoints: request bodies and query parameters, every bound
// explicit. Shared by the routes and the console's forms.
import { z } from "zod";
import { WAITLIST_STATUSES } from "@/lib/console/types";
import { emailSchema } from "./fields";

export const DAILY_LIMIT_MAX = 1_000_000_000;
export const dailyLimitSchema = z.int().min(0).max(DAILY_LIMIT_MAX);

const normalisedEmail = z.preprocess((v) => (typeof v === "string" ? v.trim().toLowerCase() : v), emailSchema);

export const signInSchema = z.object({ token: z.string().min(1).max(1000) });

export const createKeySchema = z
  .object({
    label: z.string().trim().min(1).max(200).optional(),
    email: normalisedEmail.optional(),
    daily_limit: dailyLimitSchema.optional(),
  })
  .refine((v) => v.label !== undefined || v.email !== undefined, { message: "label is required", path: ["label"] });

export const revokeQuerySchema = z.object({ delete_images: z.enum(["true", "false"]).optional() });

export const patchKeySchema = z.object({ daily_limit: dailyLimitSchema.nullable() });

export const bulkApproveSchema = z.object({ ids: z.array(z.string().min(1).max(64)).min(1).max(100) });

export const waitlistQuerySchema = z.object({
  status: z.enum(WAITLIST_STATUSES).optional(),
  q: z.string().max(200).optional(),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  format: z.enum(["json", "csv"]).default("json"),
});

export const daysQuerySchema = z.coerce.number().int().min(1).max(90).default(30);

export const auditQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(200) });
