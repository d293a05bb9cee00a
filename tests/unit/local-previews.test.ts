// Previews from GPU servers reach the job's onPreview: ComfyUI's binary preview frames (both wire formats) and
// A1111's `current_image`, in the loopback fakes' real formats, as decodable images in the order they were made,
// and the generation still ends with its image.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import sharp from "sharp";
import { MODELS, type ModelName } from "@/lib/catalog/models";
import { applyStyle } from "@/lib/catalog/styles";
import { parseConfig } from "@/lib/config";
import { buildEngine, createEngineShared } from "@/lib/engines";
import { COMFY_BINARY, comfyPreviewOf } from "@/lib/engines/local/previews";
import type { GenerateJob } from "@/lib/engines/types";
import { A1111_AUTH, type A1111Fake, startA1111Fake } from "../fakes/a1111";
import { comfyPreviewImage, startComfyFake } from "../fakes/comfyui";

const open: { close: () => Promise<void> }[] = [];
after(async () => {
  await Promise.all(open.map((f) => f.close()));
});
const shared = createEngineShared();
const MODEL: ModelName = "gamma-xl-1024-v1-0";

function engineOf(env: Record<string, string>) {
  return buildEngine(MODEL, parseConfig({ NODE_ENV: "test", GENERATION_TIMEOUT_MS: "10000", ...env }), shared);
}

function jobWith(onPreview?: (image: Buffer) => void): GenerateJob {
  const { width, height } = MODELS[MODEL].sizes["1:1"];
  return {
    prompt: "a lighthouse at dusk",
    styledPrompt: applyStyle("Anime", "a lighthouse at dusk"),
    model: MODEL,
    style: "Anime",
    ratio: "1:1",
    width,
    height,
    seed: 77,
    requestId: "req_previews",
    signal: new AbortController().signal,
    onPreview,
  };
}

type Seen = { format?: string; width?: number; grey: number };

/** Decodes every preview in full (not just its header) and reads the grey level the fakes paint each step in. */
async function decodeAll(previews: Buffer[]): Promise<Seen[]> {
  return Promise.all(
    previews.map(async (bytes) => {
      const meta = await sharp(bytes).metadata();
      const { data } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
      return { format: meta.format, width: meta.width, grey: data[0] };
    }),
  );
}

/** Strictly brighter each time: the previews arrived in the order the sampler made them. */
function assertInOrder(seen: Seen[]) {
  for (let i = 1; i < seen.length; i++) {
    assert.ok(seen[i].grey > seen[i - 1].grey, `preview ${i} (${seen[i].grey}) after ${seen[i - 1].grey}`);
  }
}

