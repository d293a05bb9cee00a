// The studio's state in named hooks: the form, the quota shown, the saved history, opening an edit, the pickers'
// options, the generate job, the Generate step and the history's actions. studio.tsx composes them.
"use client";
import { type Dispatch, type RefObject, type SetStateAction, useCallback, useEffect, useMemo, useState } from "react";
import { type ClientError, callApi, type Quota } from "@/lib/client/api";
import { writeErrorCopy } from "@/lib/client/error-copy";
import { type GenerateAnswer, generateBody, historyItemsOf, type SentMeta } from "@/lib/client/generate-call";
import { type HistoryItem, loadHistory, saveHistory } from "@/lib/client/history";
import { authHeader, deleteImageCall } from "@/lib/client/images";
import { describeCancel } from "@/lib/client/job-copy";
import { DEFAULT_OUTPUT_FORMAT, type OutputFormat } from "@/lib/client/output-format";
import { asEditUpload } from "@/lib/client/picked-image";
import type { useEditSource } from "@/lib/client/use-edit-source";
import { useJob } from "@/lib/client/use-job";
import type { KeyLibrary } from "@/lib/client/use-key-library";
import type { StatusResponse } from "@/lib/schemas/status";
import type { Count } from "./count-picker";
import type { MaskHandle } from "./mask-painter";
import type { StudioMode } from "./mode-switch";
import type { ModelOption } from "./model-picker";
import { promptProblem } from "./prompt-field";
import { parseSeed } from "./seed-field";
import { DEFAULT_EDIT_STRENGTH } from "./strength-slider";
import type { StyleOption } from "./style-picker";

/** What a reload needs to show the job again: the form as it was sent, and the prompt for the history. */
type GenerateMeta = SentMeta & {
  model: string;
  style: string;
  ratio: string;
  seed: string;
  n?: Count;
  format?: OutputFormat;
};

type Setter<T> = Dispatch<SetStateAction<T>>;

/** The form's fields, their problems, and the mode. */
export function useStudioForm(defaults: { model: string; style: string; ratio: string }) {
  const [prompt, setPrompt] = useState("");
  const [promptError, setPromptError] = useState<string | null>(null);
  const [model, setModel] = useState(defaults.model);
  const [style, setStyle] = useState(defaults.style);
  const [ratio, setRatio] = useState(defaults.ratio);
  const [seed, setSeed] = useState("");
  const [seedError, setSeedError] = useState<string | null>(null);
  const [mode, setMode] = useState<StudioMode>("text");
  const [strength, setStrength] = useState(DEFAULT_EDIT_STRENGTH);
  const [count, setCount] = useState<Count>(1);
  const [format, setFormat] = useState<OutputFormat>(DEFAULT_OUTPUT_FORMAT);
  const [editProblem, setEditProblem] = useState<string | null>(null);
  return {
    prompt,
    setPrompt,
    promptError,
    setPromptError,
    model,
    setModel,
    style,
    setStyle,
    ratio,
    setRatio,
    seed,
    setSeed,
    seedError,
    setSeedError,
    mode,
    setMode,
    strength,
    setStrength,
    count,
    setCount,
    format,
    setFormat,
    editProblem,
    setEditProblem,
  };
}

export type StudioForm = ReturnType<typeof useStudioForm>;

/** What the page says back: the request's error, a cancel, and the screen reader's announcement. */
export function useStudioNotices() {
  const [error, setError] = useState<ClientError | null>(null);
  const [canceled, setCanceled] = useState<{ started: boolean } | null>(null);
  const [announcement, setAnnouncement] = useState("");
  return { error, setError, canceled, setCanceled, announcement, setAnnouncement };
}

export type StudioNotices = ReturnType<typeof useStudioNotices>;

/** This browser's saved history, and the images shown (the latest request's, or the history item picked). */
export function useSavedHistory() {
  const [history, setHistory] = useState<HistoryItem[]>([]);
  /** The latest request's images, or the history item picked. */
  const [batch, setBatch] = useState<HistoryItem[]>([]);
  useEffect(() => {
    const saved = loadHistory();
    setHistory(saved);
    setBatch(saved.slice(0, 1));
  }, []);
  return { history, setHistory, batch, setBatch };
}

