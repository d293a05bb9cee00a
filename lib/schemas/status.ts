// GET /api/status: the status record.
import { z } from "zod";
import { ALL_ENHANCE_MODE_NAMES, ENHANCE_MODE_NAMES, type EnhanceMode } from "@/lib/catalog/enhance-modes";
import { MODEL_NAMES, RATIOS } from "@/lib/catalog/models";
import { INPUT_KINDS } from "@/lib/catalog/route-inputs";

export const API_VERSION = "1.0";
/** The revision of the contract this service implements on top of 1.0 (jobs, webhooks, images, accounts). */
export const API_REVISION = "1.2";

/** One string per enhance mode: the network (or operator file) that serves it. */
const perModeShape = Object.fromEntries(ENHANCE_MODE_NAMES.map((m) => [m, z.string()])) as Record<
  EnhanceMode,
  z.ZodString
>;

export const statusResponseSchema = z
  .object({
    status: z.enum(["ok", "degraded"]),
    degraded_reasons: z
      .array(z.string())
      .meta({ description: "Why status is degraded (empty when ok): store down, provider routes failing, low disk." }),
    version: z.literal(API_VERSION),
    api_revision: z
      .literal(API_REVISION)
      .meta({ description: "The contract's revision: 1.0 plus the 1.1 and 1.2 additions." }),
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
        name: z.enum(MODEL_NAMES),
        family: z.string(),
        description: z.string(),
        engine: z.string(),
        ai: z.boolean(),
        configured: z.boolean(),
        routes: z
          .array(z.object({ route: z.string(), failing: z.boolean() }))
          .meta({ description: "The fallback chain in order; failing = its last 3 calls failed." }),
        inputs: z.array(z.enum(INPUT_KINDS)).meta({
          description:
            'What some configured route of the model takes: "text", "image" (image-to-image, edits), "mask" (inpainting).',
        }),
      }),
    ),
    gpu_pools: z
      .array(
        z.object({
          kind: z.enum(["comfyui", "a1111"]),
          servers: z.array(
            z.object({
              server: z.int().positive().meta({ description: "Position in the operator's list (URLs are not shown)." }),
              health: z.enum(["ok", "failing", "out"]),
              in_flight: z.int().min(0),
              queue: z.int().min(0).nullable().meta({ description: "Queue length the server reported (ComfyUI)." }),
              retry_in_s: z.int().positive().optional(),
            }),
          ),
        }),
      )
      .optional()
      .meta({
        description:
          "Operator-run GPU pools (ComfyUI, AUTOMATIC1111-compatible): each server's health; out = taken out for 30 s after 3 failures in a row or a refused connection.",
      }),
    styles: z.array(z.object({ name: z.string(), description: z.string() })),
    ratios: z.array(z.enum(RATIOS)),
    upload: z.object({ max_bytes: z.int().positive(), max_pixels: z.int().positive() }).meta({
      description: "Upload limits of /api/enhance on this deployment; pages resize larger photos before sending.",
    }),
    enhance_modes: z
      .array(
        z.object({
          name: z.enum(ALL_ENHANCE_MODE_NAMES),
          label: z.string(),
          available: z
            .boolean()
            .meta({ description: "False when no route serves the mode here; asking for it is 400." }),
          engines: z.array(z.string()).meta({ description: "The mode's routes in the order they are tried." }),
          ai: z.boolean(),
          generative: z.boolean().meta({ description: "True when the mode invents detail the photo does not hold." }),
          licence_notes: z.string().optional(),
        }),
      )
      .meta({ description: "Every value of /api/enhance's model field, and whether this server serves it." }),
    enhance_engine: z
      .object({
        engine: z.enum(["onnx", "sharp"]),
        ai: z.boolean(),
        models: z.object(perModeShape).meta({ description: "The network serving each enhance mode." }),
        workers: z.int().positive(),
        fallback_reason: z.string().optional(),
      })
      .meta({
        description:
          "The enhancement engine: neural super-resolution on ONNX Runtime, or sharp only if that cannot start.",
      }),
    enhance_routes: z
      .array(z.object({ mode: z.enum(ALL_ENHANCE_MODE_NAMES), route: z.string(), failing: z.boolean() }))
      .meta({
        description:
          "The enhance modes' cloud and GPU routes in the order they are tried; failing = its last 3 calls failed.",
      }),
  })
  .meta({ id: "StatusResponse" });

export type StatusResponse = z.infer<typeof statusResponseSchema>;
