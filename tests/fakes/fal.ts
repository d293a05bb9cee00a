// Fake fal.ai sync API (fal.run): POST /<model-id> → { images: [{ url, … }], seed, has_nsfw_concepts }.
import {
  expect,
  expectHeader,
  type Fake,
  imageFromBase64,
  imageOf,
  NOT_AN_IMAGE,
  objectOf,
  startFake,
} from "./fake-server";

export const FAL_KEY = "fal-test-key";
const MODELS = ["/fal-ai/flux-pro/v1.1", "/fal-ai/fast-sdxl", "/fal-ai/flux/schnell"];
/** Edit endpoints: image_url (a data URI here), and mask_url for the inpainting ones. */
const IMAGE_MODELS = ["/fal-ai/flux-pro/kontext", "/fal-ai/fast-sdxl/image-to-image"];
const MASK_MODELS = ["/fal-ai/flux-pro/v1/fill", "/fal-ai/fast-sdxl/inpainting"];

export function startFalFake(): Promise<Fake> {
  return startFake("fal", async (req, f) => {
    expectHeader(f, req, "authorization", `Key ${FAL_KEY}`);
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
