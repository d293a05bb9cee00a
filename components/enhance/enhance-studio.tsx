// The enhance page: pick a photo, tune strength, model, scale and format, enhance, then compare and download.
"use client";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { CancelNotice } from "@/components/ui/cancel-notice";
import { ErrorNotice } from "@/components/ui/error-notice";
import { FormatPicker } from "@/components/ui/format-picker";
import { JobProgress } from "@/components/ui/job-progress";
import { Spinner } from "@/components/ui/spinner";
import { panel, primaryButton } from "@/components/ui/styles";
import { UsageMeter } from "@/components/ui/usage-meter";
import { DEFAULT_ENHANCE_MODE, type EnhanceMode } from "@/lib/catalog/enhance-modes";
import type { ClientError, Quota } from "@/lib/client/api";
import { writeErrorCopy } from "@/lib/client/error-copy";
import { type EnhanceHistoryItem, loadEnhanceHistory, saveEnhanceHistory } from "@/lib/client/history";
import { deleteImageCall } from "@/lib/client/images";
import { describeCancel } from "@/lib/client/job-copy";
import { DEFAULT_OUTPUT_FORMAT, formatFields, type OutputFormat } from "@/lib/client/output-format";
import { fetchAsFile, type PickedImage, pickImage } from "@/lib/client/picked-image";
import { byteBaseFor, formatBytes, uploadLimitsFrom } from "@/lib/client/upload-rules";
import { useElapsed } from "@/lib/client/use-elapsed";
import { useJob } from "@/lib/client/use-job";
import { useStatus } from "@/lib/client/use-status";
import type { EnhanceResponse } from "@/lib/schemas/enhance";
import { DEFAULT_STRENGTH } from "@/lib/schemas/enhance-rules";
import { CompareSlider } from "./compare-slider";
import { DropZone } from "./drop-zone";
import { EnhanceHistory } from "./enhance-history";
import { EnhanceOptions } from "./enhance-options";
import { EnhanceResult } from "./enhance-result";
import { ResizeNotice } from "./resize-notice";

/** What a reload needs to show the result: the upload's name and, when resized here, its size as chosen. */
type EnhanceMeta = { fileName: string; resizedFrom?: { width: number; height: number } };

