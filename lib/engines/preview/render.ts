// Seed → palette → scene → SVG → PNG. A pure function of the job, so the same job always yields the same bytes.
import sharp from "sharp";
import type { GenerateJob } from "@/lib/engines/types";
import { buildCaption, buildCaptionImage } from "./caption";
import { formatHex } from "./color";
import { buildRectPath } from "./geometry";
import { buildIsometric } from "./isometric";
import { buildOverlay, type OverlayContext } from "./overlays";
import { createPalette } from "./palette";
import { buildLandscape } from "./scene";
import { createRng, deriveSeed, hashString } from "./seed";
import type { Layer, SceneContext } from "./shapes";
import { getTreatment, type OverlayName } from "./styles";
import { findSubjects, findTintHue } from "./subjects";
import { createDocument, emitShape } from "./svg";

export type PreviewJob = Pick<
  GenerateJob,
  "prompt" | "style" | "ratio" | "model" | "width" | "height" | "seed" | "negativePrompt"
>;

export type PreviewSvg = {
  svg: string;
  seed: number;
  /** Set when the SVG is drawn small and must be upscaled with nearest neighbour before the caption goes on. */
  pixelated?: { caption: { svg: string; left: number; top: number } };
};

// Measured on 2 cores: level 3 without adaptive filtering halves encode time against the defaults for a modest size cost.
const PNG_OPTIONS = { compressionLevel: 3, adaptiveFiltering: false } as const;

const MAX_SIDE = 4096;

export function buildPreviewSvg(job: PreviewJob): PreviewSvg {
  const { width, height } = job;
  if (
    !Number.isInteger(width) ||
    !Number.isInteger(height) ||
    width < 16 ||
    height < 16 ||
    width > MAX_SIDE ||
    height > MAX_SIDE
  ) {
    throw new RangeError(`preview engine cannot render ${width}×${height}`);
  }
  const seed = job.seed ?? deriveSeed(job.prompt);
  const key = [job.prompt, job.style, job.ratio, job.model, seed, width, height].join("\u001f");
  const rng = createRng(hashString(key));
  const unit = Math.min(width, height);
  const treatment = getTreatment(job.style);
  const subjects = findSubjects(job.prompt, job.negativePrompt);
  const palette = createPalette(rng, subjects, findTintHue(job.prompt));
  const ctx: SceneContext = { rng, width, height, unit, subjects, palette };
  const scene = treatment.isometric ? buildIsometric(ctx) : buildLandscape(ctx);

  const doc = createDocument(unit, treatment);
  if (treatment.fill === "line") doc.body.push(`<path d="${buildRectPath(0, 0, width, height)}" fill="#fff"/>`);
  else if (treatment.paper)
    doc.body.push(`<path d="${buildRectPath(0, 0, width, height)}" fill="${formatHex(treatment.paper)}"/>`);

  const overlayCtx: OverlayContext = { doc, width, height, unit, rng, scene, palette };
  const addOverlays = (names: OverlayName[] | undefined): void => {
    for (const name of names ?? []) doc.body.push(buildOverlay(name, overlayCtx));
  };
  const findLastOf = (layers: Layer[]): number => scene.shapes.findLastIndex((s) => layers.includes(s.layer));
  const afterFar = findLastOf(["sky", "far"]);
  const afterGround = findLastOf(["sky", "far", "ground"]);
  if (afterFar < 0) addOverlays(treatment.overlays.afterFar);
  scene.shapes.forEach((shape, i) => {
    emitShape(doc, shape);
    if (i === afterFar) addOverlays(treatment.overlays.afterFar);
    if (i === afterGround) addOverlays(treatment.overlays.afterGround);
  });
  addOverlays(treatment.overlays.top);

  const pixel = treatment.pixel;
  let root = `width="${width}" height="${height}"`;
  let pixelated: PreviewSvg["pixelated"];
  if (pixel) {
    const step = unit * pixel;
    root = `width="${Math.max(1, Math.round(width / step))}" height="${Math.max(1, Math.round(height / step))}" preserveAspectRatio="none" shape-rendering="crispEdges"`;
    pixelated = { caption: buildCaptionImage(width, height, unit, treatment.caption) };
  } else {
    doc.body.push(buildCaption(width, height, unit, treatment.caption));
  }
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" ${root} viewBox="0 0 ${width} ${height}">` +
    `<defs>${doc.defs.join("")}</defs>${doc.body.join("")}</svg>`;
  return { svg, seed, pixelated };
}

export async function renderPreview(job: PreviewJob, signal?: AbortSignal): Promise<{ png: Buffer; seed: number }> {
  signal?.throwIfAborted();
  const { svg, seed, pixelated } = buildPreviewSvg(job);
  signal?.throwIfAborted();
  let image = sharp(Buffer.from(svg));
  if (pixelated) {
    // Rasterise the small SVG on its own first: given a resize, sharp would re-render the vector at full size and lose the pixels.
    const small = await image.raw().toBuffer({ resolveWithObject: true });
    const { width, height, channels } = small.info;
    image = sharp(small.data, { raw: { width, height, channels } })
      .resize(job.width, job.height, { kernel: "nearest", fit: "fill" })
      .composite([
        { input: Buffer.from(pixelated.caption.svg), left: pixelated.caption.left, top: pixelated.caption.top },
      ]);
  }
  const png = await image.removeAlpha().png(PNG_OPTIONS).toBuffer();
  return { png, seed };
}
