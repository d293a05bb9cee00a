// The studio's POST /api/generate: JSON for text to image, multipart (contract 1.2) when an image is edited; and the
// answer's images (`images[]`, or the 1.0 fields alone from an older server) as history items.
import type { HistoryItem } from "./history";
import { formatFields, type OutputFormat } from "./output-format";

export type EditInput = { image: File; mask: Blob | null; strength: number };

export type GenerateForm = {
  prompt: string;
  model: string;
  style: string;
  /** Left out for edits: the result keeps the image's shape, as the contract says. */
  ratio: string;
  seed?: number;
  n: number;
  format: OutputFormat;
  edit: EditInput | null;
};

/** The fields every request carries, as text; n and the format only when they differ from the 1.1 defaults. */
function fieldsOf(form: GenerateForm): Record<string, string> {
  return {
    prompt: form.prompt,
    model: form.model,
    style: form.style,
    ...(!form.edit && { ratio: form.ratio }),
    ...(form.seed !== undefined && { seed: String(form.seed) }),
    ...(form.n !== 1 && { n: String(form.n) }),
    ...formatFields(form.format),
    ...(form.edit && { strength: String(form.edit.strength) }),
  };
}

/** The request's body and content type (none for multipart: the browser sets it with the boundary). */
export function generateBody(form: GenerateForm): { body: string | FormData; headers: Record<string, string> } {
  const fields = fieldsOf(form);
  if (!form.edit) {
    const json: Record<string, unknown> = { ...fields };
    if (form.seed !== undefined) json.seed = form.seed;
    if (form.n !== 1) json.n = form.n;
    return { body: JSON.stringify(json), headers: { "Content-Type": "application/json" } };
  }
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  body.append("image", form.edit.image, form.edit.image.name || "image.png");
  if (form.edit.mask) body.append("mask", form.edit.mask, "mask.png");
  return { body, headers: {} };
}

/** One made image, as `images[]` lists it (contract 1.2). */
export type MadeImage = {
  url: string;
  id: string;
  seed?: number;
  width: number;
  height: number;
  expires_at?: string | null;
  delete_token?: string;
};

/** The 200 body's fields the studio reads: the 1.0 ones (describing the first image) and `images`. */
export type GenerateAnswer = MadeImage & {
  model: string;
  style: string;
  ratio: string;
  engine: string;
  ai: boolean;
  remaining: number;
  images?: MadeImage[];
};

/** What the studio knew when it sent the request. */
export type SentMeta = { prompt: string; edit: { strength: number; masked: boolean } | null };

/** One history item per image made, in the answer's order, each with its own delete token and seed. */
export function historyItemsOf(answer: GenerateAnswer, meta: SentMeta, now = new Date()): HistoryItem[] {
  const images = answer.images?.length ? answer.images : [answer];
  return images.map((img) => ({
    id: img.id,
    url: img.url,
    prompt: meta.prompt,
    model: answer.model,
    style: answer.style,
    ratio: answer.ratio,
    width: img.width,
    height: img.height,
    engine: answer.engine,
    ai: answer.ai,
    createdAt: now.toISOString(),
    seed: img.seed,
    expiresAt: img.expires_at,
    deleteToken: img.delete_token,
    ...(meta.edit && { edit: meta.edit }),
  }));
}
