// GET /api/status: the status record.
import { z } from "zod";

export const API_VERSION = "1.0";

export const statusResponseSchema = z
  .object({
    status: z.enum(["ok", "degraded"]),
    degraded_reasons: z
      .array(z.string())
      .meta({ description: "Why status is degraded (empty when ok): store down, provider routes failing, low disk." }),
    version: z.literal(API_VERSION),
    usage_today: z.int().min(0),
    limit_today: z.int().min(0),
    remaining: z.int().min(0),
    reset_at: z.iso.datetime().meta({ description: "Next 00:00 UTC, ISO 8601." }),
    plan: z.enum(["free", "pro"]),
    enhance: z
      .object({ usage_today: z.int().min(0), limit_today: z.int().min(0), remaining: z.int().min(0) })
      .optional()
      .meta({ description: "Free plan only: the separate daily enhancement counter." }),
    models: z.array(
      z.object({
        name: z.string(),
        family: z.string(),
        description: z.string(),
        engine: z.string(),
        ai: z.boolean(),
        configured: z.boolean(),
        routes: z
          .array(z.object({ route: z.string(), failing: z.boolean() }))
          .meta({ description: "The fallback chain in order; failing = its last 3 calls failed." }),
      }),
    ),
    styles: z.array(z.object({ name: z.string(), description: z.string() })),
    ratios: z.array(z.string()),
    upload: z.object({ max_bytes: z.int().positive(), max_pixels: z.int().positive() }).meta({
      description: "Upload limits of /api/enhance on this deployment; pages resize larger photos before sending.",
    }),
    enhance_engine: z
      .object({
        engine: z.enum(["onnx", "sharp"]),
        ai: z.boolean(),
        models: z.object({ fast: z.string(), quality: z.string() }),
        workers: z.int().positive(),
        fallback_reason: z.string().optional(),
      })
      .meta({
        description:
          "The enhancement engine: neural super-resolution on ONNX Runtime, or sharp only if that cannot start.",
      }),
  })
  .meta({ id: "StatusResponse" });

export type StatusResponse = z.infer<typeof statusResponseSchema>;
