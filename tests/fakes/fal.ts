// Fake fal.ai: the sync API (fal.run: POST /<model-id> → { images: [{ url, … }], seed, has_nsfw_concepts }) for
// generation, and the queue API (queue.fal.run) for the enhance endpoints.
import crypto from "node:crypto";
import {
  expect,
  expectHeader,
  type Fake,
  imageFromBase64,
  imageOf,
  NOT_AN_IMAGE,
  objectOf,
  type Recorded,
  startFake,
} from "./fake-server";

export const FAL_KEY = "fal-test-key";
const MODELS = ["/fal-ai/flux-pro/v1.1", "/fal-ai/fast-sdxl", "/fal-ai/flux/schnell"];
/** Edit endpoints: image_url (a data URI here), and mask_url for the inpainting ones. */
const IMAGE_MODELS = ["/fal-ai/flux-pro/kontext", "/fal-ai/fast-sdxl/image-to-image"];
const MASK_MODELS = ["/fal-ai/flux-pro/v1/fill", "/fal-ai/fast-sdxl/inpainting"];

export function startFalFake(): Promise<Fake> {
  const queue = new Map<string, QueuedRequest>();
  return startFake("fal", async (req, f) => {
    expectHeader(f, req, "authorization", `Key ${FAL_KEY}`);
    if (isQueuePath(req.path)) return queueApi(f, req, queue);
    const known = [...MODELS, ...IMAGE_MODELS, ...MASK_MODELS];
    expect(f, req.method === "POST" && known.includes(req.path), `fal: unexpected ${req.method} ${req.path}`);
    const body = objectOf(req.body);
    const edits = IMAGE_MODELS.includes(req.path) || MASK_MODELS.includes(req.path);
    if (edits) expect(f, (await imageFromBase64(body.image_url)) !== null, `fal ${req.path}: image_url missing`);
    else expect(f, body.image_url === undefined, `fal ${req.path}: takes no image_url`);
    if (MASK_MODELS.includes(req.path))
      expect(f, (await imageFromBase64(body.mask_url)) !== null, "fal: mask_url missing");
    if (req.path.startsWith("/fal-ai/fast-sdxl/"))
      expect(f, typeof body.strength === "number", "fal sdxl edit: strength");
    const size = objectOf(body.image_size);
    expect(f, typeof body.prompt === "string" && body.prompt.length > 0, "fal: prompt missing");
    expect(
      f,
      Number.isInteger(size.width) && Number.isInteger(size.height),
      "fal: image_size must be { width, height }",
    );
    expect(f, body.num_images === 1, "fal: num_images should be 1");
    expect(f, body.enable_safety_checker === true, "fal: the safety checker must stay on");
    if (req.path.startsWith("/fal-ai/fast-sdxl"))
      expect(f, body.format === "png", "fal: fast-sdxl format should be png");
    else expect(f, body.output_format === "png", "fal: output_format should be png");

    if (f.mode === "error") return { status: 500, json: { detail: "Internal server error" } };
    if (f.mode === "capacity")
      return { status: 429, json: { detail: "Rate limit exceeded" }, headers: { "Retry-After": "3" } };
    if (f.mode === "hang") return "hang";
    const width = Number(size.width);
    const height = Number(size.height);
    const nsfw = f.mode === "moderate";
    // fal returns a black image in place of a flagged one, and says so only in has_nsfw_concepts.
    const bytes = f.mode === "malformed" ? NOT_AN_IMAGE : await imageOf(width, height, "png");
    return {
      status: 200,
      json: {
        images: [{ url: f.host(bytes, "png"), width, height, content_type: "image/png" }],
        timings: { inference: 0.9 },
        seed: typeof body.seed === "number" ? body.seed : 42,
        has_nsfw_concepts: [nsfw],
        prompt: body.prompt,
      },
    };
  });
}

/** The enhance endpoints, served through the queue, and the factor each answers at (aura-sr: 4× whatever asked). */
const QUEUE_ENDPOINTS: Record<string, { fields: string[]; factor: (input: Record<string, unknown>) => number }> = {
  "fal-ai/esrgan": {
    fields: ["image_url", "scale", "model", "face", "output_format", "tile"],
    factor: (i) => Number(i.scale ?? 2),
  },
  "fal-ai/aura-sr": { fields: ["image_url", "upscale_factor", "overlapping_tiles", "checkpoint"], factor: () => 4 },
  "fal-ai/clarity-upscaler": {
    fields: [
      "image_url",
      "prompt",
      "upscale_factor",
      "negative_prompt",
      "creativity",
      "resemblance",
      "guidance_scale",
      "num_inference_steps",
      "seed",
      "enable_safety_checker",
    ],
    factor: (i) => Number(i.upscale_factor ?? 2),
  },
  "fal-ai/codeformer": {
    fields: ["image_url", "fidelity", "upscale_factor", "aligned", "only_center_face", "face_upscale", "seed"],
    factor: (i) => Number(i.upscale_factor ?? 2),
  },
};

