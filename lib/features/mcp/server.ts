// The MCP server of one request (stateless, contract 1.3): the tools of ./tools.ts on the SDK's low-level server.
// Arguments go to the /api flows as they are, so a bad field gets the contract's code from the same validation;
// every refusal is a result with isError and structuredContent.error, never a protocol error.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ENHANCE_MODES } from "@/lib/catalog/enhance-modes";
import { MODEL_CATALOG } from "@/lib/catalog/models";
import { STYLE_NAMES } from "@/lib/catalog/styles";
import { recordDepsFor } from "@/lib/features/images/records";
import { findOwnJob } from "@/lib/features/jobs/access";
import { findOwnImage, readImageBytes } from "@/lib/images/library";
import { isFinished, type JobRecord, viewOf } from "@/lib/jobs/types";
import { ApiError, toApiError } from "@/lib/schemas/api-error";
import type { ImagesToolOutput, ToolImage } from "@/lib/schemas/mcp";
import { callFlow, type FlowRequest, type ToolCaller, type ToolForm } from "./call";
import { inlineCopy } from "./inline";
import { INSTRUCTIONS, MCP_TOOLS, type ToolName } from "./tools";

export type McpContext = ToolCaller & {
  /** The package's version, declared in the initialize answer. */
  version: string;
};

/** How often a followed job is read, and how long a call waits for it before answering with the job instead. */
const FOLLOW_EVERY_MS = 250;
const FOLLOW_FOR_MS = 240_000;

type Progress = (view: ReturnType<typeof viewOf>) => Promise<void>;
type Args = Record<string, unknown>;

