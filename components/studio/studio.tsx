// The studio: prompt, pickers, Generate, result, history and quota, all through the public /api routes.
// Two modes: text to image, and Edit (an uploaded, pasted, dropped or earlier image, with a painted mask and a
// strength, sent as multipart). Every request can ask for 1 to 4 images and an output format.
// History items can be reused (their settings fill the form), edited, and deleted (with the image's delete token, or
// with a pasted Pro key, whose images then come from the server).
"use client";
import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { CancelNotice } from "@/components/ui/cancel-notice";
import { ErrorNotice } from "@/components/ui/error-notice";
import { FormatPicker } from "@/components/ui/format-picker";
import { JobProgress } from "@/components/ui/job-progress";
import { UsageMeter } from "@/components/ui/usage-meter";
import { type ClientError, callApi, type Quota } from "@/lib/client/api";
import { writeErrorCopy } from "@/lib/client/error-copy";
import { type GenerateAnswer, generateBody, historyItemsOf, type SentMeta } from "@/lib/client/generate-call";
import { type HistoryItem, loadHistory, saveHistory } from "@/lib/client/history";
import { authHeader, deleteImageCall } from "@/lib/client/images";
import { describeCancel } from "@/lib/client/job-copy";
import { DEFAULT_OUTPUT_FORMAT, type OutputFormat } from "@/lib/client/output-format";
import { asEditUpload } from "@/lib/client/picked-image";
import { uploadLimitsFrom } from "@/lib/client/upload-rules";
import { useEditSource } from "@/lib/client/use-edit-source";
import { useJob } from "@/lib/client/use-job";
import { useKeyLibrary } from "@/lib/client/use-key-library";
import { useStatus } from "@/lib/client/use-status";
import type { StatusResponse } from "@/lib/schemas/status";
import { type Count, CountPicker } from "./count-picker";
import { EditPanel } from "./edit-panel";
import { GenerateButton } from "./generate-button";
import { HistoryStrip } from "./history-strip";
import type { MaskHandle } from "./mask-painter";
import { ModeSwitch, type StudioMode } from "./mode-switch";
import { type ModelOption, ModelPicker } from "./model-picker";
import { ProKeyForm } from "./pro-key-form";
import { PromptField, promptProblem } from "./prompt-field";
import { RatioPicker } from "./ratio-picker";
import { ResultPanel } from "./result-panel";
import { parseSeed, SeedField } from "./seed-field";
import { DEFAULT_EDIT_STRENGTH } from "./strength-slider";
import { type StyleOption, StylePicker } from "./style-picker";

/** What a reload needs to show the job again: the form as it was sent, and the prompt for the history. */
type GenerateMeta = SentMeta & {
  model: string;
  style: string;
  ratio: string;
  seed: string;
  n?: Count;
  format?: OutputFormat;
};

type Props = {
  /** From the catalog, so the pickers render before /api/status answers. */
  fallbackModels: ModelOption[];
  fallbackStyles: StyleOption[];
  fallbackRatios: string[];
  defaults: { model: string; style: string; ratio: string };
};