export function EnhanceStudio() {
  const { status } = useStatus();
  const [image, setImage] = useState<PickedImage | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [strength, setStrength] = useState(DEFAULT_STRENGTH);
  const [scale, setScale] = useState<2 | 4>(2);
  const [model, setModel] = useState<EnhanceMode>(DEFAULT_ENHANCE_MODE);
  const [format, setFormat] = useState<OutputFormat>(DEFAULT_OUTPUT_FORMAT);
  const [result, setResult] = useState<{ data: EnhanceResponse; meta: EnhanceMeta } | null>(null);
  const [error, setError] = useState<ClientError | null>(null);
  const [canceled, setCanceled] = useState<{ started: boolean } | null>(null);
  const [quota, setQuota] = useState<Quota | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const [resizing, setResizing] = useState(false);
  const [history, setHistory] = useState<EnhanceHistoryItem[]>([]);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [historyError, setHistoryError] = useState<string | null>(null);
  const job = useJob<EnhanceResponse, EnhanceMeta>("enhance", "enhance", {
    onSucceeded: (data, meta) => {
      setResult({ data, meta });
      const item: EnhanceHistoryItem = {
        id: data.id,
        url: data.url,
        originalSize: data.original_size,
        enhancedSize: data.enhanced_size,
        strength: data.strength,
        scale: data.scale,
        model: data.model,
        engine: data.engine,
        fileName: meta.fileName,
        createdAt: new Date().toISOString(),
        expiresAt: data.expires_at,
        deleteToken: data.delete_token,
      };
      setHistory((h) => saveEnhanceHistory([item, ...h.filter((x) => x.id !== item.id)]));
      setAnnouncement(`Enhanced from ${data.original_size} to ${data.enhanced_size}.`);
    },
    onFailed: (err, failedQuota) => {
      setError(err);
      setAnnouncement(writeErrorCopy(err, { quota: failedQuota, now: Date.now(), noun: "enhancements" }).title);
    },
    onCanceled: (started) => {
      setCanceled({ started });
      const copy = describeCancel("enhance", started);
      setAnnouncement(`${copy.title}. ${copy.detail}`);
    },
    onQuota: setQuota,
    onAnnounce: setAnnouncement,
  });
  const startedAt = job.state?.startedAt ?? null;
  const elapsed = useElapsed(startedAt);
  const limits = useMemo(() => uploadLimitsFrom(status), [status]);
  // Read through a ref so onFile stays stable (the ?src hand-off runs once) yet always checks the latest limits.
  const limitsRef = useRef(limits);
  useEffect(() => {
    limitsRef.current = limits;
  }, [limits]);
  // A resize takes a moment; a newer pick in the meantime wins over the older one's late result.
  const pickSeq = useRef(0);

  useEffect(() => setHistory(loadEnhanceHistory()), []);

  async function remove(item: EnhanceHistoryItem) {
    if (deleting || !item.deleteToken) return;
    setDeleting(item.id);
    setHistoryError(null);
    const res = await deleteImageCall(item.id, { deleteToken: item.deleteToken });
    setDeleting(null);
    // Already gone (expired, or deleted elsewhere) is as good as deleted.
    if (res.ok || res.error.status === 404) {
      setHistory((h) => saveEnhanceHistory(h.filter((x) => x.id !== item.id)));
      if (result?.data.id === item.id) setResult(null);
      setAnnouncement("Enhanced image deleted.");
    } else {
      setHistoryError(`Couldn't delete that image: ${res.error.message}`);
    }
  }

  useEffect(() => {
    if (status?.enhance && !quota) {
      setQuota({
        limit: status.enhance.limit_today,
        remaining: status.enhance.remaining,
        resetAtMs: Date.parse(status.reset_at),
      });
    }
  }, [status, quota]);

  const onFile = useCallback(async (file: File) => {
    const seq = ++pickSeq.current;
    const picked = await pickImage(file, limitsRef.current, () => {
      setResizing(true);
      setFileError(null);
      setAnnouncement(`Resizing ${file.name || "your image"} to fit the upload limit…`);
    });
    if (seq !== pickSeq.current) {
      if (picked.ok) URL.revokeObjectURL(picked.image.previewUrl);
      return;
    }
    setResizing(false);
    setResult(null);
    setError(null);
    setCanceled(null);
    if (!picked.ok) {
      setFileError(picked.message);
      setAnnouncement(picked.message);
      return;
    }
    setFileError(null);
    setImage((old) => {
      if (old) URL.revokeObjectURL(old.previewUrl);
      return picked.image;
    });
    setAnnouncement(
      picked.image.resized
        ? `${picked.image.resized.message} Ready to enhance.`
        : `${file.name || "Image"} ready to enhance.`,
    );
  }, []);

  useEffect(() => {
    // "Enhance this" from the studio passes the generated image's URL.
    const src = new URLSearchParams(window.location.search).get("src");
    if (!src) return;
    void fetchAsFile(src).then((file) => {
      if (file) void onFile(file);
      else setFileError("Couldn't load that image. Download it and upload it here instead.");
    });
  }, [onFile]);

  async function enhance() {
    if (!image || job.state) return;
    setError(null);
    setResult(null);
    setCanceled(null);
    const form = new FormData();
    form.append("image", image.file, image.file.name || "upload");
    form.append("strength", String(strength));
    form.append("scale", String(scale));
    form.append("model", model);
    for (const [k, v] of Object.entries(formatFields(format))) form.append(k, v);
    await job.start(
      "/api/enhance",
      { method: "POST", body: form },
      { fileName: image.file.name, ...(image.resized && { resizedFrom: image.resized.from }) },
    );
  }

  const [ew, eh] = (result?.data.enhanced_size ?? "0x0").split("x").map(Number);
  return (
    <div className="mx-auto max-w-6xl px-3 py-6 sm:px-6 sm:py-8">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Enhance</h1>
          <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">
            Upscale a photo 2× or 4× and sharpen its detail.
          </p>
        </div>
        <div className="sm:w-[28rem]">
          <UsageMeter quota={quota} noun="enhancements" plan={status?.plan} />
        </div>
      </div>

      <div className="mt-6 grid gap-6 lg:grid-cols-12">
        <div className="space-y-5 lg:col-span-5">
          <DropZone
            onFile={(f) => void onFile(f)}
            disabled={startedAt !== null}
            compact={image !== null}
            limits={limits}
          />
          {resizing && (
            <p className="flex items-center gap-2 text-sm text-stone-700 dark:text-stone-300" data-testid="resizing">
              <Spinner /> Resizing in your browser…
            </p>
          )}
          {!resizing && !fileError && image?.resized && <ResizeNotice note={image.resized} />}
          {fileError && (
            <p
              className="rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-100"
              data-testid="file-error"
            >
              {fileError}
            </p>
          )}
          <section aria-labelledby="settings-heading" className={`${panel} space-y-5 p-4`}>
            <h2 id="settings-heading" className="text-base font-semibold">
              Settings
            </h2>
            <EnhanceOptions
              strength={strength}
              onStrength={setStrength}
              scale={scale}
              onScale={setScale}
              model={model}
              onModel={setModel}
            />
            <FormatPicker value={format} onChange={setFormat} />
            <button
              type="button"
              className={`${primaryButton} w-full py-3 text-base`}
              disabled={!image || resizing || startedAt !== null}
              onClick={() => void enhance()}
              data-testid="enhance"
            >
              {startedAt !== null ? (
                <>
                  <Spinner /> Enhancing… <span className="tabular-nums">{elapsed.toFixed(1)} s</span>
                </>
              ) : (
                "Enhance"
              )}
            </button>
            {!image && (
              <p className="text-center text-xs text-stone-600 dark:text-stone-400">
                Choose an image to enable Enhance.
              </p>
            )}
            {job.state && (
              <JobProgress kind="enhance" state={job.state} onCancel={() => void job.cancel()} showElapsed={false} />
            )}
            {error && (
              <ErrorNotice
                error={error}
                quota={quota}
                noun="enhancements"
                onRetry={image ? () => void enhance() : undefined}
              />
            )}
            {canceled && <CancelNotice kind="enhance" started={canceled.started} />}
          </section>
        </div>

        <section aria-labelledby="preview-heading" className={`${panel} p-3 sm:p-4 lg:col-span-7`}>
          <h2 id="preview-heading" className="sr-only">
            {result && image ? "Before and after" : result ? "Result" : "Preview"}
          </h2>
          {result && image ? (
            <>
              <CompareSlider before={image.previewUrl} after={result.data.url} width={ew} height={eh} />
              <EnhanceResult result={result.data} fileName={image.file.name} resizedFrom={image.resized?.from} />
            </>
          ) : result ? (
            // Finished after a reload: the upload itself is not kept, so there is nothing to compare against.
            <figure>
              <div className="bg-checker overflow-hidden rounded-xl">
                {/* eslint-disable-next-line @next/next/no-img-element -- CDN images are already final PNGs */}
                <img
                  src={result.data.url}
                  alt={`Enhanced ${result.meta.fileName || "image"}`}
                  width={ew}
                  height={eh}
                  className="mx-auto block h-auto max-h-[70vh] w-auto max-w-full"
                  data-testid="enhanced-image"
                />
              </div>
              <figcaption className="mt-2 text-sm text-stone-600 dark:text-stone-400">
                Your original isn&apos;t kept across a page reload, so only the enhanced image is shown.
              </figcaption>
              <EnhanceResult
                result={result.data}
                fileName={result.meta.fileName}
                resizedFrom={result.meta.resizedFrom}
              />
            </figure>
          ) : image ? (
            <figure>
              <div className={`bg-checker overflow-hidden rounded-xl ${startedAt !== null ? "animate-pulse" : ""}`}>
                {/* eslint-disable-next-line @next/next/no-img-element -- local object URL of the upload */}
                <img
                  src={image.previewUrl}
                  alt="Your upload"
                  className="mx-auto block h-auto max-h-[70vh] w-auto max-w-full"
                  data-testid="upload-preview"
                />
              </div>
              <figcaption className="mt-2 text-sm text-stone-600 dark:text-stone-400">
                <span className="font-medium text-stone-800 dark:text-stone-200">
                  {image.file.name || "Pasted image"}
                </span>
                {image.width > 0 && ` · ${image.width}×${image.height}`} ·{" "}
                {formatBytes(image.file.size, byteBaseFor(limits.maxBytes))}
                {image.resized && " · resized in your browser"}
              </figcaption>
            </figure>
          ) : (
            <div
              className="flex aspect-[4/3] items-center justify-center rounded-xl border-2 border-dashed border-stone-300 p-6 text-center text-sm text-stone-600 dark:border-stone-700 dark:text-stone-400"
              data-testid="preview-empty"
            >
              {job.state ? (
                <div className="max-w-xs">
                  <p className="font-medium text-stone-800 dark:text-stone-200">Still enhancing your photo</p>
                  <p className="mt-1">
                    It was sent before this page reloaded; the result appears here when it is ready.
                  </p>
                </div>
              ) : (
                <div className="max-w-xs">
                  <p className="font-medium text-stone-800 dark:text-stone-200">Your before/after appears here</p>
                  <p className="mt-1">Upload a photo to preview it, then press Enhance.</p>
                </div>
              )}
            </div>
          )}
        </section>
      </div>
      <EnhanceHistory
        items={history}
        onDelete={(item) => void remove(item)}
        deleting={deleting}
        onClear={() => setHistory(saveEnhanceHistory([]))}
        error={historyError}
      />
      <p className="sr-only" role="status" aria-live="polite" data-testid="announcer">
        {announcement}
      </p>
    </div>
  );
}
