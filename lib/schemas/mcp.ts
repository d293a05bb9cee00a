// The MCP tools' inputs and outputs (contract 1.3, "MCP server"), cut from the same schemas as /api/generate and
// /api/enhance so a field means the same thing on both. The tools pass their arguments on to those flows, which
// validate them with the contract's error codes.
import { z } from "zod";
import { ALL_ENHANCE_MODE_NAMES } from "@/lib/catalog/enhance-modes";
import { generateRequestSchema } from "./generate";
import { outputFormatSchema } from "./image-fields";

const asyncSchema = z.boolean().optional().meta({
  description:
    "Answer at once with a job id instead of waiting for the images; follow it with get_job. For work that may outlive the client's timeout.",
});
const base64Schema = (what: string) =>
  z
    .string()
    .min(1)
    .optional()
    .meta({ description: `${what}, base64 (PNG, JPEG or WebP; at most 10 MB once decoded).` });
const imageIdSchema = z.string().min(1).max(200).optional().meta({ description: "An image in your library (its id)." });

export const generateToolInput = generateRequestSchema
  .pick({ prompt: true, model: true, style: true, ratio: true, n: true, seed: true, negative_prompt: true })
  .extend({ output_format: outputFormatSchema, async: asyncSchema });

export const editToolInput = generateRequestSchema
  .pick({ prompt: true, model: true, style: true, ratio: true, seed: true, negative_prompt: true, strength: true })
  .extend({
    image_id: imageIdSchema,
    image: base64Schema("The starting image"),
    mask: base64Schema("The area to change (white changes, black keeps)"),
    output_format: outputFormatSchema,
    async: asyncSchema,
  });

export const enhanceToolInput = z.object({
  image_id: imageIdSchema,
  image: base64Schema("The photo to enhance"),
  mode: z
    .enum(ALL_ENHANCE_MODE_NAMES)
    .optional()
    .meta({
      description: `Enhance mode: ${ALL_ENHANCE_MODE_NAMES.join(", ")}; list_models says which this server serves (creative is generative: it invents detail).`,
    }),
  prompt: z
    .string()
    .max(400)
    .optional()
    .meta({ description: "Steers the creative mode (filtered as generation prompts are)." }),
  scale: z
    .union([z.literal(2), z.literal(4)])
    .optional()
    .meta({ description: "Upscale factor, 2 (default) or 4." }),
  strength: z.number().min(0).max(1).optional().meta({ description: "0 (faithful resize) to 1 (strongest)." }),
  output_format: outputFormatSchema,
  async: asyncSchema,
});

export const listModelsToolInput = z.object({});

export const getJobToolInput = z.object({
  job_id: z.string().min(1).max(100).meta({ description: "The job id a tool called with async returned." }),
});

const toolImageSchema = z.object({
  id: z.string(),
  url: z.url(),
  width: z.int().min(1),
  height: z.int().min(1),
  seed: z.int().min(0).optional(),
});

/** What an image tool and get_job return; a refusal carries only `error`, an accepted async call only `job`. */
export const imagesToolOutput = z.object({
  images: z.array(toolImageSchema).optional(),
  usage: z.int().min(0).optional(),
  remaining: z.int().min(0).optional(),
  job: z
    .object({
      id: z.string(),
      status: z.enum(["queued", "running", "succeeded", "failed", "canceled"]),
      progress: z.object({ fraction: z.number().nullable(), queue_position: z.int().nullable(), stage: z.string() }),
    })
    .optional()
    .meta({ description: "The job, when the call was async or get_job found it unfinished." }),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

export const listModelsToolOutput = z.object({
  models: z.array(
    z.object({
      name: z.string(),
      family: z.string(),
      description: z.string(),
      ratios: z.array(z.string()),
      takes: z.array(z.string()),
    }),
  ),
  styles: z.array(z.string()),
  enhance_modes: z.array(
    z.object({
      name: z.string(),
      label: z.string(),
      network: z.string(),
      available: z.boolean().optional(),
      engines: z.array(z.string()).optional(),
      generative: z.boolean().optional(),
    }),
  ),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

export type ToolImage = z.infer<typeof toolImageSchema>;
export type ImagesToolOutput = z.infer<typeof imagesToolOutput>;
