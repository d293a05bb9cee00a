// An image tool's work is the generate or enhance flow that /api runs, called with plain arguments for the MCP caller
// on an account of its own (lib/account): the same order of checks (shape, filter, quota, body), the same units,
// limits, library and usage history, with no HTTP request in between.
import { type AccountBucket, type OpenedCall, openAccount, settleFailure } from "@/lib/account/account";
import type { Caller } from "@/lib/auth/types";
import { runEnhance } from "@/lib/features/enhance/flow";
import { parseEnhance, servedEnhanceModes } from "@/lib/features/enhance/parse";
import { runGenerate } from "@/lib/features/generate/flow";
import { parseGenerateForm, parseGenerateObject } from "@/lib/features/generate/parse";
import type { FlowAnswer, FlowCall } from "@/lib/features/jobs/flow-call";
import { ApiError } from "@/lib/schemas/api-error";
import { ERROR_CODES, type ErrorCode } from "@/lib/schemas/error-codes";
import { GENERATE_FIELD_MAX_BYTES } from "@/lib/schemas/generate";
import { imageTooLarge, maskTooLarge } from "@/lib/schemas/too-large";
import type { Services } from "@/lib/services";
import { MULTIPART_ENVELOPE_BYTES } from "@/lib/work/upload-gate";

/** Who calls the tools, from where; from the POST /mcp request, which alone sees HTTP. */
export type ToolCaller = {
  svc: Services;
  caller: Caller;
  requestId: string;
  /** The app's own origin, for URLs when no CDN base is set. */
  origin: string;
  /** Aborts when the MCP client leaves. */
  signal: AbortSignal;
  /** Keeps the entry point alive until an accepted job settles. */
  keepAlive: (done: Promise<void>) => void;
};

/** A tool's fields as the /api form takes them, with its files (base64 already decoded). */
export type ToolForm = { fields: Record<string, unknown>; files: { image?: Buffer; mask?: Buffer } };

/** What a tool asks of a flow: generate from JSON fields (text, or image_id), or from a form with files; enhance. */
export type FlowRequest =
  | { flow: "generate"; json: Record<string, unknown> }
  | { flow: "generate" | "enhance"; form: ToolForm };

/** What the flow answered: a job accepted (its id), a body of the work done, or a refusal. */
export type FlowResult = { jobId: string } | { body: Record<string, unknown> };

/**
 * Runs the flow for the caller: opens its account (quota, no Idempotency-Key, usage line), runs it, and settles the
 * account; a failure is thrown as the contract's error, settled as /api settles it.
 */
export async function callFlow(from: ToolCaller, request: FlowRequest, asJob: boolean): Promise<FlowResult> {
  const { svc, caller } = from;
  const bucket: AccountBucket = request.flow;
  const opened: OpenedCall = { requestId: from.requestId, plan: caller.plan, stopping: svc.drain.stopping };
  try {
    const { quota, idempotency } = openAccount(svc, opened, caller, bucket, {
      abandoned: () => from.signal.aborted,
      idempotencyKey: null,
      makes: true,
    });
    const call: FlowCall = {
      svc,
      caller,
      quota,
      idempotency,
      requestId: from.requestId,
      origin: from.origin,
      signal: AbortSignal.any([from.signal, svc.drain.stopping]),
      prefersAsync: asJob,
    };
    const answer = await runHolding(from, call, request);
    await opened.recordUsage?.("body" in answer ? answer.body : "job" in answer ? answer.job.response : answer.replay);
    return await resultOf(answer);
  } catch (err) {
    throw await settleFailure(err, opened, bucket);
  }
}

/** The flow run with its upload held until the work is done: here, or by the job once one is accepted. */
async function runHolding(from: ToolCaller, call: FlowCall, request: FlowRequest): Promise<FlowAnswer> {
  if ("json" in request) return runGenerate(call, parseGenerateObject(request.json));
  const upload = await uploadOf(call, request.form, request.flow === "generate" ? 2 : 1);
  let heldByJob = false;
  try {
    const answer =
      request.flow === "generate"
        ? await runGenerate(call, parseGenerateForm(upload))
        : await runEnhance(call, parseEnhance(upload, servedEnhanceModes(call.svc.config)));
    if ("job" in answer) {
      heldByJob = true;
      from.keepAlive(answer.job.done.finally(upload.release));
    }
    return answer;
  } finally {
    if (!heldByJob) upload.release();
  }
}

/**
 * A tool's files as an upload read in the contract's order, as /api reads a multipart body: over-large by size
 * (413) before the quota, then the caller's quota (429), then the bytes held within the caller's share of the upload
 * budget (429, 503), each file within the limit, and each text field within the form's.
 */
async function uploadOf(call: FlowCall, form: ToolForm, filesTaken: number) {
  const { svc, caller, quota } = call;
  const maxFileBytes = svc.config.upload.maxBytes;
  const { image, mask } = form.files;
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(form.fields)) if (value !== undefined) fields[name] = String(value);
  const size = (image?.byteLength ?? 0) + (mask?.byteLength ?? 0);
  if (size > maxFileBytes * filesTaken + MULTIPART_ENVELOPE_BYTES) throw imageTooLarge(maxFileBytes);
  // A caller with nothing left is refused before its upload is held (a call without a key is never a replay).
  await quota.assertLeft(1);
  const slot = svc.uploads.open(caller);
  try {
    slot.grow(size);
    if (image && image.byteLength > maxFileBytes) throw imageTooLarge(maxFileBytes);
    if (mask && mask.byteLength > maxFileBytes) throw maskTooLarge(maxFileBytes);
    for (const [name, value] of Object.entries(fields)) {
      if (Buffer.byteLength(value) > GENERATE_FIELD_MAX_BYTES) {
        throw new ApiError("invalid_request", `The field "${name}" is too long.`);
      }
    }
  } catch (err) {
    slot.release();
    throw err;
  }
  slot.arrived();
  const files = { image: image ?? null, mask: mask ?? null };
  return {
    ...files,
    imageWasText: false,
    maskWasText: false,
    imageCount: image ? 1 : 0,
    fields,
    release: slot.release,
  };
}

/**
 * The flow's answer as the tool reads it. A replayed answer (an Idempotency-Key's) is read as it was first given,
 * though a tool sends no key today.
 */
async function resultOf(answer: FlowAnswer): Promise<FlowResult> {
  if ("job" in answer) return { jobId: answer.job.id };
  if ("body" in answer) return { body: answer.body };
  const body = (await answer.replay.json()) as Record<string, unknown>;
  if (answer.replay.status === 202) return { jobId: String(body.id) };
  if (answer.replay.status === 200) return { body };
  const error = (body.error ?? {}) as { code?: string; message?: string };
  const code = error.code && error.code in ERROR_CODES ? (error.code as ErrorCode) : "server_error";
  throw new ApiError(code, error.message);
}