describe("ComfyUI preview frames", () => {
  async function run(opts: { legacy?: boolean }, format: "JPEG" | "PNG") {
    const fake = await startComfyFake(opts);
    open.push(fake);
    fake.previews = format;
    const previews: Buffer[] = [];
    const image = await engineOf({ COMFYUI_URLS: fake.url, MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl" }).generate(
      jobWith((b) => previews.push(b)),
    );
    const atEnd = previews.length;
    const meta = await sharp(image.png).metadata();
    assert.deepEqual([image.engine, image.seed, meta.format, meta.width], ["comfyui:sdxl", 77, "png", 1024]);
    assert.equal(atEnd, fake.previewsSent.length, "every frame sent arrived before the generation ended");
    assert.deepEqual(fake.violations, []);
    return { fake, previews };
  }

  it("reads PREVIEW_IMAGE (1) frames from a ComfyUI that does not know feature flags", async () => {
    const { fake, previews } = await run({ legacy: true }, "JPEG");
    assert.equal(fake.previewsSent.length, 30, "one frame per sampler step");
    assert.ok(fake.previewsSent.every((p) => p.event === COMFY_BINARY.PREVIEW_IMAGE));
    const seen = await decodeAll(previews);
    assert.equal(seen.length, 30);
    assert.ok(seen.every((s) => s.format === "jpeg" && s.width === 128));
    assertInOrder(seen);
  });

  it("asks a newer ComfyUI for PREVIEW_IMAGE_WITH_METADATA (4) and reads those", async () => {
    const { fake, previews } = await run({}, "PNG");
    assert.equal(fake.previewsSent.length, 30);
    assert.ok(
      fake.previewsSent.every((p) => p.event === COMFY_BINARY.PREVIEW_IMAGE_WITH_METADATA),
      "the client declared supports_preview_metadata",
    );
    const seen = await decodeAll(previews);
    assert.equal(seen.length, 30);
    assert.ok(seen.every((s) => s.format === "png"));
    assertInOrder(seen);
  });

  it("sends no preview to a job without a listener, and still ends normally", async () => {
    const fake = await startComfyFake();
    open.push(fake);
    fake.previews = "JPEG";
    const image = await engineOf({ COMFYUI_URLS: fake.url, MODEL_GAMMA_XL_1024_V1_0: "comfyui:sdxl" }).generate(
      jobWith(),
    );
    assert.equal(image.engine, "comfyui:sdxl");
    assert.equal(fake.previewsSent.length, 30, "the server sent them; nobody was told");
  });

  it("parses each frame layout and refuses the ones that carry no image or lie about their length", async () => {
    const u32 = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32BE(n);
      return b;
    };
    const jpeg = await comfyPreviewImage(1, 2, "JPEG");
    assert.deepEqual(comfyPreviewOf(Buffer.concat([u32(1), u32(1), jpeg])), { image: jpeg });
    const meta = Buffer.from(JSON.stringify({ prompt_id: "p-1", node_id: "3", image_type: "image/jpeg" }));
    assert.deepEqual(comfyPreviewOf(Buffer.concat([u32(4), u32(meta.length), meta, jpeg])), {
      image: jpeg,
      promptId: "p-1",
    });
    assert.equal(comfyPreviewOf(Buffer.concat([u32(3), u32(1), Buffer.from("3progress")])), undefined, "TEXT");
    assert.equal(comfyPreviewOf(Buffer.concat([u32(4), u32(9999), meta, jpeg])), undefined, "length past the end");
    assert.equal(comfyPreviewOf(Buffer.concat([u32(4), u32(3), Buffer.from("{x}"), jpeg])), undefined, "bad JSON");
    assert.equal(comfyPreviewOf(u32(1)), undefined, "too short");
  });
});

describe("A1111 current_image", () => {
  async function a1111(): Promise<A1111Fake> {
    const fake = await startA1111Fake();
    open.push(fake);
    fake.stepDelayMs = 80;
    fake.previewEvery = 3;
    return fake;
  }
  const env = (fake: A1111Fake) => ({
    A1111_URLS: fake.url,
    A1111_AUTH,
    MODEL_GAMMA_XL_1024_V1_0: "a1111:sd_xl_base_1.0.safetensors",
  });
  const progressQueries = (fake: A1111Fake) =>
    fake.requests.filter((r) => r.path === "/sdapi/v1/progress").map((r) => r.query.get("skip_current_image"));

  it("polls /sdapi/v1/progress for the live preview while txt2img runs, in order", async () => {
    const fake = await a1111();
    const previews: Buffer[] = [];
    const image = await engineOf(env(fake)).generate(jobWith((b) => previews.push(b)));
    assert.equal(image.engine, "a1111:sd_xl_base_1.0.safetensors");
    assert.equal(image.seed, 77);
    assert.ok(progressQueries(fake).every((q) => q === "false"));
    const distinct = [...new Set(fake.previewsSent)];
    assert.ok(distinct.length >= 2, `the fake made ${distinct.length} previews`);
    const seen = await decodeAll(previews);
    assert.equal(seen.length, distinct.length, "each preview once, though polls repeat it");
    assert.ok(seen.every((s) => s.format === "png" && s.width === 64));
    assertInOrder(seen);
    assert.deepEqual(fake.violations, []);
  });

  it("turns a WebP preview (samples_format webp) into PNG", async () => {
    const fake = await a1111();
    fake.samplesFormat = "webp";
    const previews: Buffer[] = [];
    await engineOf(env(fake)).generate(jobWith((b) => previews.push(b)));
    const seen = await decodeAll(previews);
    assert.ok(seen.length >= 2);
    assert.ok(seen.every((s) => s.format === "png"));
    assertInOrder(seen);
  });

  it("asks for no image when nobody listens", async () => {
    const fake = await a1111();
    await engineOf(env(fake)).generate(jobWith());
    const queries = progressQueries(fake);
    assert.ok(queries.length >= 2);
    assert.ok(queries.every((q) => q === "true"));
    assert.deepEqual(fake.previewsSent, []);
  });
});