export type SavedHistory = ReturnType<typeof useSavedHistory>;

/** Edit mode with an image: a file (upload, paste, drop) or an earlier result's URL; ?edit= and pastes open one. */
export function useEditOpener(
  f: StudioForm,
  edit: ReturnType<typeof useEditSource>,
  editRef: RefObject<HTMLDivElement | null>,
) {
  const { fromFile, fromUrl } = edit;
  const { setMode, setEditProblem, mode } = f;
  const openEdit = useCallback(
    (from: { file: File } | { url: string; label: string }) => {
      setMode("edit");
      setEditProblem(null);
      window.requestAnimationFrame(() => editRef.current?.scrollIntoView({ block: "start", behavior: "smooth" }));
      return "file" in from ? fromFile(from.file) : fromUrl(from.url, from.label);
    },
    [fromFile, fromUrl, setMode, setEditProblem, editRef],
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
  return openEdit;
}

/** The meter's quota: the status's at first, the Pro key's once one is used, then each answer's. */
export function useStudioQuota(status: StatusResponse | null, key: string | null) {
  const [quota, setQuota] = useState<Quota | null>(null);
  useEffect(() => {
    if (status && !quota)
      setQuota({ limit: status.limit_today, remaining: status.remaining, resetAtMs: Date.parse(status.reset_at) });
  }, [status, quota]);

  // With a Pro key the meter shows the key's daily requests.
  useEffect(() => {
    if (!key) return;
    void callApi<StatusResponse>("/api/status", { headers: authHeader(key) }).then((res) => {
      if (res.ok) {
        setQuota({
          limit: res.data.limit_today,
          remaining: res.data.remaining,
          resetAtMs: Date.parse(res.data.reset_at),
        });
      }
    });
  }, [key]);
  return { quota, setQuota };
}

/** The pickers' options: the live status's, or the catalogue's until it answers. */
export function useStudioOptions(
  status: StatusResponse | null,
  fallback: { models: ModelOption[]; styles: StyleOption[]; ratios: string[] },
) {
  const fallbackModels = fallback.models;
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
  const styles = status?.styles ?? fallback.styles;
  const ratios = status?.ratios ?? fallback.ratios;
  return { models, styles, ratios };
}

export type StudioOptions = ReturnType<typeof useStudioOptions>;

/** The generate job: its outcomes go to the history, the notices and the announcer; a reload refills the form. */
export function useGenerateJob(
  f: StudioForm,
  n: StudioNotices,
  saved: SavedHistory,
  library: KeyLibrary,
  setQuota: Setter<Quota | null>,
  resultRef: RefObject<HTMLDivElement | null>,
) {
  const { setAnnouncement } = n;
  return useJob<GenerateAnswer, GenerateMeta>("studio", "generate", {
    onSucceeded: (d, meta) => {
      const items = historyItemsOf(d, meta);
      const ids = new Set(items.map((i) => i.id));
      saved.setHistory((h) => saveHistory([...items, ...h.filter((x) => !ids.has(x.id))]));
      if (library.key) for (const item of [...items].reverse()) library.prepend(item);
      saved.setBatch(items);
      const made = items.length === 1 ? "Image ready." : `${items.length} images ready.`;
      const label = d.ai ? "" : " Made by the preview engine, not AI.";
      setAnnouncement(`${made}${label} ${d.remaining} ${library.key ? "" : "free "}generations left today.`);
      window.requestAnimationFrame(() => resultRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" }));
    },
    onFailed: (err, failedQuota) => {
      n.setError(err);
      setAnnouncement(writeErrorCopy(err, { quota: failedQuota, now: Date.now(), noun: "generations" }).title);
    },
    onCanceled: (started) => {
      n.setCanceled({ started });
      const copy = describeCancel("generate", started);
      setAnnouncement(`${copy.title}. ${copy.detail}`);
    },
    onQuota: setQuota,
    onAnnounce: setAnnouncement,
    onReattach: (meta) => {
      // The form shows what is being made, as it did before the reload.
      f.setPrompt(meta.prompt);
      f.setModel(meta.model);
      f.setStyle(meta.style);
      f.setRatio(meta.ratio);
      f.setSeed(meta.seed ?? "");
      if (meta.n) f.setCount(meta.n);
      if (meta.format) f.setFormat(meta.format);
    },
  });
}

export type GenerateJob = ReturnType<typeof useGenerateJob>;

/** What Generate needs besides the form and the notices. */
export type GenerateParts = {
  job: GenerateJob;
  edit: ReturnType<typeof useEditSource>;
  library: KeyLibrary;
  promptRef: RefObject<HTMLTextAreaElement | null>;
  resultRef: RefObject<HTMLDivElement | null>;
  editRef: RefObject<HTMLDivElement | null>;
  maskRef: RefObject<MaskHandle | null>;
};

/** A problem with the form that stops Generate, shown where it is; null when the form can be sent. */
function formProblem(f: StudioForm, n: StudioNotices, p: GenerateParts): { seed?: number } | null {
  const problem = promptProblem(f.prompt);
  if (problem) {
    f.setPromptError(problem);
    p.promptRef.current?.focus();
    return null;
  }
  const parsedSeed = parseSeed(f.seed);
  if (parsedSeed.problem) {
    f.setSeedError(parsedSeed.problem);
    return null;
  }
  if (f.mode === "edit" && !p.edit.source) {
    const problem = p.edit.loading
      ? "The image is still loading; press Generate again in a moment."
      : "Choose an image to edit first (or switch to Create from text).";
    f.setEditProblem(problem);
    n.setAnnouncement(problem);
    p.editRef.current?.scrollIntoView({ block: "start", behavior: "smooth" });
    return null;
  }
  return { seed: parsedSeed.seed };
}

/** Generate: check the form, then send it (as multipart with the image and mask in Edit mode) as a job. */
export async function generate(f: StudioForm, n: StudioNotices, p: GenerateParts): Promise<void> {
  if (p.job.state) return;
  const checked = formProblem(f, n, p);
  if (!checked) return;
  const source = f.mode === "edit" ? p.edit.source : null;
  f.setPromptError(null);
  f.setSeedError(null);
  f.setEditProblem(null);
  n.setError(null);
  n.setCanceled(null);
  const { prompt, model, style, ratio, seed, count, format, strength } = f;
  const mask = source ? ((await p.maskRef.current?.toBlob()) ?? null) : null;
  const editInput = source ? { image: await asEditUpload(source.image.file), mask, strength } : null;
  const { body, headers } = generateBody({
    prompt,
    model,
    style,
    ratio,
    seed: checked.seed,
    n: count,
    format,
    edit: editInput,
  });
  // On phones the result sits below the settings; bring the progress into view.
  p.resultRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
  await p.job.start(
    "/api/generate",
    { method: "POST", headers: { ...headers, ...(p.library.key ? authHeader(p.library.key) : {}) }, body },
    { prompt, model, style, ratio, seed, n: count, format, edit: editInput && { strength, masked: mask !== null } },
  );
}

/** The history's actions: reuse an item's settings, edit it, delete it (with its token or the Pro key). */
export function useHistoryActions(
  f: StudioForm,
  n: StudioNotices,
  saved: SavedHistory,
  options: StudioOptions,
  library: KeyLibrary,
  promptRef: RefObject<HTMLTextAreaElement | null>,
) {
  const [deleting, setDeleting] = useState<string | null>(null);
  const [historyError, setHistoryError] = useState<string | null>(null);
  const { setAnnouncement } = n;

  function reuse(item: HistoryItem) {
    f.setPrompt(item.prompt);
    f.setPromptError(null);
    if (options.models.some((m) => m.name === item.model)) f.setModel(item.model);
    if (options.styles.some((s) => s.name === item.style)) f.setStyle(item.style);
    if (options.ratios.includes(item.ratio)) f.setRatio(item.ratio);
    f.setSeed(item.seed === undefined ? "" : String(item.seed));
    f.setSeedError(null);
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
      saved.setHistory((h) => saveHistory(h.filter((x) => x.id !== item.id)));
      library.remove(item.id);
      saved.setBatch((b) => b.filter((x) => x.id !== item.id));
      setAnnouncement("Image deleted.");
    } else {
      setHistoryError(`Couldn't delete that image: ${res.error.message}`);
      setAnnouncement(`Couldn't delete that image: ${res.error.message}`);
    }
  }
  return { deleting, historyError, reuse, remove };
}
