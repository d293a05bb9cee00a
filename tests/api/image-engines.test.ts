// Image input on every engine, through the public API against loopback fakes that check each real wire format:
// OpenAI multipart edits (image, alpha mask), BFL Kontext input_image and Fill mask, fal image_url and mask_url,
// Stability v1 image-to-image and masking, ComfyUI upload + LoadImage workflows, A1111 img2img.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import sharp from "sharp";
import { type A1111Fake, startA1111Fake } from "../fakes/a1111";
import { type ComfyFake, startComfyFake } from "../fakes/comfyui";
import type { Fake } from "../fakes/fake-server";
import { type Fakes, startAllFakes } from "../fakes/index";
import { type App, startApp } from "../helpers/app";
import { BROWSER, call, multipart, type Reply } from "../helpers/http";
import { pngOf } from "../helpers/images";

let cloud: App;
let local: App;
let fakes: Fakes;
let comfy: ComfyFake;
let a1111: A1111Fake;
let photo: Buffer;
let mask: Buffer;
let lastOctet = 10;
const nextIp = () => `127.0.2.${lastOctet++}`;
const SDXL = "sd_xl_base_1.0.safetensors";

before(async () => {
  [fakes, comfy, a1111] = await Promise.all([startAllFakes(), startComfyFake({ name: "comfy" }), startA1111Fake()]);
  photo = await pngOf(640, 480);
  const data = Buffer.alloc(640 * 480);
  for (let i = 0; i < data.length; i++) data[i] = i % 640 >= 320 ? 255 : 0;
  mask = await sharp(data, { raw: { width: 640, height: 480, channels: 1 } })
    .png()
    .toBuffer();
  [cloud, local] = await Promise.all([
    startApp({ name: "image-engines-cloud", env: { ...fakes.env, GENERATION_TIMEOUT_MS: "5000" } }),
    startApp({
      name: "image-engines-local",
      env: {
        COMFYUI_URLS: comfy.url,
        A1111_URLS: a1111.url,
        MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl",
        MODEL_ALPHA_SCHNELL: "comfyui:flux-schnell",
        MODEL_BETA_3: `a1111:${SDXL}`,
        MODEL_ALPHA_PRO: "preview",
      },
    }),
  ]);
});
after(async () => {
  await Promise.all([cloud?.stop(), local?.stop()]);
  await Promise.all([fakes?.closeAll(), comfy?.close(), a1111?.close()]);
});
beforeEach(() => {
  fakes.resetAll();
  comfy.reset();
  a1111.reset();
});

async function edit(app: App, model: string, withMask: boolean, extra: Record<string, string> = {}): Promise<Reply> {
  const { body, contentType } = await multipart({
    prompt: "a red barn",
    model,
    image: { data: photo, type: "image/png", name: "photo.png" },
    ...(withMask && { mask: { data: mask, type: "image/png", name: "mask.png" } }),
    strength: "0.7",
    ...extra,
  });
  return call(app.url, "/api/generate", {
    method: "POST",
    headers: { ...BROWSER, "Content-Type": contentType },
    body,
    from: nextIp(),
  });
}

function assertServed(res: Reply, engine: string, fake: { violations: string[]; name: string }) {
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.engine, engine);
  assert.equal(res.json.ai, true);
  assert.deepEqual(fake.violations, [], `${fake.name} saw a malformed request`);
}

const lastPath = (f: Fake) => f.requests.filter((r) => r.method === "POST").at(-1)?.path;

