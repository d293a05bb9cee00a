// The studio: prompt, pickers, Generate, result, history and quota, all through the public /api routes.
// Two modes: text to image, and Edit (an uploaded, pasted, dropped or earlier image, with a painted mask and a
// strength, sent as multipart). Every request can ask for 1 to 4 images and an output format.
// History items can be reused (their settings fill the form), edited, and deleted (with the image's delete token, or
// with a pasted Pro key, whose images then come from the server).
"use client";
import { useMemo, useRef } from "react";
import { uploadLimitsFrom } from "@/lib/client/upload-rules";
import { useEditSource } from "@/lib/client/use-edit-source";
import { useKeyLibrary } from "@/lib/client/use-key-library";
import { useStatus } from "@/lib/client/use-status";
import type { MaskHandle } from "./mask-painter";
import { ModeSwitch } from "./mode-switch";
import type { ModelOption } from "./model-picker";
import { StudioEdit, StudioFormSection, StudioHeader, StudioHistory, StudioResult } from "./studio-sections";
import {
  generate,
  useEditOpener,
  useGenerateJob,
  useHistoryActions,
  useSavedHistory,
  useStudioForm,
  useStudioNotices,
  useStudioOptions,
  useStudioQuota,
} from "./studio-state";
import type { StyleOption } from "./style-picker";

type Props = {
  /** From the catalog, so the pickers render before /api/status answers. */
  fallbackModels: ModelOption[];
  fallbackStyles: StyleOption[];
  fallbackRatios: string[];
  defaults: { model: string; style: string; ratio: string };
};

export function Studio({ fallbackModels, fallbackStyles, fallbackRatios, defaults }: Props) {
  const { status, error: statusError } = useStatus();
  const f = useStudioForm(defaults);
  const library = useKeyLibrary();
  const n = useStudioNotices();
  const promptRef = useRef<HTMLTextAreaElement>(null);
  const resultRef = useRef<HTMLDivElement>(null);
  const editRef = useRef<HTMLDivElement>(null);
  const maskRef = useRef<MaskHandle | null>(null);
  const limits = useMemo(() => uploadLimitsFrom(status), [status]);
  const edit = useEditSource(limits, n.setAnnouncement);
  const saved = useSavedHistory();
  const openEdit = useEditOpener(f, edit, editRef);
  const { quota, setQuota } = useStudioQuota(status, library.key);
  const options = useStudioOptions(status, { models: fallbackModels, styles: fallbackStyles, ratios: fallbackRatios });
  const job = useGenerateJob(f, n, saved, library, setQuota, resultRef);
  const actions = useHistoryActions(f, n, saved, options, library, promptRef);
  const startedAt = job.state?.startedAt ?? null;
  const parts = { job, edit, library, promptRef, resultRef, editRef, maskRef };
  const onGenerate = () => void generate(f, n, parts);
  const editItem = (item: { url: string; prompt: string }) => void openEdit({ url: item.url, label: item.prompt });
  const { mode } = f;

  return (
    <div className="mx-auto max-w-6xl px-3 py-6 sm:px-6 sm:py-8">
      <StudioHeader quota={quota} plan={library.key ? "pro" : status?.plan} statusError={statusError} />

      <div className="mt-6 max-w-md">
        <ModeSwitch
          value={mode}
          onChange={(m) => {
            f.setMode(m);
            f.setEditProblem(null);
          }}
        />
      </div>

      {/* In Edit mode the painter comes first on phones, and sits big on the right above the results on wide screens. */}
      <div
        className={`mt-6 grid gap-6 lg:grid-cols-12 lg:items-start ${mode === "edit" ? "lg:grid-rows-[auto_1fr]" : ""}`}
      >
        {mode === "edit" && (
          <StudioEdit
            f={f}
            edit={edit}
            limits={limits}
            busy={startedAt !== null}
            editRef={editRef}
            maskRef={maskRef}
            onFile={(file) => void openEdit({ file })}
          />
        )}
        <StudioFormSection
          f={f}
          n={n}
          options={options}
          quota={quota}
          startedAt={startedAt}
          promptRef={promptRef}
          onGenerate={onGenerate}
        />
        <StudioResult
          mode={mode}
          ratio={f.ratio}
          batch={saved.batch}
          job={job}
          resultRef={resultRef}
          onEdit={editItem}
        />
      </div>

      <StudioHistory saved={saved} library={library} actions={actions} resultRef={resultRef} onEdit={editItem} />
      <p className="sr-only" role="status" aria-live="polite" data-testid="announcer">
        {n.announcement}
      </p>
    </div>
  );
}
