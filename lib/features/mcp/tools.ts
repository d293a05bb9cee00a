// The MCP tools (contract 1.3, "MCP server"): one row each, with its input and output schema. Each image tool is a
// call of the generate or enhance flow that /api runs, made for the caller (./call.ts), so the quota, the per-key
// limits, the content filter, the engines, the library, the jobs and the usage history are those of /api, unchanged.
import type { z } from "zod";
import {
  editToolInput,
  enhanceToolInput,
  generateToolInput,
  getJobToolInput,
  imagesToolOutput,
  listModelsToolInput,
  listModelsToolOutput,
} from "@/lib/schemas/mcp";

export type ToolName = "generate_image" | "edit_image" | "enhance_image" | "list_models" | "get_job";

export type ToolEntry = {
  name: ToolName;
  title: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  /** True for the tools that make images (generative or not): they take quota and may run long. */
  makesImages: boolean;
};

export const MCP_TOOLS: readonly ToolEntry[] = [
  {
    name: "generate_image",
    title: "Generate images (generative AI)",
    description:
      "Generate 1 to 4 images from a text prompt with a Darkroom model (generative AI). Each image is one unit of your daily quota. Returns each image inline, a link to the full-size file, and its id in your library.",
    input: generateToolInput,
    output: imagesToolOutput,
    makesImages: true,
  },
  {
    name: "edit_image",
    title: "Edit an image (generative AI)",
    description:
      "Change an image from a prompt (generative AI): give image_id (an image in your library, e.g. one generate_image made) or image (base64), and optionally a mask (base64, white = change). One unit of quota.",
    input: editToolInput,
    output: imagesToolOutput,
    makesImages: true,
  },
  {
    name: "enhance_image",
    title: "Enhance and upscale a photo",
    description:
      "Upscale a photo 2× or 4× and restore its detail: give image_id or image (base64). The modes are listed by list_models. One unit of quota.",
    input: enhanceToolInput,
    output: imagesToolOutput,
    makesImages: true,
  },
  {
    name: "list_models",
    title: "List models and enhance modes",
    description:
      "The generation models (what inputs each takes here and its ratios), the styles and the enhance modes.",
    input: listModelsToolInput,
    output: listModelsToolOutput,
    makesImages: false,
  },
  {
    name: "get_job",
    title: "Follow a job",
    description:
      "A job's state and, once it has succeeded, its images (a tool called with async: true returns the job id).",
    input: getJobToolInput,
    output: imagesToolOutput,
    makesImages: false,
  },
];

export const INSTRUCTIONS =
  "Darkroom makes, edits and enhances images. generate_image makes images from a prompt; edit_image changes one (from your library by image_id, or base64); enhance_image upscales a photo. Every image costs one unit of the key's daily quota (the result says what remains). Images returned carry an id: pass it as image_id to edit or enhance it further. For long work pass async: true and follow the job with get_job, or send a progressToken for progress notifications.";
