// The studio: prompt, pickers, Generate, result, history and quota, all through the public /api routes.
// History items can be reused (their settings fill the form) and deleted (with the image's delete token, or with a
// pasted Pro key, whose images then come from the server).
"use client";
import { type FormEvent, useEffect, useMemo, useRef, useState } from "react";
import { CancelNotice } from "@/components/ui/cancel-notice";
import { ErrorNotice } from "@/components/ui/error-notice";
import { JobProgress } from "@/components/ui/job-progress";
import { UsageMeter } from "@/components/ui/usage-meter";
import { type ClientError, callApi, type Quota } from "@/lib/client/api";
import { writeErrorCopy } from "@/lib/client/error-copy";
import { type HistoryItem, loadHistory, saveHistory } from "@/lib/client/history";
import { authHeader, deleteImageCall } from "@/lib/client/images";
import { describeCancel } from "@/lib/client/job-copy";
import { useJob } from "@/lib/client/use-job";
import { useKeyLibrary } from "@/lib/client/use-key-library";
import { useStatus } from "@/lib/client/use-status";
import type { GenerateResponse } from "@/lib/schemas/generate";
import type { StatusResponse } from "@/lib/schemas/status";
import { GenerateButton } from "./generate-button";
import { HistoryStrip } from "./history-strip";
import { type ModelOption, ModelPicker } from "./model-picker";
import { ProKeyForm } from "./pro-key-form";
import { PromptField, promptProblem } from "./prompt-field";
import { RatioPicker } from "./ratio-picker";
import { ResultPanel } from "./result-panel";
import { parseSeed, SeedField } from "./seed-field";
import { type StyleOption, StylePicker } from "./style-picker";

/** What a reload needs to show the job again: the form as it was sent, and the prompt for the history. */
type GenerateMeta = { prompt: string; model: string; style: string; ratio: string; seed: string };

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
  const [current, setCurrent] = useState<HistoryItem | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const promptRef = useRef<HTMLTextAreaElement>(null);
  const resultRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const saved = loadHistory();
    setHistory(saved);
    setCurrent(saved[0] ?? null);
  }, []);

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
      })) ?? fallbackModels,
    [status, fallbackModels],
  );
  const styles = status?.styles ?? fallbackStyles;
  const ratios = status?.ratios ?? fallbackRatios;

  const job = useJob<GenerateResponse, GenerateMeta>("studio", "generate", {
    onSucceeded: (d, meta) => {
      const item: HistoryItem = {
        id: d.id,
        url: d.url,
        prompt: meta.prompt,
        model: d.model,
        style: d.style,
        ratio: d.ratio,
        width: d.width,
        height: d.height,
        engine: d.engine,
        ai: d.ai,
        createdAt: new Date().toISOString(),
        seed: d.seed,
        expiresAt: d.expires_at,
        deleteToken: d.delete_token,
      };
      setHistory((h) => saveHistory([item, ...h.filter((x) => x.id !== item.id)]));
      if (library.key) library.prepend(item);
      setCurrent(item);
      setAnnouncement(`Image ready. ${d.remaining} ${library.key ? "" : "free "}generations left today.`);
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
    setPromptError(null);
    setSeedError(null);
    setError(null);
    setCanceled(null);
    // On phones the result sits below the settings; bring the progress into view.
    resultRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
    await job.start(
      "/api/generate",
      {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(library.key ? authHeader(library.key) : {}) },
        body: JSON.stringify({
          prompt,
          model,
          style,
          ratio,
          ...(parsedSeed.seed !== undefined && { seed: parsedSeed.seed }),
        }),
      },
      { prompt, model, style, ratio, seed },
    );
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
      if (current?.id === item.id) setCurrent(null);
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
            Describe an image, choose a look, and generate.
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

      <div className="mt-6 grid gap-6 lg:grid-cols-12">
        <form onSubmit={onSubmit} noValidate className="space-y-6 lg:col-span-5" aria-label="Generate an image">
          <PromptField
            value={prompt}
            onChange={(v) => {
              setPrompt(v);
              if (promptError) setPromptError(null);
            }}
            error={promptError}
            inputRef={promptRef}
            onSubmitShortcut={() => void generate()}
          />
          <div className="space-y-3">
            <GenerateButton startedAt={startedAt} />
            {error && <ErrorNotice error={error} quota={quota} noun="generations" onRetry={() => void generate()} />}
            {canceled && <CancelNotice kind="generate" started={canceled.started} />}
          </div>
          <StylePicker styles={styles} value={style} onChange={setStyle} />
          <RatioPicker ratios={ratios} value={ratio} onChange={setRatio} />
          <ModelPicker models={models} value={model} onChange={setModel} />
          <SeedField
            value={seed}
            onChange={(v) => {
              setSeed(v);
              if (seedError) setSeedError(null);
            }}
            error={seedError}
          />
        </form>
        <div ref={resultRef} className="lg:col-span-7">
          <div className="lg:sticky lg:top-4">
            <ResultPanel
              item={current}
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
        currentId={current?.id ?? null}
        onSelect={(item) => {
          setCurrent(item);
          resultRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
        }}
        onClear={() => {
          setHistory(saveHistory([]));
          setCurrent(null);
        }}
        onReuse={reuse}
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