export function Studio({ fallbackModels, fallbackStyles, fallbackRatios, defaults }: Props) {
  const { status, error: statusError } = useStatus();
  const [prompt, setPrompt] = useState("");
  const [promptError, setPromptError] = useState<string | null>(null);
  const [model, setModel] = useState(defaults.model);
  const [style, setStyle] = useState(defaults.style);
  const [ratio, setRatio] = useState(defaults.ratio);
  const [seed, setSeed] = useState("");
  const [seedError, setSeedError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [historyError, setHistoryError] = useState<string | null>(null);
  const library = useKeyLibrary();
  const [error, setError] = useState<ClientError | null>(null);
  const [canceled, setCanceled] = useState<{ started: boolean } | null>(null);
  const [quota, setQuota] = useState<Quota | null>(null);
  const [history, setHistory] = useState<HistoryItem[]>([]);
  /** The latest request's images, or the history item picked. */
  const [batch, setBatch] = useState<HistoryItem[]>([]);
  const [announcement, setAnnouncement] = useState("");
  const [mode, setMode] = useState<StudioMode>("text");
  const [strength, setStrength] = useState(DEFAULT_EDIT_STRENGTH);
  const [count, setCount] = useState<Count>(1);
  const [format, setFormat] = useState<OutputFormat>(DEFAULT_OUTPUT_FORMAT);
  const [editProblem, setEditProblem] = useState<string | null>(null);
  const promptRef = useRef<HTMLTextAreaElement>(null);
  const resultRef = useRef<HTMLDivElement>(null);
  const editRef = useRef<HTMLDivElement>(null);
  const maskRef = useRef<MaskHandle | null>(null);
  const limits = useMemo(() => uploadLimitsFrom(status), [status]);
  const edit = useEditSource(limits, setAnnouncement);
  const { fromFile, fromUrl } = edit;

  useEffect(() => {
    const saved = loadHistory();
    setHistory(saved);
    setBatch(saved.slice(0, 1));
  }, []);

  /** Edit mode with an image: a file (upload, paste, drop) or an earlier result's URL. */
  const openEdit = useCallback(
    (from: { file: File } | { url: string; label: string }) => {
      setMode("edit");
      setEditProblem(null);
      window.requestAnimationFrame(() => editRef.current?.scrollIntoView({ block: "start", behavior: "smooth" }));
      return "file" in from ? fromFile(from.file) : fromUrl(from.url, from.label);
    },
    [fromFile, fromUrl],
  );

  // "Edit" on the enhance page's history hands the image over as ?edit=<url>.
  useEffect(() => {
    const src = new URLSearchParams(window.location.search).get("edit");
    if (src) void openEdit({ url: src, label: "Image from the enhance page" });
  }, [openEdit]);

  // Pasting an image while creating from text starts an edit of it; in Edit mode the drop zone takes pastes.
  useEffect(() => {
    if (mode !== "text") return;
    const onPaste = (e: ClipboardEvent) => {
      const file = Array.from(e.clipboardData?.files ?? []).find((f) => f.type.startsWith("image/"));
      if (!file) return;
      e.preventDefault();
      void openEdit({ file });
    };
    window.addEventListener("paste", onPaste);
    return () => window.removeEventListener("paste", onPaste);
  }, [mode, openEdit]);

  useEffect(() => {
    if (status && !quota)
      setQuota({ limit: status.limit_today, remaining: status.remaining, resetAtMs: Date.parse(status.reset_at) });
  }, [status, quota]);

  // With a Pro key the meter shows the key's daily requests.
  useEffect(() => {
    if (!library.key) return;
    void callApi<StatusResponse>("/api/status", { headers: authHeader(library.key) }).then((res) => {
      if (res.ok) {
        setQuota({
          limit: res.data.limit_today,
          remaining: res.data.remaining,
          resetAtMs: Date.parse(res.data.reset_at),
        });
      }
    });
  }, [library.key]);

  const models: ModelOption[] = useMemo(
    () =>
      status?.models.map((m) => ({
        name: m.name,
        family: m.family,
        description: m.description,
        engine: m.engine,
        ai: m.ai,
        // Contract 1.2: what each model's configured routes take.
        inputs: (m as { inputs?: string[] }).inputs,
      })) ?? fallbackModels,
    [status, fallbackModels],
  );
  const styles = status?.styles ?? fallbackStyles;
  const ratios = status?.ratios ?? fallbackRatios;

  const job = useJob<GenerateAnswer, GenerateMeta>("studio", "generate", {
    onSucceeded: (d, meta) => {
      const items = historyItemsOf(d, meta);
      const ids = new Set(items.map((i) => i.id));
      setHistory((h) => saveHistory([...items, ...h.filter((x) => !ids.has(x.id))]));
      if (library.key) for (const item of [...items].reverse()) library.prepend(item);
      setBatch(items);
      const made = items.length === 1 ? "Image ready." : `${items.length} images ready.`;
      const label = d.ai ? "" : " Made by the preview engine, not AI.";
      setAnnouncement(`${made}${label} ${d.remaining} ${library.key ? "" : "free "}generations left today.`);
      window.requestAnimationFrame(() => resultRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" }));
    },
    onFailed: (err, failedQuota) => {
      setError(err);
      setAnnouncement(writeErrorCopy(err, { quota: failedQuota, now: Date.now(), noun: "generations" }).title);
    },
    onCanceled: (started) => {
      setCanceled({ started });
      const copy = describeCancel("generate", started);
      setAnnouncement(`${copy.title}. ${copy.detail}`);
    },
    onQuota: setQuota,
    onAnnounce: setAnnouncement,
    onReattach: (meta) => {
      // The form shows what is being made, as it did before the reload.
      setPrompt(meta.prompt);
      setModel(meta.model);
      setStyle(meta.style);
      setRatio(meta.ratio);
      setSeed(meta.seed ?? "");
      if (meta.n) setCount(meta.n);
      if (meta.format) setFormat(meta.format);
    },
  });
  const startedAt = job.state?.startedAt ?? null;

  async function generate() {
    if (job.state) return;
    const problem = promptProblem(prompt);
    if (problem) {
      setPromptError(problem);
      promptRef.current?.focus();
      return;
    }
    const parsedSeed = parseSeed(seed);
    if (parsedSeed.problem) {
      setSeedError(parsedSeed.problem);
      return;
    }
    const source = mode === "edit" ? edit.source : null;
    if (mode === "edit" && !source) {
      const problem = edit.loading
        ? "The image is still loading; press Generate again in a moment."
        : "Choose an image to edit first (or switch to Create from text).";
      setEditProblem(problem);
      setAnnouncement(problem);
      editRef.current?.scrollIntoView({ block: "start", behavior: "smooth" });
      return;
    }
    setPromptError(null);
    setSeedError(null);
    setEditProblem(null);
    setError(null);
    setCanceled(null);
    const mask = source ? ((await maskRef.current?.toBlob()) ?? null) : null;
    const editInput = source ? { image: await asEditUpload(source.image.file), mask, strength } : null;
    const { body, headers } = generateBody({
      prompt,
      model,
      style,
      ratio,
      seed: parsedSeed.seed,
      n: count,
      format,
      edit: editInput,
    });
    // On phones the result sits below the settings; bring the progress into view.
    resultRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
    await job.start(
      "/api/generate",
      { method: "POST", headers: { ...headers, ...(library.key ? authHeader(library.key) : {}) }, body },
      {
        prompt,
        model,
        style,
        ratio,
        seed,
        n: count,
        format,
        edit: editInput && { strength, masked: mask !== null },
      },
    );
  }

  function editItem(item: HistoryItem) {
    void openEdit({ url: item.url, label: item.prompt });
  }

  function reuse(item: HistoryItem) {
    setPrompt(item.prompt);
    setPromptError(null);
    if (models.some((m) => m.name === item.model)) setModel(item.model);
    if (styles.some((s) => s.name === item.style)) setStyle(item.style);
    if (ratios.includes(item.ratio)) setRatio(item.ratio);
    setSeed(item.seed === undefined ? "" : String(item.seed));
    setSeedError(null);
    setAnnouncement("The form now has that image's prompt, model, style, ratio and seed.");
    promptRef.current?.focus();
    promptRef.current?.scrollIntoView({ block: "center", behavior: "smooth" });
  }

  async function remove(item: HistoryItem) {
    if (deleting) return;
    const auth = library.key ? { key: library.key } : item.deleteToken ? { deleteToken: item.deleteToken } : null;
    if (!auth) return;
    setDeleting(item.id);
    setHistoryError(null);
    const res = await deleteImageCall(item.id, auth);
    setDeleting(null);
    // Already gone (expired, or deleted elsewhere) is as good as deleted.
    if (res.ok || res.error.status === 404) {
      setHistory((h) => saveHistory(h.filter((x) => x.id !== item.id)));
      library.remove(item.id);
      setBatch((b) => b.filter((x) => x.id !== item.id));
      setAnnouncement("Image deleted.");
    } else {
      setHistoryError(`Couldn't delete that image: ${res.error.message}`);
      setAnnouncement(`Couldn't delete that image: ${res.error.message}`);
    }
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    void generate();
  }

  return (
    <div className="mx-auto max-w-6xl px-3 py-6 sm:px-6 sm:py-8">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Studio</h1>
          <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">
            Describe an image and generate it, or edit one of yours: paint over what should change.
          </p>
        </div>
        <div className="sm:w-[28rem]">
          <UsageMeter quota={quota} noun="generations" plan={library.key ? "pro" : status?.plan} />
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

      <div className="mt-6 max-w-md">
        <ModeSwitch
          value={mode}
          onChange={(m) => {
            setMode(m);
            setEditProblem(null);
          }}
        />
      </div>

      {/* In Edit mode the painter comes first on phones, and sits big on the right above the results on wide screens. */}
      <div
        className={`mt-6 grid gap-6 lg:grid-cols-12 lg:items-start ${mode === "edit" ? "lg:grid-rows-[auto_1fr]" : ""}`}
      >
        {mode === "edit" && (
          <div ref={editRef} className="scroll-mt-4 lg:col-span-7 lg:col-start-6 lg:row-start-1">
            <EditPanel
              source={edit.source?.image ?? null}
              sourceLabel={edit.source?.label ?? ""}
              onFile={(file) => void openEdit({ file })}
              onRemove={edit.clear}
              limits={limits}
              loading={edit.loading}
              error={edit.error ?? editProblem}
              busy={startedAt !== null}
              strength={strength}
              onStrength={setStrength}
              maskRef={maskRef}
            />
          </div>
        )}
        <form
          onSubmit={onSubmit}
          noValidate
          className={`space-y-6 lg:col-span-5 lg:col-start-1 lg:row-start-1 ${mode === "edit" ? "lg:row-span-2" : ""}`}
          aria-label={mode === "edit" ? "Edit the image" : "Generate an image"}
        >
          <PromptField
            value={prompt}
            onChange={(v) => {
              setPrompt(v);
              if (promptError) setPromptError(null);
            }}
            error={promptError}
            inputRef={promptRef}
            onSubmitShortcut={() => void generate()}
            placeholder={
              mode === "edit" ? "Describe the change: a stormy sky, a red door, snow on the roof" : undefined
            }
          />
          <div className="space-y-3">
            <GenerateButton startedAt={startedAt} />
            {error && <ErrorNotice error={error} quota={quota} noun="generations" onRetry={() => void generate()} />}
            {canceled && <CancelNotice kind="generate" started={canceled.started} />}
          </div>
          <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-1">
            <CountPicker value={count} onChange={setCount} />
            <FormatPicker value={format} onChange={setFormat} />
          </div>
          <StylePicker styles={styles} value={style} onChange={setStyle} />
          {mode === "text" && <RatioPicker ratios={ratios} value={ratio} onChange={setRatio} />}
          <ModelPicker models={models} value={model} onChange={setModel} needs={mode === "edit" ? "image" : null} />
          <SeedField
            value={seed}
            onChange={(v) => {
              setSeed(v);
              if (seedError) setSeedError(null);
            }}
            error={seedError}
          />
        </form>
        <div
          ref={resultRef}
          className={`lg:col-span-7 lg:col-start-6 ${mode === "edit" ? "lg:row-start-2" : "lg:row-start-1"}`}
        >
          <div className="lg:sticky lg:top-4">
            <ResultPanel
              items={batch}
              onEdit={editItem}
              emptyHint={
                mode === "edit"
                  ? "Choose an image, paint over what should change (or nothing, to change it all), describe the change, then press Generate."
                  : undefined
              }
              startedAt={startedAt}
              ratio={ratio}
              progress={
                job.state && <JobProgress kind="generate" state={job.state} onCancel={() => void job.cancel()} />
              }
            />
          </div>
        </div>
      </div>

      <HistoryStrip
        items={library.key ? library.items : history}
        source={library.key ? "key" : "browser"}
        currentIds={batch.map((b) => b.id)}
        onSelect={(item) => {
          setBatch([item]);
          resultRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
        }}
        onClear={() => {
          setHistory(saveHistory([]));
          setBatch([]);
        }}
        onReuse={reuse}
        onEdit={editItem}
        onDelete={(item) => void remove(item)}
        deleting={deleting}
        onLoadMore={library.hasMore ? library.loadMore : undefined}
        loading={library.loading}
        keyForm={
          <>
            <ProKeyForm active={library.key !== null} onUse={library.use} onForget={library.forget} />
            {(historyError ?? library.error) && (
              <p className="mt-1 text-sm font-medium text-red-700 dark:text-red-300" role="alert">
                {historyError ?? library.error}
              </p>
            )}
          </>
        }
      />
      <p className="sr-only" role="status" aria-live="polite" data-testid="announcer">
        {announcement}
      </p>
    </div>
  );
}
