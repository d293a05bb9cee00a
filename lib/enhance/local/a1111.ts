// `a1111:<upscaler>`: an AUTOMATIC1111-compatible server's extras (modules/api/api.py extras_single_image_api, the
// ExtrasSingleImageRequest of modules/api/models.py): POST /sdapi/v1/extra-single-image with the image as base64 PNG,
// `upscaler_1` and the exact target (resize_mode 1, upscaling_resize_w/_h); in faces, the restorer's visibility
// (gfpgan_visibility, or codeformer_visibility with codeformer_weight). The answer is ExtrasSingleImageResponse
// ({ html_info, image }). The upscaler is checked against GET /sdapi/v1/upscalers (and the restorer against
// /sdapi/v1/face-restorers) on a server's first use; a name the server does not have ejects the route. Runs on the
// generation pool of A1111_URLS: least-busy choice, failover between servers, the same interrupt on cancel.
import { ProviderError } from "@/lib/engines/failures";
import { interruptA1111, refusalOf } from "@/lib/engines/local/a1111";
import { CALL_TIMEOUT_MS, httpCall, jsonOf, LocalServerError, listedNames } from "@/lib/engines/local/http";
import type { PoolServer, ServerPool } from "@/lib/engines/local/pool";
import type { A1111Settings } from "@/lib/engines/local/settings";
import { log } from "@/lib/log";
import { withDeadline } from "../remote/shared";
import type { EnhanceRoute, EnhanceRouteJob } from "../routes/types";

export type A1111EnhanceDeps = { settings: A1111Settings; pool: ServerPool; timeoutMs: number };

/** The restorer names /sdapi/v1/face-restorers lists (modules/gfpgan_model.py, modules/codeformer_model.py). */
const RESTORER_NAMES: Record<EnhanceRouteJob["faceRestorer"], string> = { gfpgan: "GFPGAN", codeformer: "CodeFormer" };

/** The request body in ExtrasSingleImageRequest's field names. */
export function extrasBody(upscaler: string, job: EnhanceRouteJob) {
  // strength is the restorer's weight in faces: GFPGAN's visibility, or CodeFormer at full visibility with its
  // weight (0 = strongest restoration, 1 = the face as it was) at 1 - strength, as the Replicate and fal routes do.
  const weight = Math.round(Math.min(1, Math.max(0, job.strength)) * 100) / 100;
  const faces = job.mode === "faces";
  return {
    image: job.image.toString("base64"),
    resize_mode: 1,
    upscaling_resize_w: job.targetWidth,
    upscaling_resize_h: job.targetHeight,
    upscaling_crop: true,
    upscaler_1: upscaler,
    upscaler_2: "None",
    extras_upscaler_2_visibility: 0,
    gfpgan_visibility: faces && job.faceRestorer === "gfpgan" ? weight : 0,
    codeformer_visibility: faces && job.faceRestorer === "codeformer" ? 1 : 0,
    codeformer_weight: faces && job.faceRestorer === "codeformer" ? Math.round((1 - weight) * 100) / 100 : 0,
    upscale_first: false,
    show_extras_results: true,
  };
}

export function createA1111EnhanceRoute(upscaler: string, deps: A1111EnhanceDeps): EnhanceRoute {
  const id = `a1111:${upscaler}`;
  const headers: Record<string, string> = deps.settings.auth
    ? { Authorization: `Basic ${Buffer.from(deps.settings.auth).toString("base64")}` }
    : {};
  /** Why the route is out for good (a name the server does not have), once known. */
  let ejected: string | undefined;

  const checkNames = async (server: PoolServer, job: EnhanceRouteJob, signal: AbortSignal) => {
    const listed = (path: string, what: string) =>
      namesOn(server, `${path}`, headers, signal, what).then((names) => ({ names, what }));
    const checks = [listed("/sdapi/v1/upscalers", "upscalers")];
    if (job.mode === "faces") checks.push(listed("/sdapi/v1/face-restorers", "face restorers"));
    for (const { names, what } of await Promise.all(checks)) {
      const wanted = what === "upscalers" ? upscaler : RESTORER_NAMES[job.faceRestorer];
      if (!names.includes(wanted)) {
        ejected = `server ${server.index} has no ${what === "upscalers" ? "upscaler" : "face restorer"} named "${wanted}" (it lists ${listedNames(names)})`;
        log.warn("enhance route ejected", { route: id, reason: ejected });
        throw new ProviderError("http", `${id}: ${ejected}`);
      }
    }
  };

  return {
    id,
    ai: true,
    generative: false,
    async run(job) {
      if (ejected) throw new ProviderError("http", `${id}: ejected: ${ejected}`);
      return withDeadline(id, job.signal, deps.timeoutMs, (signal) =>
        deps.pool.run({ requestId: job.requestId, signal, cancelled: () => job.signal.aborted }, async (server) => {
          await checkNames(server, job, signal);
          return { image: await extrasOn(server, upscaler, job, headers, signal) };
        }),
      );
    },
    outReason() {
      if (ejected) return ejected;
      return deps.pool.outReason();
    },
  };
}

async function extrasOn(
  server: PoolServer,
  upscaler: string,
  job: EnhanceRouteJob,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<Buffer> {
  const onAbort = () => void interruptA1111(server, headers, job.requestId);
  signal.addEventListener("abort", onAbort, { once: true });
  job.onProgress?.({ fraction: null, stage: "sent to the GPU server" });
  try {
    const reply = await httpCall(`${server.url}/sdapi/v1/extra-single-image`, {
      method: "POST",
      headers,
      json: extrasBody(upscaler, job),
      signal,
    });
    if (reply.status !== 200) throw refusalOf(reply, "extra-single-image");
    const answer = jsonOf(reply, "extra-single-image") as { image?: unknown };
    if (typeof answer.image !== "string" || answer.image === "") {
      throw new LocalServerError("malformed", "extra-single-image answered without an image");
    }
    return Buffer.from(answer.image.replace(/^data:image\/\w+;base64,/, ""), "base64");
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** The `name` of each item a list endpoint answers (UpscalerItem, FaceRestorerItem), learned once per server. */
async function namesOn(
  server: PoolServer,
  path: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  what: string,
): Promise<string[]> {
  const fact = `a1111 ${path}`;
  const known = server.facts.get(fact);
  if (Array.isArray(known)) return known as string[];
  const reply = await httpCall(`${server.url}${path}`, { headers, signal, timeoutMs: CALL_TIMEOUT_MS });
  if (reply.status !== 200) throw refusalOf(reply, what);
  const items = jsonOf(reply, what);
  if (!Array.isArray(items)) throw new LocalServerError("malformed", `${what}: the answer is not a list`);
  const names = items.flatMap((i) => (typeof i?.name === "string" ? [i.name as string] : []));
  server.facts.set(fact, names);
  return names;
}
