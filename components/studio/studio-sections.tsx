// The studio's sections: the header with the meter, the form, the result column and the history with the key form.
"use client";
import type { FormEvent, ReactNode, RefObject } from "react";
import { CancelNotice } from "@/components/ui/cancel-notice";
import { ErrorNotice } from "@/components/ui/error-notice";
import { FormatPicker } from "@/components/ui/format-picker";
import { JobProgress } from "@/components/ui/job-progress";
import { UsageMeter } from "@/components/ui/usage-meter";
import type { ClientError, Quota } from "@/lib/client/api";
import { type HistoryItem, saveHistory } from "@/lib/client/history";
import type { UploadLimits } from "@/lib/client/upload-rules";
import type { useEditSource } from "@/lib/client/use-edit-source";
import type { KeyLibrary } from "@/lib/client/use-key-library";
import { CountPicker } from "./count-picker";
import { EditPanel } from "./edit-panel";
import { GenerateButton } from "./generate-button";
import { HistoryStrip } from "./history-strip";
import type { MaskHandle } from "./mask-painter";
import { ModelPicker } from "./model-picker";
import { ProKeyForm } from "./pro-key-form";
import { PromptField } from "./prompt-field";
import { RatioPicker } from "./ratio-picker";
import { ResultPanel } from "./result-panel";
import { SeedField } from "./seed-field";
import type { GenerateJob, SavedHistory, StudioForm, StudioNotices, StudioOptions } from "./studio-state";
import { StylePicker } from "./style-picker";

export function StudioHeader(props: {
  quota: Quota | null;
  plan: "free" | "pro" | undefined;
  statusError: ClientError | null;
}) {
  const { quota, plan, statusError } = props;
  return (
    <>
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Studio</h1>
          <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">
            Describe an image and generate it, or edit one of yours: paint over what should change.
          </p>
        </div>
        <div className="sm:w-[28rem]">
          <UsageMeter quota={quota} noun="generations" plan={plan} />
        </div>
      </div>

      {statusError && (
        <p
          className="mt-4 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950/50 dark:text-amber-100"
          role="status"
        >
          Couldn&apos;t load the service status ({statusError.message}). You can still generate; the usage meter updates
          after your first image.
        </p>
      )}
    </>
  );
}

export function StudioEdit(props: {
  f: StudioForm;
  edit: ReturnType<typeof useEditSource>;
  limits: UploadLimits;
  busy: boolean;
  editRef: RefObject<HTMLDivElement | null>;
  maskRef: RefObject<MaskHandle | null>;
  onFile: (file: File) => void;
}) {
  const { f, edit, editRef } = props;
  return (
    <div ref={editRef} className="scroll-mt-4 lg:col-span-7 lg:col-start-6 lg:row-start-1">
      <EditPanel
        source={edit.source?.image ?? null}
        sourceLabel={edit.source?.label ?? ""}
        onFile={props.onFile}
        onRemove={edit.clear}
        limits={props.limits}
        loading={edit.loading}
        error={edit.error ?? f.editProblem}
        busy={props.busy}
        strength={f.strength}
        onStrength={f.setStrength}
        maskRef={props.maskRef}
      />
    </div>
  );
}

