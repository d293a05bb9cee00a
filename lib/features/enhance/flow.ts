// The enhance flow with plain arguments, whatever the entry point (the /api route, an MCP tool): the Idempotency-Key,
// the unit, then a job, a wait for the work tier, or the enhancement done here.
import { DEFAULT_OUTPUT_QUALITY } from "@/lib/catalog/output-formats";
import { type EnhanceInput, enhanceImage } from "@/lib/enhance/enhance";
import { recordDepsFor } from "@/lib/features/images/records";
import { asyncModeOf } from "@/lib/features/jobs/async";
import type { FlowAnswer, FlowCall } from "@/lib/features/jobs/flow-call";
import { handOff } from "@/lib/features/jobs/hand-off";
import { taskOf } from "@/lib/features/jobs/work";
import { sha256 } from "@/lib/idempotency/idempotency";
import { enhanceBody } from "./answer";
import { enhanceDeps } from "./deps";
import type { EnhanceUpload } from "./parse";

/** A parsed enhance upload, from its Idempotency-Key to its answer. */
export async function runEnhance(call: FlowCall, upload: EnhanceUpload): Promise<FlowAnswer> {
  const { svc, caller, quota, idempotency, requestId, origin, signal } = call;
  quota.note({ model: upload.model });
  const { bytes, webhookUrl, release: _release, ...options } = upload;
  const input: EnhanceInput = { bytes, ...options };
  const mode = asyncModeOf(call.prefersAsync, caller, webhookUrl, svc.config.webhookAllowHosts);
  // A 1.1 request keeps its 1.1 fingerprint; a chosen format is part of the request.
  const { output, ...rest } = options;
  const isDefault = output.format === "png" && output.quality === DEFAULT_OUTPUT_QUALITY;
  const replay = await idempotency.begin(["enhance", sha256(bytes), isDefault ? rest : options, mode]);
  if (replay) return { replay };
  const usage = await quota.take();

  const task = taskOf(svc, { kind: "enhance", input, usage, requestId, origin, caller });
  const handed = await handOff(call, "enhance", mode, task);
  if (handed) return handed;

  const deps = enhanceDeps(svc, { requestId, origin }, recordDepsFor(svc, caller));
  const image = await enhanceImage(input, { ...deps, signal, onStart: quota.markStarted });
  quota.note({ engine: image.engine });
  return { body: enhanceBody(input, image, usage) };
}