describe("cloud routes take images through their own wire formats", () => {
  it("OpenAI: /images/edits multipart with the image and an alpha mask", async () => {
    const res = await edit(cloud, "beta-3", true);
    assertServed(res, "openai:gpt-image-1", fakes.openai);
    assert.equal(lastPath(fakes.openai), "/v1/images/edits");
    assert.deepEqual([res.json.width, res.json.height], [1536, 1024], "gpt-image-1's nearest size to 4:3");
  });

  it("BFL: FLUX 1.1 [pro] edits go to Kontext (input_image), masks to Fill", async () => {
    assertServed(await edit(cloud, "alpha-pro", false), "bfl:flux-kontext-pro", fakes.bfl);
    assert.equal(lastPath(fakes.bfl), "/v1/flux-kontext-pro");
    fakes.resetAll();
    assertServed(await edit(cloud, "alpha-pro", true), "bfl:flux-pro-1.0-fill", fakes.bfl);
    assert.equal(lastPath(fakes.bfl), "/v1/flux-pro-1.0-fill");
  });

  it("fal: Fill with image_url and mask_url when BFL is down", async () => {
    fakes.bfl.mode = "error";
    const res = await edit(cloud, "alpha-pro", true);
    assertServed(res, "fal:fal-ai/flux-pro/v1/fill", fakes.fal);
    assert.equal(lastPath(fakes.fal), "/fal-ai/flux-pro/v1/fill");
  });

  it("Stability: v1 image-to-image, and image-to-image/masking with a white mask", async () => {
    const img2img = await edit(cloud, "gamma-xl-1024-v1-0", false);
    assertServed(img2img, "stability:stable-diffusion-xl-1024-v1-0", fakes.stability);
    assert.match(lastPath(fakes.stability) ?? "", /\/image-to-image$/);
    fakes.resetAll();
    assertServed(
      await edit(cloud, "gamma-xl-1024-v1-0", true),
      "stability:stable-diffusion-xl-1024-v1-0",
      fakes.stability,
    );
    assert.match(lastPath(fakes.stability) ?? "", /\/image-to-image\/masking$/);
  });

  it("fal fast-sdxl: image-to-image with strength when Stability is down", async () => {
    fakes.stability.mode = "error";
    const res = await edit(cloud, "gamma-xl-1024-v1-0", false);
    assertServed(res, "fal:fal-ai/fast-sdxl/image-to-image", fakes.fal);
  });

  it("a model without an image route answers unsupported_input before any quota, naming the models that do", async () => {
    const from = nextIp();
    const res = await edit(cloud, "alpha-schnell", false);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.error.code, "unsupported_input");
    assert.match(res.json.error.message, /alpha-pro/);
    const status = await call(cloud.url, "/api/status", { headers: BROWSER, from });
    const schnell = status.json.models.find((m: { name: string }) => m.name === "alpha-schnell");
    assert.deepEqual(schnell.inputs, ["text"]);
    const beta = status.json.models.find((m: { name: string }) => m.name === "beta-3");
    assert.deepEqual(beta.inputs, ["text", "image", "mask"]);
    for (const f of fakes.all) assert.equal(f.requests.length, 0, `${f.name} was never called`);
  });
});

describe("local GPU servers take images", () => {
  it("ComfyUI: the image is uploaded, then the img2img workflow loads it", async () => {
    const res = await edit(local, "gamma-xl-1024-v1-0", false);
    assertServed(res, "comfyui:sdxl-img2img", comfy);
    assert.equal(comfy.uploads.size, 1);
    const graph = comfy.prompts.at(-1)?.prompt ?? {};
    const loader = Object.values(graph).find((n) => n.class_type === "LoadImage");
    assert.ok(loader && comfy.uploads.has(String(loader.inputs.image)));
    const sampler = Object.values(graph).find((n) => n.class_type === "KSampler");
    assert.equal(sampler?.inputs.denoise, 0.7, "strength is the denoise");
  });

  it("ComfyUI: inpainting uploads the image with the mask as alpha", async () => {
    const res = await edit(local, "alpha-schnell", true);
    assertServed(res, "comfyui:flux-schnell-inpaint", comfy);
    const [upload] = [...comfy.uploads.values()];
    assert.equal(upload.hasAlpha, true);
  });

  it("A1111: /sdapi/v1/img2img with init_images, denoising_strength and a white mask", async () => {
    const res = await edit(local, "beta-3", true);
    assertServed(res, `a1111:${SDXL}`, a1111);
    const sent = a1111.requests.find((r) => r.path === "/sdapi/v1/img2img");
    assert.ok(sent, "img2img was called");
    assert.equal((sent.body as { denoising_strength: number }).denoising_strength, 0.7);
  });
});