export function StudioFormSection(props: {
  f: StudioForm;
  n: StudioNotices;
  options: StudioOptions;
  quota: Quota | null;
  startedAt: number | null;
  promptRef: RefObject<HTMLTextAreaElement | null>;
  onGenerate: () => void;
}) {
  const { f, n, options, quota, startedAt, promptRef, onGenerate } = props;
  const { mode } = f;
  function onSubmit(e: FormEvent) {
    e.preventDefault();
    onGenerate();
  }
  return (
    <form
      onSubmit={onSubmit}
      noValidate
      className={`space-y-6 lg:col-span-5 lg:col-start-1 lg:row-start-1 ${mode === "edit" ? "lg:row-span-2" : ""}`}
      aria-label={mode === "edit" ? "Edit the image" : "Generate an image"}
    >
      <PromptField
        value={f.prompt}
        onChange={(v) => {
          f.setPrompt(v);
          if (f.promptError) f.setPromptError(null);
        }}
        error={f.promptError}
        inputRef={promptRef}
        onSubmitShortcut={onGenerate}
        placeholder={mode === "edit" ? "Describe the change: a stormy sky, a red door, snow on the roof" : undefined}
      />
      <div className="space-y-3">
        <GenerateButton startedAt={startedAt} />
        {n.error && <ErrorNotice error={n.error} quota={quota} noun="generations" onRetry={onGenerate} />}
        {n.canceled && <CancelNotice kind="generate" started={n.canceled.started} />}
      </div>
      <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-1">
        <CountPicker value={f.count} onChange={f.setCount} />
        <FormatPicker value={f.format} onChange={f.setFormat} />
      </div>
      <StylePicker styles={options.styles} value={f.style} onChange={f.setStyle} />
      {mode === "text" && <RatioPicker ratios={options.ratios} value={f.ratio} onChange={f.setRatio} />}
      <ModelPicker
        models={options.models}
        value={f.model}
        onChange={f.setModel}
        needs={mode === "edit" ? "image" : null}
      />
      <SeedField
        value={f.seed}
        onChange={(v) => {
          f.setSeed(v);
          if (f.seedError) f.setSeedError(null);
        }}
        error={f.seedError}
      />
    </form>
  );
}

export function StudioResult(props: {
  mode: StudioForm["mode"];
  ratio: string;
  batch: HistoryItem[];
  job: GenerateJob;
  resultRef: RefObject<HTMLDivElement | null>;
  onEdit: (item: HistoryItem) => void;
}) {
  const { mode, ratio, batch, job, resultRef, onEdit } = props;
  const startedAt = job.state?.startedAt ?? null;
  return (
    <div
      ref={resultRef}
      className={`lg:col-span-7 lg:col-start-6 ${mode === "edit" ? "lg:row-start-2" : "lg:row-start-1"}`}
    >
      <div className="lg:sticky lg:top-4">
        <ResultPanel
          items={batch}
          onEdit={onEdit}
          emptyHint={
            mode === "edit"
              ? "Choose an image, paint over what should change (or nothing, to change it all), describe the change, then press Generate."
              : undefined
          }
          startedAt={startedAt}
          ratio={ratio}
          progress={job.state && <JobProgress kind="generate" state={job.state} onCancel={() => void job.cancel()} />}
        />
      </div>
    </div>
  );
}

export function StudioHistory(props: {
  saved: SavedHistory;
  library: KeyLibrary;
  actions: {
    deleting: string | null;
    historyError: string | null;
    reuse: (item: HistoryItem) => void;
    remove: (item: HistoryItem) => Promise<void>;
  };
  resultRef: RefObject<HTMLDivElement | null>;
  onEdit: (item: HistoryItem) => void;
}) {
  const { saved, library, actions, resultRef, onEdit } = props;
  const keyForm: ReactNode = (
    <>
      <ProKeyForm active={library.key !== null} onUse={library.use} onForget={library.forget} />
      {(actions.historyError ?? library.error) && (
        <p className="mt-1 text-sm font-medium text-red-700 dark:text-red-300" role="alert">
          {actions.historyError ?? library.error}
        </p>
      )}
    </>
  );
  return (
    <HistoryStrip
      items={library.key ? library.items : saved.history}
      source={library.key ? "key" : "browser"}
      currentIds={saved.batch.map((b) => b.id)}
      onSelect={(item) => {
        saved.setBatch([item]);
        resultRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
      }}
      onClear={() => {
        saved.setHistory(saveHistory([]));
        saved.setBatch([]);
      }}
      onReuse={actions.reuse}
      onEdit={onEdit}
      onDelete={(item) => void actions.remove(item)}
      deleting={actions.deleting}
      onLoadMore={library.hasMore ? library.loadMore : undefined}
      loading={library.loading}
      keyForm={keyForm}
    />
  );
}
