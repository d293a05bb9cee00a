// Fake Stability AI REST: v1 generation (POST /v1/generation/<engine>/text-to-image → { artifacts: [{ base64, seed,
// finishReason }] }) and the v2beta upscalers (fast, conservative, creative + GET /v2beta/results/<id>).
import crypto from "node:crypto";
import sharp from "sharp";
import {
  expect,
  expectHeader,
  type Fake,
  imageOf,
  type MultipartBody,
  multipartOf,
  NOT_AN_IMAGE,
  objectOf,
  type Recorded,
  startFake,
} from "./fake-server";

export const STABILITY_KEY = "sk-stability-test";
const ENGINE = "/v1/generation/stable-diffusion-xl-1024-v1-0";
const SDXL_SIZES = [
  "1024x1024",
  "1152x896",
  "1216x832",
  "1344x768",
  "1536x640",
  "640x1536",
  "768x1344",
  "832x1216",
  "896x1152",
];
const PRESETS = [
  "3d-model",
  "analog-film",
  "anime",
  "cinematic",
  "comic-book",
  "digital-art",
  "enhance",
  "fantasy-art",
  "isometric",
  "line-art",
  "low-poly",
  "modeling-compound",
  "neon-punk",
  "origami",
  "photographic",
  "pixel-art",
  "tile-texture",
];

export function startStabilityFake(): Promise<Fake> {
  const creative = new Map<string, { width: number; height: number; polls: number }>();
  return startFake("stability", async (req, f) => {
    expectHeader(f, req, "authorization", `Bearer ${STABILITY_KEY}`);
    if (req.path.startsWith("/v2beta/")) return upscale(f, req, creative);
    expectHeader(f, req, "accept", "application/json");
    const form = multipartOf(req.body);
    if (req.path.startsWith(`${ENGINE}/image-to-image`)) return imageToImage(f, req, form);
    expect(
      f,
      req.method === "POST" && req.path === "/v1/generation/stable-diffusion-xl-1024-v1-0/text-to-image",
      `stability: unexpected ${req.method} ${req.path}`,
    );
    const body = objectOf(req.body);
    const prompts = Array.isArray(body.text_prompts) ? body.text_prompts.map(objectOf) : [];
    expect(
      f,
      prompts.length >= 1 && prompts.every((p) => typeof p.text === "string" && typeof p.weight === "number"),
      "stability: text_prompts malformed",
    );
    expect(
      f,
      SDXL_SIZES.includes(`${String(body.width)}x${String(body.height)}`),
      `stability: SDXL v1 has no size ${String(body.width)}x${String(body.height)}`,
    );
    expect(f, body.samples === 1, "stability: samples should be 1");
    expect(
      f,
      body.style_preset === undefined || PRESETS.includes(String(body.style_preset)),
      `stability: unknown style_preset ${String(body.style_preset)}`,
    );
    expect(
      f,
      body.seed === undefined ||
        (Number.isInteger(body.seed) && Number(body.seed) >= 0 && Number(body.seed) <= 4294967295),
      "stability: bad seed",
    );

    if (f.mode === "error")
      return {
        status: 500,
        json: { id: "e1", name: "internal_error", message: "An unexpected server error has occurred." },
      };
    if (f.mode === "capacity")
      return {
        status: 429,
        json: { id: "e2", name: "rate_limit_exceeded", message: "You have exceeded the rate limit." },
      };
    if (f.mode === "hang") return "hang";
    const w = Number(body.width);
    const h = Number(body.height);
    const seed = typeof body.seed === "number" ? body.seed : 7;
    // The filter trips with HTTP 200: only finishReason says the image is not the one asked for.
    const finishReason = f.mode === "moderate" ? "CONTENT_FILTERED" : "SUCCESS";
    const bytes = f.mode === "malformed" ? NOT_AN_IMAGE : await imageOf(w, h, "png");
    return { status: 200, json: { artifacts: [{ base64: bytes.toString("base64"), seed, finishReason }] } };
  });
}

/**
 * v1 image-to-image (multipart): init_image, text_prompts[i][text|weight], init_image_mode IMAGE_STRENGTH with
 * image_strength in [0, 1]; /masking: mask_source MASK_IMAGE_WHITE with a mask_image the size of init_image.
 */
async function imageToImage(f: Fake, req: Recorded, form: MultipartBody | null) {
  const masking = req.path === `${ENGINE}/image-to-image/masking`;
  expect(f, masking || req.path === `${ENGINE}/image-to-image`, `stability: unexpected ${req.path}`);
  expect(f, form !== null, "stability image-to-image: expected multipart/form-data");
  const field = (name: string) => form?.fields[name]?.[0];
  const init = form?.files.init_image?.[0];
  const meta = init ? await sharp(init.bytes).metadata() : undefined;
  expect(
    f,
    meta !== undefined && SDXL_SIZES.includes(`${meta.width}x${meta.height}`),
    "stability: init_image must be an SDXL size",
  );
  expect(f, (field("text_prompts[0][text]") ?? "").length > 0, "stability: text_prompts[0][text] missing");
  expect(f, field("text_prompts[0][weight]") === "1", "stability: text_prompts[0][weight] should be 1");
  if (masking) {
    expect(f, field("mask_source") === "MASK_IMAGE_WHITE", "stability: mask_source should be MASK_IMAGE_WHITE");
    const mask = form?.files.mask_image?.[0];
    const maskMeta = mask ? await sharp(mask.bytes).metadata() : undefined;
    expect(
      f,
      maskMeta?.width === meta?.width && maskMeta?.height === meta?.height,
      "stability: mask_image size differs",
    );
  } else {
    expect(f, field("init_image_mode") === "IMAGE_STRENGTH", "stability: init_image_mode should be IMAGE_STRENGTH");
    const strength = Number(field("image_strength"));
    expect(f, strength >= 0 && strength <= 1, "stability: image_strength must be in [0, 1]");
  }
  if (f.mode === "error") return { status: 500, json: { name: "internal_error", message: "Internal server error" } };
  const bytes = await imageOf(meta?.width ?? 1024, meta?.height ?? 1024, "png");
  const seed = Number(field("seed") ?? 7);
  return { status: 200, json: { artifacts: [{ base64: bytes.toString("base64"), seed, finishReason: "SUCCESS" }] } };
}

