// AUTOMATIC1111-compatible servers (A1111, Forge, reForge, SD.Next): POST /sdapi/v1/txt2img, progress (and the live
// preview, `current_image`) from /sdapi/v1/progress while it runs, POST /sdapi/v1/interrupt on cancel or deadline.
import type { ProviderCall } from "@/lib/engines/providers/types";
import type { GenerateJob } from "@/lib/engines/types";
import { whiteMaskPng } from "@/lib/images/edit-input";
import { log } from "@/lib/log";
import { CALL_TIMEOUT_MS, type HttpReply, httpCall, jsonOf, LocalServerError } from "./http";
import type { PoolServer, RunContext, ServerPool } from "./pool";
import { MODEL_PRESETS } from "./presets";
import { type PreviewSink, previewSinkFor } from "./previews";
import { type ProgressReporter, reporterFor, seedFor } from "./progress";
import type { A1111Settings } from "./settings";

const PROGRESS_MS = 500;

export function createA1111Call(checkpoint: string, settings: A1111Settings, pool: ServerPool): ProviderCall {
  const headers: Record<string, string> = settings.auth
    ? { Authorization: `Basic ${Buffer.from(settings.auth).toString("base64")}` }
    : {};
  return async ({ job, signal }) => {
    const seed = seedFor(job);
    const body = job.input ? await img2imgBody(job, checkpoint, seed) : txt2imgBody(job, checkpoint, seed);
    const report = reporterFor(job);
    const previews = previewSinkFor(job);
    const ctx: RunContext = { requestId: job.requestId, signal, cancelled: () => job.signal.aborted };
    // Several images: one call per server with batch_size, the images' seeds following on (seed + i).
    const [first, ...more] = await pool
      .runSpread(ctx, Math.max(1, job.count ?? 1), (server, offset, size) =>
        runOnServer(server, {
          body: { ...body, seed: (seed + offset) % 2 ** 32, batch_size: size },
          headers,
          signal,
          report,
          previews,
          job,
        }),
      )
      .finally(() => previews.close());
    return { ...first, ...(more.length > 0 && { more }) };
  };
}

/** The request body, in the field names of modules/api/models.py (StableDiffusionProcessingTxt2Img). */
export function txt2imgBody(job: GenerateJob, checkpoint: string, seed: number) {
  const preset = MODEL_PRESETS[job.model];
  return {
    // Style presets are prompt text here, as on every prompt-only route.
    prompt: job.styledPrompt,
    negative_prompt: job.negativePrompt ?? "",
    seed,
    steps: preset.steps,
    cfg_scale: preset.cfg,
    width: job.width,
    height: job.height,
    sampler_name: preset.sampler,
    scheduler: preset.scheduler,
    batch_size: 1,
    n_iter: 1,
    override_settings: { sd_model_checkpoint: checkpoint },
    override_settings_restore_afterwards: true,
    send_images: true,
    save_images: false,
  };
}

/**
 * /sdapi/v1/img2img (StableDiffusionProcessingImg2Img): the txt2img fields plus init_images, denoising_strength and,
 * for inpainting, a mask where white is repainted (inpainting_mask_invert 0), starting from the original pixels.
 */
export async function img2imgBody(job: GenerateJob, checkpoint: string, seed: number) {
  const input = job.input as NonNullable<GenerateJob["input"]>;
  const mask = input.mask ? (await whiteMaskPng(input.mask)).toString("base64") : undefined;
  return {
    ...txt2imgBody(job, checkpoint, seed),
    init_images: [input.png.toString("base64")],
    denoising_strength: input.strength,
    resize_mode: 0,
    ...(mask !== undefined && {
      mask,
      inpainting_mask_invert: 0,
      inpainting_fill: 1,
      mask_blur: 4,
      inpaint_full_res: false,
    }),
  };
}

type RunArgs = {
  body: ReturnType<typeof txt2imgBody> & { init_images?: string[] };
  headers: Record<string, string>;
  signal: AbortSignal;
  report: ProgressReporter;
  previews: PreviewSink;
  job: GenerateJob;
};

type Made = { bytes: Uint8Array; seed: number };

