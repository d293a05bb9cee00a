// OpenAI's Images requests in, Darkroom's generate order out: each field's mapping is a row of a table here.
// Generations are JSON; edits and variations multipart, where numbers and booleans arrive as text.
import type { z } from "zod";
import { DEFAULT_RATIO } from "@/lib/catalog/models";
import { DEFAULT_OUTPUT_QUALITY } from "@/lib/catalog/output-formats";
import { DEFAULT_STYLE, STYLE_NAMES, type StyleName } from "@/lib/catalog/styles";
import { nearestRatio } from "@/lib/engines/sizing";
import type { GenerateOrder } from "@/lib/features/generate/flow";
import { type FormType, formToJson } from "@/lib/http/form-text";
import { readJsonObject } from "@/lib/http/read-json";
import { readUploadInOrder, type UploadContext } from "@/lib/http/read-upload";
import { sha256 } from "@/lib/idempotency/idempotency";
import { ApiError } from "@/lib/schemas/api-error";
import { DEFAULT_EDIT_STRENGTH } from "@/lib/schemas/generate";
import {
  OPENAI_FIELD_ERRORS,
  type OpenAIGenerations,
  openaiEditsSchema,
  openaiGenerationsSchema,
  openaiVariationsSchema,
  SIZE_PATTERN,
} from "@/lib/schemas/openai";

/** Which OpenAI endpoint a request came through: it names the stream's events and the idempotency fingerprint. */
export type ImagesKind = "generations" | "edits" | "variations";

/** How the answer is written: OpenAI's fields echoed back, and whether the images go inline or as URLs. */
export type AnswerShape = {
  kind: ImagesKind;
  responseFormat: "b64_json" | "url";
  outputFormat: "png" | "jpeg" | "webp";
  quality: string;
};

export type ImagesRequest = {
  order: GenerateOrder;
  answer: AnswerShape;
  /** Present when the caller asked for an event stream: how many partial images it wants, at most. */
  stream?: { partialImages: number };
  /** Fingerprint parts for Idempotency-Key replays: everything that shapes the work and the answer. */
  fingerprint: unknown[];
  /** Gives an upload's bytes back to the in-flight budget. */
  release: () => void;
};

/** OpenAI's quality names as the answer reports them: dall-e-3's standard and hd are medium and high. */
const QUALITY_ANSWERED: Record<OpenAIGenerations["quality"], string> = {
  auto: "auto",
  low: "low",
  medium: "medium",
  high: "high",
  standard: "medium",
  hd: "high",
};

/** The neutral prompt of a variation: OpenAI's variations take none. */
export const VARIATION_PROMPT = "A close variation of this image, keeping its subject, composition and colours.";
/** How far a variation may move from its image. */
export const VARIATION_STRENGTH = 0.5;

/** Multipart fields that are numbers or booleans in the JSON form. */
const FORM_TYPES: Record<string, FormType> = {
  n: "number",
  output_compression: "number",
  partial_images: "number",
  seed: "number",
  strength: "number",
  stream: "boolean",
};

/** OpenAI's clients send null for "not set"; it means the default. */
function withoutNulls(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
}

function validate<S extends z.ZodType>(schema: S, body: Record<string, unknown>): z.infer<S> {
  const parsed = schema.safeParse(withoutNulls(body));
  if (parsed.success) return parsed.data;
  const failing = new Set(parsed.error.issues.map((i) => String(i.path[0])));
  for (const [field, code, message] of OPENAI_FIELD_ERRORS) {
    if (failing.has(field)) throw new ApiError(code, message, { param: field });
  }
  throw new ApiError("invalid_request");
}

/** The ratio a size asks for (the published one nearest W:H), or undefined for auto and no size. */
function ratioOfSize(size: string | undefined) {
  const match = size === undefined ? null : SIZE_PATTERN.exec(size);
  return match ? nearestRatio({ width: Number(match[1]), height: Number(match[2]) }) : undefined;
}

