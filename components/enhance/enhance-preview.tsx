// The enhance page's right-hand panel: the before/after comparison of a result (any mode), the result alone after a
// reload, the upload's preview, or what will appear here.
"use client";
import { panel } from "@/components/ui/styles";
import type { PickedImage } from "@/lib/client/picked-image";
import { byteBaseFor, formatBytes, type UploadLimits } from "@/lib/client/upload-rules";
import { CompareSlider } from "./compare-slider";
import { EnhanceResult } from "./enhance-result";
import type { EnhanceOutcome } from "./use-enhance-job";

type Props = {
  result: EnhanceOutcome | null;
  image: PickedImage | null;
  running: boolean;
  /** A job from before a reload is still being followed. */
  following: boolean;
  limits: UploadLimits;
};

export function EnhancePreview({ result, image, running, following, limits }: Props) {
  return (
    <section aria-labelledby="preview-heading" className={`${panel} p-3 sm:p-4 lg:col-span-7`}>
      <h2 id="preview-heading" className="sr-only">
        {result && image ? "Before and after" : result ? "Result" : "Preview"}
      </h2>
      {result && image ? (
        <Compared result={result} image={image} />
      ) : result ? (
        <ResultOnly result={result} />
      ) : image ? (
        <UploadPreview image={image} running={running} limits={limits} />
      ) : (
        <EmptyPreview following={following} />
      )}
    </section>
  );
}

function sizeOf(result: EnhanceOutcome): [number, number] {
  const [w, h] = result.data.enhanced_size.split("x").map(Number);
  return [w, h];
}

function Compared({ result, image }: { result: EnhanceOutcome; image: PickedImage }) {
  const [w, h] = sizeOf(result);
  return (
    <>
      <CompareSlider before={image.previewUrl} after={result.data.url} width={w} height={h} />
      <EnhanceResult result={result.data} fileName={image.file.name} resizedFrom={image.resized?.from} />
    </>
  );
}

/** Finished after a reload: the upload itself is not kept, so there is nothing to compare against. */
function ResultOnly({ result }: { result: EnhanceOutcome }) {
  const [w, h] = sizeOf(result);
  return (
    <figure>
      <div className="bg-checker overflow-hidden rounded-xl">
        {/* eslint-disable-next-line @next/next/no-img-element -- CDN images are already final PNGs */}
        <img
          src={result.data.url}
          alt={`Enhanced ${result.meta.fileName || "image"}`}
          width={w}
          height={h}
          className="mx-auto block h-auto max-h-[70vh] w-auto max-w-full"
          data-testid="enhanced-image"
        />
      </div>
      <figcaption className="mt-2 text-sm text-stone-600 dark:text-stone-400">
        Your original isn&apos;t kept across a page reload, so only the enhanced image is shown.
      </figcaption>
      <EnhanceResult result={result.data} fileName={result.meta.fileName} resizedFrom={result.meta.resizedFrom} />
    </figure>
  );
}

function UploadPreview({ image, running, limits }: { image: PickedImage; running: boolean; limits: UploadLimits }) {
  return (
    <figure>
      <div className={`bg-checker overflow-hidden rounded-xl ${running ? "animate-pulse" : ""}`}>
        {/* eslint-disable-next-line @next/next/no-img-element -- local object URL of the upload */}
        <img
          src={image.previewUrl}
          alt="Your upload"
          className="mx-auto block h-auto max-h-[70vh] w-auto max-w-full"
          data-testid="upload-preview"
        />
      </div>
      <figcaption className="mt-2 text-sm text-stone-600 dark:text-stone-400">
        <span className="font-medium text-stone-800 dark:text-stone-200">{image.file.name || "Pasted image"}</span>
        {image.width > 0 && ` · ${image.width}×${image.height}`} ·{" "}
        {formatBytes(image.file.size, byteBaseFor(limits.maxBytes))}
        {image.resized && " · resized in your browser"}
      </figcaption>
    </figure>
  );
}

function EmptyPreview({ following }: { following: boolean }) {
  const [title, detail] = following
    ? ["Still enhancing your photo", "It was sent before this page reloaded; the result appears here when it is ready."]
    : ["Your before/after appears here", "Upload a photo to preview it, then press Enhance."];
  return (
    <div
      className="flex aspect-[4/3] items-center justify-center rounded-xl border-2 border-dashed border-stone-300 p-6 text-center text-sm text-stone-600 dark:border-stone-700 dark:text-stone-400"
      data-testid="preview-empty"
    >
      <div className="max-w-xs">
        <p className="font-medium text-stone-800 dark:text-stone-200">{title}</p>
        <p className="mt-1">{detail}</p>
      </div>
    </div>
  );
}
