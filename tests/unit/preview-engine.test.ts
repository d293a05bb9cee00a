// The preview engine: exact sizes, reproducible bytes, and pictures that visibly answer the prompt, style and ratio.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import sharp from "sharp";
import { MODEL_NAMES, MODELS, type ModelName, RATIOS, type Ratio } from "@/lib/catalog/models";
import { applyStyle, STYLE_NAMES, type StyleName } from "@/lib/catalog/styles";
import { previewEngine } from "@/lib/engines/preview";
import { CAPTION_TEXT } from "@/lib/engines/preview/caption";
import { buildPreviewSvg } from "@/lib/engines/preview/render";
import { deriveSeed } from "@/lib/engines/preview/seed";
import type { GenerateJob } from "@/lib/engines/types";

type JobOptions = {
  prompt?: string;
  style?: StyleName;
  ratio?: Ratio;
  model?: ModelName;
  seed?: number;
  negativePrompt?: string;
  signal?: AbortSignal;
};

function makeJob(options: JobOptions = {}): GenerateJob {
  const {
    prompt = "a quiet valley",
    style = "Photorealistic",
    ratio = "1:1",
    model = "alpha-pro",
    seed,
    negativePrompt,
    signal,
  } = options;
  const size = MODELS[model].sizes[ratio];
  return {
    prompt,
    styledPrompt: applyStyle(style, prompt),
    model,
    style,
    ratio,
    width: size.width,
    height: size.height,
    seed,
    negativePrompt,
    requestId: "test",
    signal: signal ?? new AbortController().signal,
  };
}

async function render(options: JobOptions = {}): Promise<Buffer> {
  return (await previewEngine.generate(makeJob(options))).png;
}

type Pixels = { data: Buffer; width: number; height: number; channels: number };

async function readPixels(png: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** Share of pixels in rows [from, to) (fractions of the height) that pass the test. */
function measureShare(px: Pixels, test: (r: number, g: number, b: number) => boolean, from = 0, to = 1): number {
  const { data, width, height, channels } = px;
  const y0 = Math.floor(height * from);
  const y1 = Math.floor(height * to);
  let hits = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      if (test(data[i], data[i + 1], data[i + 2])) hits++;
    }
  }
  return hits / ((y1 - y0) * width);
}

/** Mean of a per-pixel value over rows [from, to). */
function measureAverage(px: Pixels, value: (r: number, g: number, b: number) => number, from = 0, to = 1): number {
  const { data, width, height, channels } = px;
  const y0 = Math.floor(height * from);
  const y1 = Math.floor(height * to);
  let sum = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      sum += value(data[i], data[i + 1], data[i + 2]);
    }
  }
  return sum / ((y1 - y0) * width);
}

