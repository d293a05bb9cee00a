// A loopback AUTOMATIC1111 API (modules/api/api.py, models.py): POST /sdapi/v1/txt2img → { images: [base64],
// parameters, info: JSON text with the seed used }, GET /sdapi/v1/progress → { progress, eta_relative, state,
// current_image, textinfo }, POST /sdapi/v1/interrupt → {}. The extras: GET /sdapi/v1/upscalers → [UpscalerItem],
// GET /sdapi/v1/face-restorers → [FaceRestorerItem], POST /sdapi/v1/extra-single-image (ExtrasSingleImageRequest) →
// { html_info, image }, an unknown upscaler failing as postprocessing_upscale's assertion does (a 500). Jobs run one at a time (the queue lock); --api-auth
// is HTTP Basic with FastAPI's 401 bodies. Live previews as shared.state.set_current_image makes them: a new image
// every `show_progress_every_n_steps` sampling steps, sent base64 (encode_pil_to_base64, PNG by default) unless the
// poll says skip_current_image.
import sharp from "sharp";
import { expect, type Fake, imageFromBase64, imageOf, objectOf, startFake } from "./fake-server";

export const A1111_AUTH = "darkroom:gpu-secret-pass";
export const A1111_CHECKPOINTS = ["sd_xl_base_1.0.safetensors", "flux1-schnell-fp8.safetensors"];
const SAMPLERS = ["Euler", "Euler a", "DPM++ 2M", "DPM++ 2M Karras", "DPM++ SDE", "DDIM", "UniPC"];
const SCHEDULERS = [
  "Automatic",
  "Uniform",
  "Karras",
  "Exponential",
  "Polyexponential",
  "SGM Uniform",
  "Simple",
  "Normal",
  "Beta",
];

/** GET /sdapi/v1/upscalers: UpscalerItem (name, model_name, model_path, model_url, scale), as shared.sd_upscalers. */
export const A1111_UPSCALERS = [
  { name: "None", model_name: null, model_path: null, model_url: null, scale: 4 },
  { name: "Lanczos", model_name: null, model_path: null, model_url: null, scale: 4 },
  { name: "R-ESRGAN 4x+", model_name: "RealESRGAN_x4plus", model_path: null, model_url: null, scale: 4 },
  {
    name: "4x-UltraSharp",
    model_name: "4x-UltraSharp",
    model_path: "models/ESRGAN/4x-UltraSharp.pth",
    model_url: null,
    scale: 4,
  },
  { name: "SwinIR 4x", model_name: "SwinIR 4x", model_path: null, model_url: null, scale: 4 },
];
/** GET /sdapi/v1/face-restorers: FaceRestorerItem (name, cmd_dir). */
export const A1111_FACE_RESTORERS = [
  { name: "CodeFormer", cmd_dir: "models/Codeformer" },
  { name: "GFPGAN", cmd_dir: null },
];

export type A1111Fake = Fake & {
  /** Delay before each sampling step, in ms. */
  stepDelayMs: number;
  /** Interrupts received. */
  interrupts: number;
  /** opts.show_progress_every_n_steps: a new live preview every this many steps; 0 turns live previews off. */
  previewEvery: number;
  /** opts.samples_format, which current_image is encoded in. */
  samplesFormat: "png" | "jpeg" | "webp";
  /** Live previews sent in progress answers, each as the sampling step it shows. */
  previewsSent: number[];
};

/**
 * The live preview at a step: a small image whose grey level is the step's share of the run, so a reader can tell
 * the order previews were made in.
 */
export function a1111PreviewOf(step: number, steps: number, format: "png" | "jpeg" | "webp"): Promise<Buffer> {
  const level = Math.round((255 * step) / steps);
  const img = sharp({ create: { width: 64, height: 64, channels: 3, background: { r: level, g: level, b: level } } });
  return (format === "png" ? img.png() : format === "jpeg" ? img.jpeg() : img.webp()).toBuffer();
}