const UPSCALERS = ["fast", "conservative", "creative"];
/** Every v2beta upscaler here answers at 4× its input: the caller resizes to the size it asked for. */
export const STABILITY_UPSCALE_FACTOR = 4;

/**
 * v2beta upscale (multipart): `image` and `output_format` (png, jpeg, webp) on all three; `prompt` required on
 * conservative and creative; `creativity` 0.1–0.5 on creative. fast and conservative answer the image (Accept
 * image/*) with a finish-reason header; creative answers { id }, then GET /v2beta/results/<id> answers 202
 * { id, status: "in-progress" } for `pendingPolls` polls and the image after. A flagged request is 403
 * content_moderation (mode "moderate").
 */
async function upscale(
  f: Fake,
  req: Recorded,
  creative: Map<string, { width: number; height: number; polls: number }>,
) {
  const result = /^\/v2beta\/results\/([\w-]+)$/.exec(req.path);
  if (result && req.method === "GET") {
    expectHeader(f, req, "accept", /^image\/\*$/);
    const generation = creative.get(result[1] ?? "");
    if (!generation) return { status: 404, json: { name: "not_found", errors: ["generation not found"] } };
    f.polls++;
    generation.polls++;
    if (f.mode === "hang") return "hang" as const;
    if (generation.polls <= f.pendingPolls) return { status: 202, json: { id: result[1], status: "in-progress" } };
    return imageAnswer(f, generation.width, generation.height);
  }
  const endpoint = /^\/v2beta\/stable-image\/upscale\/(\w+)$/.exec(req.path)?.[1] ?? "";
  expect(f, req.method === "POST" && UPSCALERS.includes(endpoint), `stability: unexpected ${req.method} ${req.path}`);
  expectHeader(f, req, "accept", endpoint === "creative" ? "application/json" : /^image\/\*$/);
  const form = multipartOf(req.body);
  expect(f, form !== null, "stability upscale: expected multipart/form-data");
  const field = (name: string) => form?.fields[name]?.[0];
  const image = form?.files.image?.[0];
  const meta = image
    ? await sharp(image.bytes)
        .metadata()
        .catch(() => undefined)
    : undefined;
  expect(f, !!meta?.width && !!meta.height, "stability upscale: image missing or not decodable");
  expect(f, ["png", "jpeg", "webp"].includes(field("output_format") ?? "png"), "stability: bad output_format");
  const prompt = field("prompt");
  if (endpoint === "fast") expect(f, prompt === undefined, "stability fast: takes no prompt");
  else
    expect(f, (prompt ?? "").length >= 1 && (prompt ?? "").length <= 10000, `stability ${endpoint}: prompt required`);
  const creativity = field("creativity");
  if (endpoint === "creative")
    expect(
      f,
      creativity === undefined || (Number(creativity) >= 0.1 && Number(creativity) <= 0.5),
      `stability creative: creativity ${creativity} outside 0.1–0.5`,
    );
  else expect(f, creativity === undefined, `stability ${endpoint}: no creativity expected`);

  if (f.mode === "error")
    return { status: 500, json: { id: "e1", name: "internal_error", errors: ["Internal error"] } };
  if (f.mode === "capacity")
    return {
      status: 429,
      json: { id: "e2", name: "rate_limit_exceeded", errors: ["You have made more than 150 requests in 10 seconds."] },
    };
  if (f.mode === "moderate")
    return {
      status: 403,
      json: {
        id: "e3",
        name: "content_moderation",
        errors: ["Your request was flagged by our content moderation system."],
      },
    };
  if (f.mode === "hang") return "hang" as const;
  const width = (meta?.width ?? 64) * STABILITY_UPSCALE_FACTOR;
  const height = (meta?.height ?? 64) * STABILITY_UPSCALE_FACTOR;
  if (endpoint !== "creative") return imageAnswer(f, width, height);
  const id = crypto.randomBytes(32).toString("hex");
  creative.set(id, { width, height, polls: 0 });
  return { status: 200, json: { id } };
}

async function imageAnswer(f: Fake, width: number, height: number) {
  const bytes = f.mode === "malformed" ? NOT_AN_IMAGE : await imageOf(width, height, "png");
  return {
    status: 200,
    bytes,
    type: "image/png",
    headers: { "finish-reason": f.variant === "filtered" ? "CONTENT_FILTERED" : "SUCCESS", seed: "7" },
  };
}