/** The cross-field rules of the render fields, then the order and the answer's shape. */
function orderOf(kind: ImagesKind, fields: z.infer<typeof openaiEditsSchema>) {
  if (fields.background === "transparent") {
    throw new ApiError("invalid_request", "No engine here makes transparent backgrounds: use auto or opaque.", {
      param: "background",
    });
  }
  if (fields.stream && fields.n !== 1) {
    throw new ApiError("invalid_n", "A streamed answer carries one image: send n 1 with stream true.", { param: "n" });
  }
  const ratio = ratioOfSize(fields.size);
  const style: StyleName = STYLE_NAMES.includes(fields.style as StyleName)
    ? (fields.style as StyleName)
    : DEFAULT_STYLE;
  const answer: AnswerShape = {
    kind,
    responseFormat: fields.response_format,
    outputFormat: fields.output_format,
    quality: QUALITY_ANSWERED[fields.quality],
  };
  const order: GenerateOrder = {
    input: {
      prompt: fields.prompt,
      model: fields.model,
      style,
      ratio: ratio ?? DEFAULT_RATIO,
      seed: fields.seed,
      negativePrompt: fields.negative_prompt,
      n: fields.n,
      output: {
        format: fields.output_format,
        quality:
          fields.output_compression === undefined ? DEFAULT_OUTPUT_QUALITY : Math.max(1, fields.output_compression),
      },
    },
    strength: fields.strength ?? DEFAULT_EDIT_STRENGTH,
    ratioGiven: ratio !== undefined,
  };
  const stream = fields.stream ? { partialImages: fields.partial_images } : undefined;
  return { order, answer, stream };
}

/** POST /v1/images/generations: JSON. */
export async function parseGenerations(req: Request): Promise<ImagesRequest> {
  const fields = validate(openaiGenerationsSchema, await readJsonObject(req));
  const { order, answer, stream } = orderOf("generations", { ...fields, strength: undefined });
  return { order, answer, stream, fingerprint: ["v1", "generations", fields], release: () => undefined };
}

/** The multipart body of edits and variations, read in the contract's order; file parts must be files. */
async function readImagesForm(at: UploadContext) {
  const upload = await readUploadInOrder(at, "images+mask");
  try {
    if (upload.imageWasText) {
      throw new ApiError("invalid_image", "image must be a file upload.", { param: "image" });
    }
    if (upload.maskWasText) throw new ApiError("invalid_mask", "mask must be a file upload.", { param: "mask" });
    return { upload, body: formToJson(upload.fields, FORM_TYPES) };
  } catch (err) {
    upload.release();
    throw err;
  }
}

function requireImage(image: Buffer | null, what: string): Buffer {
  if (image) return image;
  throw new ApiError("invalid_image", `Send the image to ${what} as the file field image (or image[]).`, {
    param: "image",
  });
}

/** POST /v1/images/edits: multipart with image (or image[]), an optional mask, and the generation fields. */
export async function parseEdits(at: UploadContext): Promise<ImagesRequest> {
  const { upload, body } = await readImagesForm(at);
  try {
    const fields = validate(openaiEditsSchema, body);
    const image = requireImage(upload.image, "edit");
    const mask = upload.mask ?? undefined;
    const { order, answer, stream } = orderOf("edits", fields);
    return {
      order: { ...order, image, mask },
      answer,
      stream,
      fingerprint: ["v1", "edits", fields, sha256(image), mask && sha256(mask)],
      release: upload.release,
    };
  } catch (err) {
    upload.release();
    throw err;
  }
}

/** POST /v1/images/variations: multipart with image; a neutral prompt at strength 0.5, a fresh seed per image. */
export async function parseVariations(at: UploadContext): Promise<ImagesRequest> {
  const { upload, body } = await readImagesForm(at);
  try {
    const fields = validate(openaiVariationsSchema, body);
    const image = requireImage(upload.image, "vary");
    const { order, answer } = orderOf("variations", {
      ...fields,
      prompt: VARIATION_PROMPT,
      quality: "auto",
      output_format: "png",
      background: "auto",
      stream: false,
      partial_images: 0,
      strength: VARIATION_STRENGTH,
    });
    return {
      order: { ...order, image },
      answer,
      fingerprint: ["v1", "variations", fields, sha256(image)],
      release: upload.release,
    };
  } catch (err) {
    upload.release();
    throw err;
  }
}