export async function startA1111Fake(opts: { auth?: string } = { auth: A1111_AUTH }): Promise<A1111Fake> {
  const state = {
    skipped: false,
    interrupted: false,
    stopping_generation: false,
    job: "",
    job_count: 0,
    job_timestamp: "0",
    job_no: 0,
    sampling_step: 0,
    sampling_steps: 0,
  };
  let lock: Promise<void> = Promise.resolve();
  // shared.state.current_image and the step it was made at.
  let current: { step: number; image: Promise<Buffer> } | undefined;
  const cache = new Map<string, Promise<Buffer>>();
  const expected = opts.auth ? `Basic ${Buffer.from(opts.auth).toString("base64")}` : undefined;

  const fake = (await startFake("a1111", async (req, f) => {
    if (expected) {
      const given = req.headers.authorization;
      if (!given)
        return { status: 401, json: { detail: "Not authenticated" }, headers: { "WWW-Authenticate": "Basic" } };
      if (given !== expected) {
        return {
          status: 401,
          json: { detail: "Incorrect username or password" },
          headers: { "WWW-Authenticate": "Basic" },
        };
      }
    }
    const key = `${req.method} ${req.path}`;
    if (key === "GET /sdapi/v1/progress") {
      // ProgressRequest.skip_current_image: a bool, False when absent.
      const skip = req.query.get("skip_current_image") ?? "false";
      expect(f, ["true", "false"].includes(skip), `progress: skip_current_image=${skip}`);
      if (state.job_count === 0) {
        return { status: 200, json: { progress: 0, eta_relative: 0, state, current_image: null, textinfo: null } };
      }
      const progress = Math.min(1, 0.01 + state.sampling_step / Math.max(1, state.sampling_steps));
      // set_current_image: a new preview once the sampler is show_progress_every_n_steps past the last one.
      const every = a1111.previewEvery;
      if (every > 0 && state.sampling_step > 0 && state.sampling_step - (current?.step ?? 0) >= every) {
        current = {
          step: state.sampling_step,
          image: a1111PreviewOf(state.sampling_step, state.sampling_steps, a1111.samplesFormat),
        };
      }
      let image: string | null = null;
      if (current && skip === "false") {
        image = (await current.image).toString("base64");
        a1111.previewsSent.push(current.step);
      }
      return {
        status: 200,
        json: { progress, eta_relative: 0, state, current_image: image, textinfo: "Sampling" },
      };
    }
    if (key === "POST /sdapi/v1/interrupt") {
      a1111.interrupts++;
      if (state.job_count > 0) state.interrupted = true;
      return { status: 200, json: {} };
    }
    if (key === "GET /sdapi/v1/upscalers") return { status: 200, json: A1111_UPSCALERS };
    if (key === "GET /sdapi/v1/face-restorers") return { status: 200, json: A1111_FACE_RESTORERS };
    if (key === "POST /sdapi/v1/extra-single-image") {
      if (f.mode === "error") {
        return {
          status: 500,
          json: { error: "OutOfMemoryError", detail: "", body: "", errors: "CUDA out of memory." },
        };
      }
      if (f.mode === "hang") return "hang";
      return extras(f, objectOf(req.body));
    }
    if (key !== "POST /sdapi/v1/txt2img" && key !== "POST /sdapi/v1/img2img") {
      return { status: 404, json: { detail: "Not Found" } };
    }

    const body = objectOf(req.body);
    checkBody(f, body);
    if (key === "POST /sdapi/v1/img2img") await checkImg2img(f, body);
    if (f.mode === "error") {
      return { status: 500, json: { error: "OutOfMemoryError", detail: "", body: "", errors: "CUDA out of memory." } };
    }
    if (f.mode === "hang") return "hang";
    // The queue lock: one generation at a time.
    const previous = lock;
    let release: () => void = () => undefined;
    lock = new Promise((r) => {
      release = r;
    });
    await previous;
    try {
      const steps = Number(body.steps);
      Object.assign(state, {
        job: "scripts_txt2img",
        job_count: 1,
        job_no: 0,
        sampling_step: 0,
        sampling_steps: steps,
        interrupted: false,
      });
      current = undefined;
      for (let step = 1; step <= steps && !state.interrupted; step++) {
        if (a1111.stepDelayMs > 0) await new Promise((r) => setTimeout(r, a1111.stepDelayMs));
        state.sampling_step = step;
      }
      const width = Number(body.width);
      const height = Number(body.height);
      const sizeKey = `${width}x${height}`;
      if (!cache.has(sizeKey)) cache.set(sizeKey, imageOf(width, height));
      const png = await (cache.get(sizeKey) as Promise<Buffer>);
      const seed = Number(body.seed) === -1 ? 1234567 : Number(body.seed);
      // A batch: batch_size images, image i from seed + i (processing.py's all_seeds), no grid for the API.
      const batch = Number(body.batch_size ?? 1);
      const seeds = Array.from({ length: batch }, (_, i) => seed + i);
      const info = {
        prompt: body.prompt,
        all_prompts: seeds.map(() => body.prompt),
        negative_prompt: body.negative_prompt,
        seed,
        all_seeds: seeds,
        batch_size: batch,
        index_of_first_image: 0,
        subseed: 42,
        width,
        height,
        sampler_name: body.sampler_name,
        cfg_scale: body.cfg_scale,
        steps,
        sd_model_name: String(objectOf(body.override_settings).sd_model_checkpoint).replace(/\.safetensors$/, ""),
      };
      return {
        status: 200,
        json: { images: seeds.map(() => png.toString("base64")), parameters: body, info: JSON.stringify(info) },
      };
    } finally {
      Object.assign(state, { job: "", job_count: 0, sampling_step: 0, sampling_steps: 0 });
      release();
    }
  })) as A1111Fake;
  const a1111 = fake;
  const defaults = () => {
    a1111.stepDelayMs = 0;
    a1111.interrupts = 0;
    a1111.previewEvery = 10;
    a1111.samplesFormat = "png";
    a1111.previewsSent = [];
  };
  defaults();
  const reset = fake.reset;
  a1111.reset = () => {
    reset();
    defaults();
  };
  return a1111;
}