const computeLuma = (r: number, g: number, b: number): number => (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;

const isBright = (r: number, g: number, b: number): boolean => computeLuma(r, g, b) > 0.75;

/** Share of pixels on a thin dark line: dark, with clearly brighter pixels a few steps away on both sides. */
function measureInkLines(px: Pixels): number {
  const { data, width, height, channels } = px;
  const lumaAt = (x: number, y: number): number => {
    const i = (y * width + x) * channels;
    return computeLuma(data[i], data[i + 1], data[i + 2]);
  };
  const step = 5;
  let hits = 0;
  for (let y = step; y < height - step; y++) {
    for (let x = step; x < width - step; x++) {
      const l = lumaAt(x, y);
      if (l > 0.3) continue;
      const across = lumaAt(x - step, y) > l + 0.2 && lumaAt(x + step, y) > l + 0.2;
      const down = lumaAt(x, y - step) > l + 0.2 && lumaAt(x, y + step) > l + 0.2;
      if (across || down) hits++;
    }
  }
  return hits / (width * height);
}

async function meanLuma(png: Buffer): Promise<number> {
  // sharp's own statistics, weighted into perceived brightness.
  const { channels } = await sharp(png).stats();
  return computeLuma(channels[0].mean, channels[1].mean, channels[2].mean);
}

/** Mean absolute difference per channel (0–255) between two images scaled to the same small grid. */
async function measureDifference(a: Buffer, b: Buffer): Promise<number> {
  const shrink = (png: Buffer) => sharp(png).resize(96, 96, { fit: "fill" }).removeAlpha().raw().toBuffer();
  const [x, y] = await Promise.all([shrink(a), shrink(b)]);
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.abs(x[i] - y[i]);
  return sum / x.length;
}

const SEEDS = [1, 2, 3];

describe("preview engine", () => {
  it("describes itself honestly", () => {
    assert.equal(previewEngine.id, "preview");
    assert.equal(previewEngine.ai, false);
  });

  it("renders exactly the job's size as a PNG for every model and ratio", async () => {
    const seen = new Set<string>();
    let i = 0;
    for (const model of MODEL_NAMES) {
      for (const ratio of RATIOS) {
        const { width, height } = MODELS[model].sizes[ratio];
        if (seen.has(`${width}x${height}`)) continue;
        seen.add(`${width}x${height}`);
        const style = STYLE_NAMES[i++ % STYLE_NAMES.length];
        const image = await previewEngine.generate(makeJob({ prompt: "mountains by the sea", model, ratio, style }));
        const meta = await sharp(image.png).metadata();
        assert.equal(meta.format, "png");
        assert.deepEqual([meta.width, meta.height], [width, height], `${model} ${ratio} ${style}`);
        assert.deepEqual([image.width, image.height], [width, height]);
      }
    }
    assert.ok(seen.has("1376x768") && seen.has("768x1376") && seen.has("1344x768") && seen.has("1536x864"));
  });

  it("renders every style preset at 1:1 and 16:9", async () => {
    for (const style of STYLE_NAMES) {
      for (const ratio of ["1:1", "16:9"] as const) {
        const job = makeJob({ prompt: "a city by a river under snowy mountains at sunset", style, ratio });
        const meta = await sharp((await previewEngine.generate(job)).png).metadata();
        assert.equal(meta.format, "png", style);
        assert.deepEqual([meta.width, meta.height], [job.width, job.height], `${style} ${ratio}`);
      }
    }
  });

  it("labels every style 'Darkroom preview · not AI'", () => {
    for (const style of STYLE_NAMES) {
      const built = buildPreviewSvg(makeJob({ style }));
      const markup = built.pixelated ? built.pixelated.caption.svg : built.svg;
      assert.ok(markup.includes(CAPTION_TEXT), style);
      assert.match(markup, /font-family="sans-serif"/);
    }
  });

  it("is deterministic: the same job gives identical bytes", async () => {
    for (const style of ["Photorealistic", "Analog Film", "Pixel Art", "Watercolor", "Isometric"] as const) {
      const a = await render({ prompt: "a lighthouse on a stormy sea", style, seed: 42 });
      const b = await render({ prompt: "a lighthouse on a stormy sea", style, seed: 42 });
      assert.ok(a.equals(b), style);
    }
  });

  it("derives and returns a seed from the prompt when none is given", async () => {
    const job = makeJob({ prompt: "a red barn in a field" });
    const first = await previewEngine.generate(job);
    assert.equal(first.seed, deriveSeed("a red barn in a field"));
    assert.ok(Number.isInteger(first.seed) && first.seed! >= 0 && first.seed! < 2 ** 31);
    const replay = await previewEngine.generate(makeJob({ prompt: "a red barn in a field", seed: first.seed }));
    assert.ok(first.png.equals(replay.png), "sending the returned seed back reproduces the image");
    const other = await previewEngine.generate(makeJob({ prompt: "a red barn in a field", seed: 7 }));
    assert.equal(other.seed, 7);
    assert.ok((await measureDifference(first.png, other.png)) > 3, "another seed gives another picture");
  });

  it("gives different prompts visibly different pictures", async () => {
    const prompts = ["a portrait of a cat", "an old bicycle", "a bowl of ramen", "the future of work"];
    const images = await Promise.all(prompts.map((prompt) => render({ prompt })));
    for (let i = 0; i < images.length; i++) {
      for (let j = i + 1; j < images.length; j++) {
        assert.ok((await measureDifference(images[i], images[j])) > 5, `${prompts[i]} vs ${prompts[j]}`);
      }
    }
  });

  it("makes 'night' darker than 'sun'", async () => {
    for (const seed of SEEDS) {
      const night = await meanLuma(
        await render({ prompt: "a mountain village at night under the moon and stars", seed }),
      );
      const day = await meanLuma(await render({ prompt: "a mountain village under a bright sun", seed }));
      assert.ok(night < day - 0.2, `seed ${seed}: night ${night.toFixed(2)} vs day ${day.toFixed(2)}`);
    }
  });

  it("covers the land in white for 'snow'", async () => {
    for (const seed of SEEDS) {
      const snowy = measureShare(
        await readPixels(await render({ prompt: "a quiet valley in deep snow", seed })),
        isBright,
        0.6,
        0.9,
      );
      const plain = measureShare(
        await readPixels(await render({ prompt: "a quiet valley", seed })),
        isBright,
        0.6,
        0.9,
      );
      assert.ok(
        snowy > 0.3 && snowy > plain + 0.25,
        `seed ${seed}: snow ${snowy.toFixed(2)} vs plain ${plain.toFixed(2)}`,
      );
    }
  });

  it("puts blue water in the lower part for 'sea'", async () => {
    const blueness = (r: number, g: number, b: number) => b - (r + g) / 2;
    for (const seed of SEEDS) {
      const sea = measureAverage(await readPixels(await render({ prompt: "a calm sea", seed })), blueness, 0.6, 0.8);
      const meadow = measureAverage(
        await readPixels(await render({ prompt: "a green meadow", seed })),
        blueness,
        0.6,
        0.8,
      );
      assert.ok(sea > 40 && sea > meadow + 40, `seed ${seed}: sea ${sea.toFixed(0)} vs meadow ${meadow.toFixed(0)}`);
    }
  });

  it("drops subjects named in the negative prompt", async () => {
    const kept = measureShare(
      await readPixels(await render({ prompt: "a valley in snow", seed: 5 })),
      isBright,
      0.6,
      0.9,
    );
    const dropped = measureShare(
      await readPixels(await render({ prompt: "a valley in snow", negativePrompt: "snow", seed: 5 })),
      isBright,
      0.6,
      0.9,
    );
    assert.ok(kept > dropped + 0.25, `kept ${kept.toFixed(2)} vs dropped ${dropped.toFixed(2)}`);
  });

  it("frames Cinematic with black letterbox bars", async () => {
    for (const ratio of ["16:9", "1:1", "9:16"] as const) {
      const px = await readPixels(await render({ prompt: "a desert road at sunset", style: "Cinematic", ratio }));
      const black = (r: number, g: number, b: number) => r < 6 && g < 6 && b < 6;
      const rows = 4 / px.height;
      assert.equal(measureShare(px, black, 0, rows), 1, `${ratio} top rows`);
      assert.equal(measureShare(px, black, 1 - rows, 1), 1, `${ratio} bottom rows`);
      assert.ok(measureShare(px, black, 0.45, 0.55) < 0.5, `${ratio} picture between the bars`);
    }
  });

  it("inks Anime and Illustration with dark outlines", async () => {
    for (const seed of SEEDS) {
      const prompt = "a sunny meadow with a tree and clouds";
      const photo = measureInkLines(await readPixels(await render({ prompt, style: "Photorealistic", seed })));
      for (const style of ["Anime", "Illustration"] as const) {
        const inked = measureInkLines(await readPixels(await render({ prompt, style, seed })));
        assert.ok(
          inked > 0.003 && inked > photo * 4,
          `seed ${seed} ${style}: ${inked.toFixed(4)} vs photo ${photo.toFixed(4)}`,
        );
      }
    }
  });

  it("draws Line Art as dark lines on white", async () => {
    const px = await readPixels(await render({ prompt: "mountains and a forest", style: "Line Art" }));
    const white = (r: number, g: number, b: number) => r > 245 && g > 245 && b > 245;
    const ink = (r: number, g: number, b: number) => computeLuma(r, g, b) < 0.35;
    assert.ok(measureShare(px, white) > 0.6, "mostly white paper");
    assert.ok(measureShare(px, ink) > 0.01, "with visible strokes");
  });

  it("renders Pixel Art on a coarse grid", async () => {
    const { data, width, height, channels } = await readPixels(
      await render({ prompt: "a castle on a hill", style: "Pixel Art" }),
    );
    const cell = 1024 / 128;
    let same = 0;
    let pairs = 0;
    // Leave out the bottom strip, where the caption is drawn at full resolution.
    for (let y = 0; y < height * 0.9; y++) {
      for (let x = 1; x < width; x++) {
        if (x % cell === 0) continue;
        const i = (y * width + x) * channels;
        const j = i - channels;
        pairs++;
        if (data[i] === data[j] && data[i + 1] === data[j + 1] && data[i + 2] === data[j + 2]) same++;
      }
    }
    assert.ok(same / pairs > 0.995, `pixels inside a grid cell match ${(same / pairs).toFixed(4)}`);
  });

  it("lights Neon Punk with magenta and cyan on dark", async () => {
    const png = await render({ prompt: "a city street at night", style: "Neon Punk" });
    const px = await readPixels(png);
    assert.ok((await meanLuma(png)) < 0.3, "dark overall");
    assert.ok(measureShare(px, (r, g, b) => r > 150 && b > 120 && g < 110) > 0.001, "magenta");
    assert.ok(measureShare(px, (r, g, b) => g > 150 && b > 150 && r < 110) > 0.001, "cyan");
  });

  it("recomposes for the ratio instead of stretching", async () => {
    const square = await render({ prompt: "a lake between mountains", ratio: "1:1", seed: 9 });
    const wide = await render({ prompt: "a lake between mountains", ratio: "16:9", seed: 9 });
    const tall = await render({ prompt: "a lake between mountains", ratio: "9:16", seed: 9 });
    const [w, t] = await Promise.all([sharp(wide).metadata(), sharp(tall).metadata()]);
    assert.ok(w.width! > w.height! && t.height! > t.width!);
    assert.ok((await measureDifference(square, wide)) > 5);
    assert.ok((await measureDifference(square, tall)) > 5);
  });

  it("keeps prompt text out of the SVG", () => {
    const prompt = `</svg><script>alert("x")</script> & <text>sea</text>`;
    const { svg } = buildPreviewSvg(makeJob({ prompt }));
    assert.ok(!svg.includes("<script") && !svg.includes("alert"));
    assert.equal(svg.match(/<text/g)?.length, 1, "only the caption is text");
  });

  it("refuses to start when the request is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(previewEngine.generate(makeJob({ signal: controller.signal })), { name: "AbortError" });
  });
});
