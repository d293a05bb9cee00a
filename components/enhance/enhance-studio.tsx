// The enhance page: pick a photo and a mode, tune strength, scale and format, enhance, then compare and download.
"use client";
import { useCallback, useMemo, useState } from "react";
import { Spinner } from "@/components/ui/spinner";
import { UsageMeter } from "@/components/ui/usage-meter";
import { DEFAULT_ENHANCE_MODE } from "@/lib/catalog/enhance-modes";
import { DEFAULT_OUTPUT_FORMAT, type OutputFormat } from "@/lib/client/output-format";
import { uploadLimitsFrom } from "@/lib/client/upload-rules";
import { useStatus } from "@/lib/client/use-status";
import { DEFAULT_STRENGTH } from "@/lib/schemas/enhance-rules";
import { DropZone } from "./drop-zone";
import { EnhanceHistory } from "./enhance-history";
import type { EnhanceSettingsValue } from "./enhance-options";
import { EnhancePreview } from "./enhance-preview";
import { EnhanceSettings } from "./enhance-settings";
import { modeOptions } from "./mode-picker";
import { ResizeNotice } from "./resize-notice";
import { historyItemOf, useEnhanceHistory } from "./use-enhance-history";
import { enhanceForm, useEnhanceJob } from "./use-enhance-job";
import { usePickedImage } from "./use-picked-image";

const INITIAL: EnhanceSettingsValue = { strength: DEFAULT_STRENGTH, scale: 2, model: DEFAULT_ENHANCE_MODE, prompt: "" };

export function EnhanceStudio() {
  const { status } = useStatus();
  const [settings, setSettings] = useState(INITIAL);
  const [format, setFormat] = useState<OutputFormat>(DEFAULT_OUTPUT_FORMAT);
  const [announcement, announce] = useState("");
  const modes = useMemo(() => modeOptions(status), [status]);
  const limits = useMemo(() => uploadLimitsFrom(status), [status]);
  const history = useEnhanceHistory((id) => {
    run.dropResult(id);
    announce("Enhanced image deleted.");
  });
  const run = useEnhanceJob(status, ({ data, meta }) => history.add(historyItemOf(data, meta.fileName)), announce);
  const picked = usePickedImage(limits, run.reset, announce);
  const { image } = picked;
  const running = run.job.state !== null;
  const onSettings = useCallback(
    (patch: Partial<EnhanceSettingsValue>) => setSettings((s) => ({ ...s, ...patch })),
    [],
  );
  const enhance = () => {
    if (image)
      void run.start(
        image,
        enhanceForm(
          image,
          settings,
          format,
          modes.find((m) => m.name === settings.model),
        ),
      );
  };

  return (
    <div className="mx-auto max-w-6xl px-3 py-6 sm:px-6 sm:py-8">
      <EnhanceHeader quota={run.quota} plan={status?.plan} />

      <div className="mt-6 grid gap-6 lg:grid-cols-12">
        <div className="space-y-5 lg:col-span-5">
          <DropZone onFile={(f) => void picked.onFile(f)} disabled={running} compact={image !== null} limits={limits} />
          <PickNotices picked={picked} />
          <EnhanceSettings
            settings={settings}
            onSettings={onSettings}
            modes={modes}
            format={format}
            onFormat={setFormat}
            run={run}
            hasImage={image !== null}
            resizing={picked.resizing}
            onEnhance={enhance}
          />
        </div>
        <EnhancePreview
          result={run.result}
          image={image}
          running={running}
          following={running && image === null}
          limits={limits}
        />
      </div>
      <EnhanceHistory
        items={history.items}
        onDelete={(item) => void history.remove(item)}
        deleting={history.deleting}
        onClear={history.clear}
        error={history.error}
      />
      <p className="sr-only" role="status" aria-live="polite" data-testid="announcer">
        {announcement}
      </p>
    </div>
  );
}

function EnhanceHeader(props: Pick<Parameters<typeof UsageMeter>[0], "quota" | "plan">) {
  return (
    <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
      <div>
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Enhance</h1>
        <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">
          Upscale a photo 2× or 4×: sharpen its detail, restore faces, or let a model invent new detail.
        </p>
      </div>
      <div className="sm:w-[28rem]">
        <UsageMeter quota={props.quota} noun="enhancements" plan={props.plan} />
      </div>
    </div>
  );
}

/** The pick's state under the drop zone: resizing, resized, or refused. */
function PickNotices({ picked }: { picked: ReturnType<typeof usePickedImage> }) {
  if (picked.resizing) {
    return (
      <p className="flex items-center gap-2 text-sm text-stone-700 dark:text-stone-300" data-testid="resizing">
        <Spinner /> Resizing in your browser…
      </p>
    );
  }
  if (picked.fileError) {
    return (
      <p
        className="rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-100"
        data-testid="file-error"
      >
        {picked.fileError}
      </p>
    );
  }
  return picked.image?.resized ? <ResizeNotice note={picked.image.resized} /> : null;
}