/** A refusal as a tool result: the contract's code in the text and in structuredContent.error. */
export function refusal(code: string, message: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${code}: ${message}` }],
    structuredContent: { error: { code, message } },
  };
}

function refusalOf(err: unknown, requestId: string): CallToolResult {
  const apiError = toApiError(err, requestId);
  return refusal(apiError.code, apiError.message);
}

export function createMcpServer(ctx: McpContext): Server {
  const server = new Server(
    { name: "darkroom", title: "Darkroom", version: ctx.version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: MCP_TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchemaOf(tool.input, "input"),
      outputSchema: jsonSchemaOf(tool.output, "output"),
      annotations: { readOnlyHint: !tool.makesImages, openWorldHint: tool.makesImages, destructiveHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    let sent = 0;
    const progress: Progress | undefined =
      token === undefined
        ? undefined
        : async (view) => {
            const at = view.progress;
            const message = [
              at.stage,
              at.queue_position !== null && `queue position ${at.queue_position}`,
              at.fraction !== null && `${Math.round(at.fraction * 100)}%`,
            ]
              .filter(Boolean)
              .join(", ");
            const notification: ServerNotification = {
              method: "notifications/progress",
              params: { progressToken: token, progress: ++sent, message },
            };
            await extra.sendNotification(notification).catch(() => undefined);
          };
    const args = (request.params.arguments ?? {}) as Args;
    try {
      return await runTool(ctx, request.params.name, args, progress);
    } catch (err) {
      return refusalOf(err, ctx.requestId);
    }
  });
  return server;
}

function jsonSchemaOf(schema: z.ZodObject, io: "input" | "output") {
  const { $schema: _s, ...json } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return { ...json, type: "object" as const };
}

async function runTool(ctx: McpContext, name: string, args: Args, progress?: Progress): Promise<CallToolResult> {
  const tool = MCP_TOOLS.find((t) => t.name === name);
  if (!tool)
    return refusal("invalid_request", `No tool named ${name}. Tools: ${MCP_TOOLS.map((t) => t.name).join(", ")}.`);
  const shape = tool.input.safeParse(args);
  // The /api flows check the fields they share with it; only the tool's own fields are checked here.
  if (!shape.success && !isApiField(tool.name, shape.error)) {
    const issue = shape.error.issues[0];
    return refusal("invalid_request", `${issue.path.join(".") || "arguments"}: ${issue.message}`);
  }
  // Only the tool's own arguments go on: anything else (a webhook_url, say) is not part of the tool.
  const known = Object.fromEntries(Object.entries(args).filter(([field]) => field in tool.input.shape));
  switch (tool.name) {
    case "list_models":
      return listModels(ctx);
    case "get_job":
      return getJob(ctx, String(known.job_id));
    default:
      return makeImages(ctx, tool.name, known, progress);
  }
}

/** Fields the flows' parsers validate themselves, with /api's error codes. */
const TOOL_ONLY_FIELDS = new Set(["image", "mask", "async", "job_id"]);

function isApiField(_tool: ToolName, error: z.ZodError): boolean {
  return error.issues.every((issue) => !TOOL_ONLY_FIELDS.has(String(issue.path[0])));
}

function definedOnly(fields: Args): Args {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A base64 argument's bytes (a data: URL's prefix is dropped); null when it is not base64. */
function bytesOf(text: unknown): Buffer | null {
  if (typeof text !== "string") return null;
  const bare = text.replace(/^data:[^;,]*;base64,/, "").replace(/\s+/g, "");
  if (bare.length === 0 || bare.length % 4 === 1 || !BASE64.test(bare)) return null;
  return Buffer.from(bare, "base64");
}

/** The flow a tool calls, and what with: generate's JSON fields or a form with files, or enhance's form. */
async function flowRequestOf(ctx: McpContext, tool: ToolName, args: Args): Promise<FlowRequest> {
  const { image, mask, image_id, async: _async, mode, ...fields } = args;
  if (tool === "generate_image") return { flow: "generate", json: definedOnly({ ...fields, n: fields.n ?? 1 }) };
  if ((image === undefined) === (image_id === undefined)) {
    throw new ApiError("invalid_request", "Send either image_id (an image in your library) or image (base64).");
  }
  const files: ToolForm["files"] = {};
  for (const [name, text] of Object.entries({ image, mask })) {
    if (text === undefined) continue;
    const bytes = bytesOf(text);
    if (!bytes) throw new ApiError("invalid_image", `${name} must be base64 (PNG, JPEG or WebP).`);
    files[name as "image" | "mask"] = bytes;
  }
  if (tool === "edit_image") {
    if (image_id !== undefined) {
      if (mask !== undefined)
        throw new ApiError("invalid_request", "A mask goes with a base64 image, not with image_id.");
      return { flow: "generate", json: definedOnly({ ...fields, image_id, n: 1 }) };
    }
    return { flow: "generate", form: { fields: { ...fields, n: 1 }, files } };
  }
  if (image_id !== undefined) {
    // Enhance takes an upload: the library image's bytes are read here (someone else's id is 404, before quota).
    const records = recordDepsFor(ctx.svc, ctx.caller);
    const own = await findOwnImage(String(image_id), records.owner, records);
    files.image = await readImageBytes(ctx.svc.storage, own.id, ctx.svc.config.upload.maxBytes);
  }
  return { flow: "enhance", form: { fields: { ...fields, model: mode }, files } };
}

async function makeImages(ctx: McpContext, tool: ToolName, args: Args, progress?: Progress): Promise<CallToolResult> {
  const request = await flowRequestOf(ctx, tool, args);
  const asJob = args.async === true || progress !== undefined;
  const result = await callFlow(ctx, request, asJob);
  if ("jobId" in result) {
    const job = await findOwnJob(ctx.svc, ctx.caller, result.jobId);
    if (args.async === true) return jobResult(ctx, job);
    return jobResult(ctx, await follow(ctx, job, progress));
  }
  return imagesResult(ctx, request.flow, result.body);
}

/** Reads the job until it finishes (sending its progress as it changes), the caller leaves, or the wait bound. */
async function follow(ctx: McpContext, first: JobRecord, progress?: Progress): Promise<JobRecord> {
  let job = first;
  let seen = "";
  const until = Date.now() + FOLLOW_FOR_MS;
  for (;;) {
    const view = viewOf(job);
    const now = JSON.stringify([view.status, view.progress]);
    if (now !== seen) {
      seen = now;
      await progress?.(view);
    }
    if (isFinished(job.status) || ctx.signal.aborted || Date.now() > until) return job;
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_EVERY_MS));
    job = await findOwnJob(ctx.svc, ctx.caller, job.id);
  }
}

async function getJob(ctx: McpContext, id: string): Promise<CallToolResult> {
  return jobResult(ctx, await findOwnJob(ctx.svc, ctx.caller, id));
}

function jobSummary(job: JobRecord): NonNullable<ImagesToolOutput["job"]> {
  const { progress } = viewOf(job);
  return { id: job.id, status: job.status, progress };
}

async function jobResult(ctx: McpContext, job: JobRecord): Promise<CallToolResult> {
  const view = viewOf(job);
  if (view.status === "succeeded" && view.result) {
    const done = await imagesResult(ctx, job.kind, view.result);
    return { ...done, structuredContent: { ...done.structuredContent, job: jobSummary(job) } };
  }
  if (view.status === "failed" || view.status === "canceled") {
    const error = view.error ?? { code: "canceled", message: "The job was canceled." };
    const refused = refusal(error.code, error.message);
    return { ...refused, structuredContent: { ...refused.structuredContent, job: jobSummary(job) } };
  }
  const text = `Job ${job.id} is ${view.status} (${view.progress.stage}). Call get_job with job_id ${job.id} to follow it.`;
  return { content: [{ type: "text", text }], structuredContent: { job: jobSummary(job) } };
}

/** The images of a flow's body (as /api answers it with 200): generate's `images`, or enhance's one image. */
function imagesOf(kind: "generate" | "enhance", body: Record<string, unknown>): ToolImage[] {
  if (kind === "generate") {
    const images = body.images as { id: string; url: string; width: number; height: number; seed?: number }[];
    return images.map(({ id, url, width, height, seed }) => definedOnly({ id, url, width, height, seed }) as ToolImage);
  }
  const [width, height] = String(body.enhanced_size).split("x").map(Number);
  return [{ id: String(body.id), url: String(body.url), width, height }];
}

async function imagesResult(
  ctx: McpContext,
  kind: "generate" | "enhance",
  body: Record<string, unknown>,
): Promise<CallToolResult & { structuredContent: ImagesToolOutput }> {
  const images = imagesOf(kind, body);
  const content: CallToolResult["content"] = [];
  const what = kind === "generate" ? "generative AI" : "enhanced, not generative";
  content.push({
    type: "text",
    text: `${images.length} image${images.length === 1 ? "" : "s"} (${what}); quota used ${body.usage}, remaining ${body.remaining}. ${images
      .map((i) => `${i.id}: ${i.width}×${i.height} ${i.url}`)
      .join("; ")}`,
  });
  for (const image of images) {
    const bytes = await readImageBytes(ctx.svc.storage, image.id, Number.MAX_SAFE_INTEGER);
    const inline = await inlineCopy(bytes);
    content.push({ type: "image", data: inline.data.toString("base64"), mimeType: inline.mimeType });
    content.push({
      type: "resource_link",
      uri: image.url,
      name: image.id,
      description: `${image.width}×${image.height}, full size`,
    });
  }
  return {
    content,
    structuredContent: { images, usage: Number(body.usage), remaining: Number(body.remaining) },
  };
}

function listModels(ctx: McpContext): CallToolResult {
  const described = new Map(ctx.svc.engines.describe().map((d) => [d.name, d]));
  const structured = {
    models: MODEL_CATALOG.map((m) => ({
      name: m.name,
      family: m.family,
      description: m.description,
      ratios: Object.keys(m.sizes),
      takes: described.get(m.name)?.inputs ?? ["text"],
    })),
    styles: [...STYLE_NAMES],
    enhance_modes: ENHANCE_MODES.map((m) => {
      const engines = ctx.svc.config.enhance.chains[m.name].map((r) => r.id);
      return {
        name: m.name,
        label: m.label,
        network: engines.join(", ") || "no route on this server",
        available: engines.length > 0,
        engines,
        generative: m.generative,
      };
    }),
  };
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
}
