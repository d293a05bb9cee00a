// Fake Stability AI v1 REST: POST /v1/generation/<engine>/text-to-image → { artifacts: [{ base64, seed, finishReason }] }.
import { expect, expectHeader, type Fake, imageOf, NOT_AN_IMAGE, objectOf, startFake } from "./fake-server";

export const STABILITY_KEY = "sk-stability-test";
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
  return startFake("stability", async (req, f) => {
    expectHeader(f, req, "authorization", `Bearer ${STABILITY_KEY}`);
    expectHeader(f, req, "accept", "application/json");
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