type QueuedRequest = {
  endpoint: string;
  input: Record<string, unknown>;
  width: number;
  height: number;
  polls: number;
  cancelled: boolean;
};

function isQueuePath(path: string): boolean {
  return Object.keys(QUEUE_ENDPOINTS).some((e) => path === `/${e}` || path.startsWith(`/${e}/requests/`));
}

/**
 * The queue API as fal documents it: POST /<endpoint> → { request_id, response_url, status_url, cancel_url };
 * GET …/requests/<id>/status → { status: IN_QUEUE | IN_PROGRESS | COMPLETED, queue_position?, response_url } (202
 * while not completed, `pendingPolls` times); GET …/requests/<id> → the endpoint's output { image: { url, width,
 * height, content_type } }; PUT …/requests/<id>/cancel → 202 { status: CANCELLATION_REQUESTED }.
 */
async function queueApi(f: Fake, req: Recorded, queue: Map<string, QueuedRequest>) {
  const endpoint =
    Object.keys(QUEUE_ENDPOINTS).find((e) => req.path === `/${e}` || req.path.startsWith(`/${e}/requests/`)) ?? "";
  const base = `/${endpoint}/requests/`;
  if (req.path === `/${endpoint}`) {
    expect(f, req.method === "POST", `fal queue: ${req.method} ${req.path}`);
    const input = objectOf(req.body);
    for (const key of Object.keys(input))
      expect(f, QUEUE_ENDPOINTS[endpoint]?.fields.includes(key) ?? false, `fal ${endpoint}: unknown input ${key}`);
    const source = await imageFromBase64(input.image_url);
    expect(f, source !== null, `fal ${endpoint}: image_url is not a decodable data URI`);
    if (endpoint === "fal-ai/aura-sr") expect(f, input.upscale_factor === 4, "aura-sr: upscale_factor must be 4");
    if (endpoint === "fal-ai/clarity-upscaler") {
      const c = input.creativity;
      expect(f, c === undefined || (typeof c === "number" && c >= 0 && c <= 1), "clarity: creativity 0–1");
      expect(f, input.enable_safety_checker !== false, "clarity: the safety checker must stay on");
    }
    if (endpoint === "fal-ai/codeformer") {
      const fidelity = input.fidelity;
      expect(f, typeof fidelity === "number" && fidelity >= 0 && fidelity <= 1, "codeformer: fidelity 0–1");
    }
    if (f.mode === "error") return { status: 500, json: { detail: "Internal server error" } };
    if (f.mode === "capacity")
      return { status: 429, json: { detail: "Rate limit exceeded" }, headers: { "Retry-After": "3" } };
    if (f.mode === "hang") return "hang" as const;
    const id = crypto.randomUUID();
    const factor = QUEUE_ENDPOINTS[endpoint]?.factor(input) ?? 2;
    queue.set(id, {
      endpoint,
      input,
      width: Math.round((source?.width ?? 64) * factor),
      height: Math.round((source?.height ?? 64) * factor),
      polls: 0,
      cancelled: false,
    });
    return {
      status: 200,
      json: {
        request_id: id,
        response_url: f.urlFor("polling", `${base}${id}`),
        status_url: f.urlFor("polling", `${base}${id}/status`),
        cancel_url: f.urlFor("polling", `${base}${id}/cancel`),
      },
    };
  }
  const [id, action] = req.path.slice(base.length).split("/");
  const queued = queue.get(id ?? "");
  if (!queued) return { status: 404, json: { detail: "Request not found" } };
  if (action === "cancel") {
    expect(f, req.method === "PUT", `fal cancel: ${req.method}`);
    queued.cancelled = true;
    return { status: 202, json: { status: "CANCELLATION_REQUESTED" } };
  }
  if (action === "status") {
    f.polls++;
    queued.polls++;
    if (queued.polls <= f.pendingPolls) {
      const status = queued.polls === 1 ? "IN_QUEUE" : "IN_PROGRESS";
      return {
        status: 202,
        json: {
          status,
          ...(status === "IN_QUEUE" ? { queue_position: 0 } : {}),
          response_url: f.urlFor("polling", `${base}${id}`),
        },
      };
    }
    return { status: 200, json: { status: "COMPLETED", response_url: f.urlFor("polling", `${base}${id}`) } };
  }
  expect(f, action === undefined && req.method === "GET", `fal queue: ${req.method} ${req.path}`);
  if (queued.cancelled) return { status: 400, json: { detail: "Request was cancelled" } };
  const bytes = f.mode === "malformed" ? NOT_AN_IMAGE : await imageOf(queued.width, queued.height, "png");
  const flagged = f.mode === "moderate";
  return {
    status: 200,
    json: {
      image: { url: f.host(bytes, "png"), width: queued.width, height: queued.height, content_type: "image/png" },
      ...(queued.endpoint === "fal-ai/clarity-upscaler" ? { seed: 42, has_nsfw_concepts: [flagged] } : {}),
      timings: { inference: 0.4 },
    },
  };
}
