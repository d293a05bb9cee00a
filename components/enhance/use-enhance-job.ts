// One enhancement at a time as an async job: send the photo with the chosen settings, then hold the result, the
// error or the cancel, and the quota the answers report.
"use client";
import { useEffect, useState } from "react";
import type { ClientError, Quota } from "@/lib/client/api";
import { writeErrorCopy } from "@/lib/client/error-copy";
import { describeCancel } from "@/lib/client/job-copy";
import { formatFields, type OutputFormat } from "@/lib/client/output-format";
import type { PickedImage } from "@/lib/client/picked-image";
import { useJob } from "@/lib/client/use-job";
import type { EnhanceResponse } from "@/lib/schemas/enhance";
import type { StatusResponse } from "@/lib/schemas/status";
import type { EnhanceSettingsValue } from "./enhance-options";
import type { ModeOption } from "./mode-picker";

/** What a reload needs to show the result: the upload's name and, when resized here, its size as chosen. */
export type EnhanceMeta = { fileName: string; resizedFrom?: { width: number; height: number } };
export type EnhanceOutcome = { data: EnhanceResponse; meta: EnhanceMeta };

/** The form /api/enhance takes; the prompt goes only with a generative mode, where it steers the invention. */
export function enhanceForm(image: PickedImage, s: EnhanceSettingsValue, format: OutputFormat, mode?: ModeOption) {
  const form = new FormData();
  form.append("image", image.file, image.file.name || "upload");
  form.append("strength", String(s.strength));
  form.append("scale", String(s.scale));
  form.append("model", s.model);
  if (mode?.generative && s.prompt.trim()) form.append("prompt", s.prompt.trim());
  for (const [k, v] of Object.entries(formatFields(format))) form.append(k, v);
  return form;
}

export function useEnhanceJob(
  status: StatusResponse | null,
  onDone: (outcome: EnhanceOutcome) => void,
  announce: (text: string) => void,
) {
  const [result, setResult] = useState<EnhanceOutcome | null>(null);
  const [error, setError] = useState<ClientError | null>(null);
  const [canceled, setCanceled] = useState<{ started: boolean } | null>(null);
  const [quota, setQuota] = useState<Quota | null>(null);
  const job = useJob<EnhanceResponse, EnhanceMeta>("enhance", "enhance", {
    onSucceeded: (data, meta) => {
      setResult({ data, meta });
      onDone({ data, meta });
      announce(`Enhanced from ${data.original_size} to ${data.enhanced_size}.`);
    },
    onFailed: (err, failedQuota) => {
      setError(err);
      announce(writeErrorCopy(err, { quota: failedQuota, now: Date.now(), noun: "enhancements" }).title);
    },
    onCanceled: (started) => {
      setCanceled({ started });
      const copy = describeCancel("enhance", started);
      announce(`${copy.title}. ${copy.detail}`);
    },
    onQuota: setQuota,
    onAnnounce: announce,
  });

  useEffect(() => {
    if (status?.enhance && !quota) {
      setQuota({
        limit: status.enhance.limit_today,
        remaining: status.enhance.remaining,
        resetAtMs: Date.parse(status.reset_at),
      });
    }
  }, [status, quota]);

  /** Forgets the last outcome (a new photo, or a new run). */
  const reset = () => {
    setResult(null);
    setError(null);
    setCanceled(null);
  };

  async function start(image: PickedImage, form: FormData) {
    if (job.state) return;
    reset();
    const meta = { fileName: image.file.name, ...(image.resized && { resizedFrom: image.resized.from }) };
    await job.start("/api/enhance", { method: "POST", body: form }, meta);
  }

  /** Stops showing the result whose image was deleted. */
  const dropResult = (id: string) => setResult((r) => (r?.data.id === id ? null : r));

  return { job, result, error, canceled, quota, start, reset, dropResult };
}