function checkBody(f: Fake, body: Record<string, unknown>) {
  const int = (v: unknown) => Number.isInteger(v);
  expect(f, typeof body.prompt === "string" && body.prompt.length > 0, "txt2img: prompt missing");
  expect(f, typeof body.negative_prompt === "string", "txt2img: negative_prompt is not a string");
  expect(f, int(body.seed) && (body.seed as number) >= -1, `txt2img: seed ${String(body.seed)}`);
  expect(f, int(body.steps) && (body.steps as number) >= 1, `txt2img: steps ${String(body.steps)}`);
  expect(f, typeof body.cfg_scale === "number", "txt2img: cfg_scale is not a number");
  for (const side of ["width", "height"]) {
    expect(f, int(body[side]) && (body[side] as number) % 8 === 0, `txt2img: ${side} ${String(body[side])}`);
  }
  expect(f, SAMPLERS.includes(String(body.sampler_name)), `txt2img: unknown sampler ${String(body.sampler_name)}`);
  expect(f, SCHEDULERS.includes(String(body.scheduler)), `txt2img: unknown scheduler ${String(body.scheduler)}`);
  const checkpoint = objectOf(body.override_settings).sd_model_checkpoint;
  expect(f, A1111_CHECKPOINTS.includes(String(checkpoint)), `txt2img: unknown checkpoint ${String(checkpoint)}`);
  expect(f, body.send_images !== false, "txt2img: send_images is false, so no image would come back");
  const batch = body.batch_size ?? 1;
  expect(f, int(batch) && (batch as number) >= 1 && (batch as number) <= 8, `txt2img: batch_size ${String(batch)}`);
  expect(f, (body.n_iter ?? 1) === 1, `txt2img: n_iter ${String(body.n_iter)}`);
}

/** StableDiffusionProcessingImg2Img's extra fields: init_images (base64), denoising_strength, and for inpainting a mask. */
async function checkImg2img(f: Fake, body: Record<string, unknown>) {
  const init = Array.isArray(body.init_images) ? await imageFromBase64(body.init_images[0]) : null;
  expect(f, init !== null, "img2img: init_images[0] is not a base64 image");
  expect(f, init?.width === body.width && init?.height === body.height, "img2img: init image and size differ");
  const strength = body.denoising_strength;
  expect(f, typeof strength === "number" && strength >= 0 && strength <= 1, "img2img: denoising_strength");
  if (body.mask !== undefined) {
    const mask = await imageFromBase64(body.mask);
    expect(f, mask?.width === init?.width && mask?.height === init?.height, "img2img: mask size differs");
    expect(f, body.inpainting_mask_invert === 0, "img2img: white must be repainted (inpainting_mask_invert 0)");
  }
}

/**
 * POST /sdapi/v1/extra-single-image: the request validated as ExtrasSingleImageRequest is (pydantic: visibilities
 * and weight in 0..1, resize_mode 0 or 1), the upscaler looked up by name as scripts/postprocessing_upscale.py does
 * (an unknown one is an AssertionError: a 500), and the image made at the size the resize mode asks for.
 */
async function extras(f: Fake, body: Record<string, unknown>) {
  const input = await imageFromBase64(body.image);
  expect(f, input !== null, "extra-single-image: image is not a base64 image");
  const unit = (v: unknown) => v === undefined || (typeof v === "number" && v >= 0 && v <= 1);
  for (const field of [
    "gfpgan_visibility",
    "codeformer_visibility",
    "codeformer_weight",
    "extras_upscaler_2_visibility",
  ])
    expect(f, unit(body[field]), `extra-single-image: ${field} ${String(body[field])} is not in 0..1`);
  const mode = body.resize_mode ?? 0;
  expect(f, mode === 0 || mode === 1, `extra-single-image: resize_mode ${String(mode)}`);
  const names = A1111_UPSCALERS.map((u) => u.name);
  for (const field of ["upscaler_1", "upscaler_2"]) {
    const name = body[field] ?? "None";
    if (!names.includes(String(name))) {
      return {
        status: 500,
        json: {
          error: "AssertionError",
          detail: "",
          body: "",
          errors: `could not find upscaler named ${String(name)}`,
        },
      };
    }
  }
  if (!input) return { status: 422, json: { detail: "image is not a base64 image" } };
  let width: number;
  let height: number;
  if (mode === 1) {
    const int = (v: unknown) => Number.isInteger(v) && (v as number) >= 1;
    expect(
      f,
      int(body.upscaling_resize_w) && int(body.upscaling_resize_h),
      "extra-single-image: upscaling_resize_w/_h",
    );
    width = Number(body.upscaling_resize_w);
    height = Number(body.upscaling_resize_h);
  } else {
    const factor = Number(body.upscaling_resize ?? 2);
    expect(f, factor > 0, `extra-single-image: upscaling_resize ${String(body.upscaling_resize)}`);
    width = Math.round(input.width * factor);
    height = Math.round(input.height * factor);
  }
  const png = await imageOf(width, height);
  return { status: 200, json: { html_info: "<p></p>", image: png.toString("base64") } };
}
