// Darkroom's results out, OpenAI's shapes in: the ImagesResponse body, the stream's events (the shapes openai-node's
// ImageGenStreamEvent and ImageEditStreamEvent read), and the model list.
import { MODEL_CATALOG } from "@/lib/catalog/models";
import type { GeneratedBatch, GeneratedResult } from "@/lib/engines/generate";
import { sseEvent } from "@/lib/streams/sse";
import type { AnswerShape, ImagesKind } from "./parse";

/** Every answer says the images are opaque: no engine here makes transparent ones (background transparent is 400). */
const BACKGROUND = "opaque";

/** The event names of a stream, per endpoint (edits have their own, as OpenAI's do). */
const STREAM_EVENTS: Record<Exclude<ImagesKind, "variations">, { partial: string; completed: string }> = {
  generations: { partial: "image_generation.partial_image", completed: "image_generation.completed" },
  edits: { partial: "image_edit.partial_image", completed: "image_edit.completed" },
};

/** Darkroom counts images, not tokens: the token counts OpenAI's events carry are zero. */
const NO_TOKENS = {
  input_tokens: 0,
  input_tokens_details: { image_tokens: 0, text_tokens: 0 },
  output_tokens: 0,
  total_tokens: 0,
};

const nowSeconds = () => Math.floor(Date.now() / 1000);
const sizeOf = (image: { width: number; height: number }) => `${image.width}x${image.height}`;

/** Darkroom's fields on each image: its library id, seed, expiry, delete token, and whether an AI made it. */
function darkroomFields(image: GeneratedResult) {
  return {
    id: image.id,
    ...(image.seed !== undefined && { seed: image.seed }),
    expires_at: image.expiresAt,
    delete_token: image.deleteToken,
    engine: image.engine,
    ai: image.ai,
  };
}

/** The 200 body of the three Images endpoints. */
export function imagesBody(shape: AnswerShape, batch: GeneratedBatch) {
  const [first] = batch.images;
  return {
    created: nowSeconds(),
    data: batch.images.map((image) => ({
      ...(shape.responseFormat === "url" ? { url: image.url } : { b64_json: image.bytes.toString("base64") }),
      ...darkroomFields(image),
    })),
    output_format: shape.outputFormat,
    size: sizeOf(first),
    quality: shape.quality,
    background: BACKGROUND,
  };
}

type Streamed = Exclude<ImagesKind, "variations">;

export function partialImageEvent(
  shape: AnswerShape & { kind: Streamed },
  image: { bytes: Buffer; width: number; height: number },
  index: number,
) {
  return {
    type: STREAM_EVENTS[shape.kind].partial,
    b64_json: image.bytes.toString("base64"),
    partial_image_index: index,
    created_at: nowSeconds(),
    size: sizeOf(image),
    output_format: shape.outputFormat,
    background: BACKGROUND,
    quality: shape.quality,
  };
}

export function completedEvent(shape: AnswerShape & { kind: Streamed }, image: GeneratedResult) {
  return {
    type: STREAM_EVENTS[shape.kind].completed,
    b64_json: image.bytes.toString("base64"),
    created_at: nowSeconds(),
    size: sizeOf(image),
    output_format: shape.outputFormat,
    background: BACKGROUND,
    quality: shape.quality,
    usage: NO_TOKENS,
    url: image.url,
    ...darkroomFields(image),
  };
}

/** One server-sent event: the name, then the JSON on one data line. */
export function sseFrame(event: { type: string }): string {
  return sseEvent(event.type, event);
}

/** The catalogue's models are all published with the 1.2 API (2026-11-01T00:00:00Z). */
const PUBLISHED = 1_793_491_200;

export function modelEntry(name: string) {
  return { id: name, object: "model" as const, created: PUBLISHED, owned_by: "darkroom" as const };
}

export function modelList() {
  return { object: "list" as const, data: MODEL_CATALOG.map((m) => modelEntry(m.name)) };
}