async function runOnServer(server: PoolServer, args: RunArgs): Promise<Made[]> {
  const { headers, signal, report, job } = args;
  const done = new AbortController();
  const onAbort = () => void interruptA1111(server, headers, job.requestId);
  signal.addEventListener("abort", onAbort, { once: true });
  report(null, "sent to the GPU server");
  const following = AbortSignal.any([signal, done.signal]);
  void followProgress(server, headers, following, report, job.onPreview ? args.previews : undefined);
  try {
    const endpoint = args.body.init_images ? "img2img" : "txt2img";
    const reply = await httpCall(`${server.url}/sdapi/v1/${endpoint}`, {
      method: "POST",
      headers,
      json: args.body,
      signal,
    });
    if (reply.status !== 200) throw refusalOf(reply, endpoint);
    const answer = jsonOf(reply, "txt2img") as { images?: unknown; info?: unknown };
    const made = imagesOf(answer, args.body.seed, args.body.batch_size);
    report(1, made.length > 1 ? "received the images" : "received the image");
    return made;
  } finally {
    done.abort();
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * The batch's images, each with its seed. `info` is a JSON string (processed.js()): `all_seeds` lists each image's
 * seed (seed + i in a batch), and `index_of_first_image` skips a grid a server set to return one puts first.
 */
function imagesOf(answer: { images?: unknown; info?: unknown }, sent: number, size: number): Made[] {
  let info: { seed?: unknown; all_seeds?: unknown; index_of_first_image?: unknown } = {};
  try {
    info = typeof answer.info === "string" ? (JSON.parse(answer.info) ?? {}) : {};
  } catch {
    info = {};
  }
  const skip = Number.isSafeInteger(info.index_of_first_image) ? (info.index_of_first_image as number) : 0;
  const images = (Array.isArray(answer.images) ? answer.images : []).slice(skip, skip + size);
  const seeds = Array.isArray(info.all_seeds) ? info.all_seeds : [info.seed];
  const isSeed = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
  const made = images.flatMap((image, i) =>
    typeof image === "string" && image !== ""
      ? [
          {
            bytes: Buffer.from(image.replace(/^data:image\/\w+;base64,/, ""), "base64"),
            seed: isSeed(seeds[i]) ? seeds[i] : (sent + i) % 2 ** 32,
          },
        ]
      : [],
  );
  if (made.length === 0) throw new LocalServerError("malformed", "txt2img answered without an image");
  return made;
}

/** A non-200 answer as a failure: a 401 names A1111_AUTH; anything else carries the server's own detail. */
export function refusalOf(reply: HttpReply, what: string): LocalServerError {
  if (reply.status === 401) {
    return new LocalServerError("http", "the server refused our credentials (check A1111_AUTH)", { status: 401 });
  }
  return new LocalServerError("http", `${what} answered ${reply.status}${detailOf(reply.body)}`, {
    status: reply.status,
  });
}

function detailOf(body: Buffer): string {
  try {
    const json = JSON.parse(body.toString("utf8"));
    const detail = json?.detail || json?.errors || json?.error;
    return detail ? ` (${(typeof detail === "string" ? detail : JSON.stringify(detail)).slice(0, 300)})` : "";
  } catch {
    return "";
  }
}

/**
 * Polls /sdapi/v1/progress while txt2img runs. The API reports one global job, so its step counts (and its live
 * preview) are ours only while Darkroom has nothing else in flight on that server; otherwise the stage says so and
 * the fraction is unknown. The preview (`current_image`, base64 in the server's samples_format) is asked for only
 * when someone listens: it is the whole image, re-encoded on every poll.
 */
async function followProgress(
  server: PoolServer,
  headers: Record<string, string>,
  signal: AbortSignal,
  report: ProgressReporter,
  previews: PreviewSink | undefined,
) {
  while (!signal.aborted) {
    await new Promise((r) => setTimeout(r, PROGRESS_MS));
    if (signal.aborted) return;
    if (server.inFlight > 1) {
      report(null, "sharing the GPU server with other requests");
      continue;
    }
    try {
      const reply = await httpCall(
        `${server.url}/sdapi/v1/progress?skip_current_image=${previews ? "false" : "true"}`,
        {
          headers,
          signal,
          timeoutMs: CALL_TIMEOUT_MS,
        },
      );
      if (reply.status !== 200 || signal.aborted) continue;
      const answer = jsonOf(reply, "progress") as {
        progress?: unknown;
        state?: { job_count?: unknown; sampling_step?: unknown; sampling_steps?: unknown };
        current_image?: unknown;
      };
      const step = Number(answer.state?.sampling_step);
      const steps = Number(answer.state?.sampling_steps);
      if (Number(answer.state?.job_count) > 0 && typeof answer.progress === "number") {
        report(answer.progress, steps > 0 ? `sampling step ${step}/${steps}` : "running on the GPU server");
        if (previews && typeof answer.current_image === "string" && answer.current_image !== "") {
          previews.offer(Buffer.from(answer.current_image.replace(/^data:image\/\w+;base64,/, ""), "base64"));
        }
      }
    } catch {
      // Progress is best effort; the generation call decides success.
    }
  }
}

/**
 * The interrupt is server-wide (the API has no job id), so it is sent only while this request is the only one
 * Darkroom has on that server: otherwise it could stop a neighbour's image instead of ours.
 */
export async function interruptA1111(
  server: PoolServer,
  headers: Record<string, string>,
  requestId: string,
): Promise<void> {
  if (server.inFlight > 1) {
    log.warn("a1111 cancel skipped: other requests share the server", { request_id: requestId, server: server.index });
    return;
  }
  try {
    await httpCall(`${server.url}/sdapi/v1/interrupt`, {
      method: "POST",
      headers,
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    log.info("a1111 work interrupted", { request_id: requestId, server: server.index });
  } catch (err) {
    log.warn("a1111 interrupt failed", { request_id: requestId, server: server.index, detail: String(err) });
  }
}
