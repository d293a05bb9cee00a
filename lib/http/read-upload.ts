// Streams a multipart upload through busboy, enforcing every cap as it arrives: the caller's share of the in-flight
// byte budget (counted as bytes arrive), the size limits, and the idle and total deadlines on the body.
import { Readable } from "node:stream";
import type { ReadableStream as NodeWebStream } from "node:stream/web";
import Busboy from "busboy";
import type { Caller } from "@/lib/auth/types";
import type { RouteContext } from "@/lib/http/with-api";
import { ApiError } from "@/lib/schemas/api-error";
import { GENERATE_FIELD_MAX_BYTES } from "@/lib/schemas/generate";
import { imageTooLarge, maskTooLarge } from "@/lib/schemas/too-large";
import { MULTIPART_ENVELOPE_BYTES, type UploadGate, type UploadSlot } from "@/lib/work/upload-gate";
import { type BodyWatch, watchBody } from "./body-deadlines";
import { discardRefusedBody } from "./discard-body";

export type Upload = {
  /** Bytes of the `image` file part, if one was sent as a file. */
  image: Buffer | null;
  /** True when `image` was sent as a plain text field instead of a file. */
  imageWasText: boolean;
  /** How many image files came (`image` and `image[]` together, for the endpoints that take several). */
  imageCount: number;
  /** Bytes of the `mask` file part, when the endpoint takes one and it was sent as a file. */
  mask: Buffer | null;
  /** True when `mask` was sent as a plain text field instead of a file. */
  maskWasText: boolean;
  fields: Record<string, string>;
  /** Gives the upload's bytes back to the budget; call once the work that holds them is done. */
  release: () => void;
};

/** A multipart request whose shape checked out and whose body is not read yet (see checkUpload). */
export type PendingUpload = {
  /**
   * Reads the body for `caller` through `gate`: 429 when the caller sends too many uploads at once or they hold
   * more than its share, 503 when the budget is full, 408 when the body stalls or takes too long.
   */
  read(gate: UploadGate, caller: Pick<Caller, "identity" | "plan">): Promise<Upload>;
};

// The longest text field a valid upload form may carry, in UTF-8 bytes: limits count characters, busboy bytes.
const MAX_FIELD_BYTES = GENERATE_FIELD_MAX_BYTES;
// OpenAI's edits take prompts of up to 4,000 characters: 16 KB of UTF-8 at most.
const MAX_OPENAI_FIELD_BYTES = 16 * 1024;

/**
 * The file parts an endpoint reads: enhance takes an image; generate an image and its mask; OpenAI's edits up to
 * four images, as `image` or `image[]` (clients send arrays either way), and a mask. Only the first image is kept.
 */
export type UploadFiles = "image" | "image+mask" | "images+mask";

/** The most image files an "images+mask" upload may carry. */
export const MAX_UPLOAD_IMAGES = 4;

/** How many files of at most the per-file limit the body may hold, by what the endpoint reads. */
const FILES_IN_BODY: Record<UploadFiles, number> = { image: 1, "image+mask": 2, "images+mask": MAX_UPLOAD_IMAGES + 1 };

/**
 * Checks what needs no body (a multipart type, the declared size): 400 or 413 now, before the caller's quota is
 * looked at. Nothing is read until `read`, so a route can refuse a caller with nothing left first.
 */
export function checkUpload(req: Request, maxFileBytes: number, files: UploadFiles = "image"): PendingUpload {
  const type = req.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type) || !/boundary=/i.test(type)) {
    throw new ApiError("invalid_request", "Send the image as multipart/form-data.");
  }
  const takesMask = files !== "image";
  const severalImages = files === "images+mask";
  // Each file may reach the limit; the body holds them all.
  const maxBody = maxFileBytes * FILES_IN_BODY[files] + MULTIPART_ENVELOPE_BYTES;
  const declared = Number(req.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBody) throw imageTooLarge(maxFileBytes);
  const body = req.body;
  if (!body) throw new ApiError("invalid_image", "The image field is missing.");

  let parser: Busboy.Busboy;
  try {
    parser = Busboy({
      headers: { "content-type": type },
      limits: {
        files: severalImages ? MAX_UPLOAD_IMAGES + 3 : 4,
        fileSize: maxFileBytes,
        fields: 16,
        fieldSize: severalImages ? MAX_OPENAI_FIELD_BYTES : MAX_FIELD_BYTES,
        parts: 24,
      },
    });
  } catch {
    throw new ApiError("invalid_request", "The multipart body is malformed.");
  }
  return {
    read: (gate, caller) => {
      const slot = gate.open(caller);
      const source = Readable.fromWeb(body as unknown as NodeWebStream<Uint8Array>);
      return parse(source, parser, slot, { maxBody, maxFileBytes, takesMask, severalImages, gate });
    },
  };
}

type Limits = {
  maxBody: number;
  maxFileBytes: number;
  takesMask: boolean;
  /** OpenAI's edits: up to MAX_UPLOAD_IMAGES images, as image or image[]. */
  severalImages: boolean;
  gate: UploadGate;
};

/** One upload being read: what came so far, and the one way it fails (the first failure wins). */
type Reading = {
  result: Upload;
  failed: boolean;
  fail: (err: unknown) => void;
  /** The file parts taken: the first part of each name counts. */
  claimed: Set<"image" | "mask">;
};

async function parse(source: Readable, parser: Busboy.Busboy, slot: UploadSlot, limits: Limits): Promise<Upload> {
  let watch: BodyWatch | undefined;
  try {
    const upload = await new Promise<Upload>((resolve, reject) => {
      const reading: Reading = {
        result: {
          image: null,
          imageWasText: false,
          imageCount: 0,
          mask: null,
          maskWasText: false,
          fields: {},
          release: slot.release,
        },
        failed: false,
        claimed: new Set(),
        fail: (err) => {
          if (reading.failed) return;
          reading.failed = true;
          source.unpipe(parser);
          discardRefusedBody(source);
          reject(err);
        },
      };
      watch = watchBody(limits.gate, "upload", reading.fail);
      capBody(source, slot, limits, watch, reading);
      listen(parser, limits, reading, () => resolve(reading.result));
      source.on("error", () => reading.fail(new ApiError("invalid_request", "The upload was interrupted.")));
      source.pipe(parser);
    });
    slot.arrived();
    return upload;
  } catch (err) {
    slot.release();
    throw err;
  } finally {
    watch?.clear();
  }
}

/**
 * The whole body is capped, whatever its parts: decoy files and endless chunked bodies stop here too. Bytes are
 * reserved as they arrive, so a body that is only declared holds nothing.
 */
function capBody(source: Readable, slot: UploadSlot, limits: Limits, watch: BodyWatch, reading: Reading): void {
  let received = 0;
  source.on("data", (chunk: Buffer) => {
    if (reading.failed) return;
    watch.progress();
    received += chunk.length;
    if (received > limits.maxBody) return reading.fail(imageTooLarge(limits.maxFileBytes));
    try {
      slot.grow(chunk.length);
    } catch (err) {
      reading.fail(err);
    }
  });
}

/** The parser's events: file parts and text fields into the result, its limits and errors into the failure. */
function listen(parser: Busboy.Busboy, limits: Limits, reading: Reading, done: () => void): void {
  const { fail, result } = reading;
  parser.on("file", (field, stream) => takeFile(field, stream, limits, reading));
  parser.on("field", (name, value, info) => {
    if (info.valueTruncated) return fail(new ApiError("invalid_request", `The field "${name}" is too long.`));
    if (name === "image" || (limits.severalImages && name === "image[]")) result.imageWasText = true;
    else if (limits.takesMask && name === "mask") result.maskWasText = true;
    else if (!(name in result.fields)) result.fields[name] = value;
  });
  parser.on("partsLimit", () => fail(new ApiError("invalid_request", "The multipart body has too many parts.")));
  parser.on("fieldsLimit", () => fail(new ApiError("invalid_request", "The multipart body has too many fields.")));
  parser.on("error", () => fail(new ApiError("invalid_request", "The multipart body is malformed.")));
  parser.on("close", () => {
    if (!reading.failed) done();
  });
}

/** One file part: the first image (and mask) kept within the per-file limit, the others drained. */
function takeFile(field: string, stream: Readable, limits: Limits, reading: Reading): void {
  const { maxFileBytes, takesMask, severalImages } = limits;
  const { fail, result, claimed } = reading;
  const name = severalImages && field === "image[]" ? "image" : field;
  if (name === "image") result.imageCount++;
  if (severalImages && name === "image" && result.imageCount > MAX_UPLOAD_IMAGES) {
    fail(new ApiError("invalid_image", `Send at most ${MAX_UPLOAD_IMAGES} images.`, { param: "image" }));
    return;
  }
  const part = name === "image" || (takesMask && name === "mask") ? name : null;
  // The first part of each name counts: a later one may start before the first one's stream has ended.
  if (!part || claimed.has(part)) {
    stream.resume();
    return;
  }
  claimed.add(part);
  const chunks: Buffer[] = [];
  stream.on("data", (c: Buffer) => chunks.push(c));
  stream.on("limit", () => fail(part === "mask" ? maskTooLarge(maxFileBytes) : imageTooLarge(maxFileBytes)));
  stream.on("end", () => {
    if (!reading.failed) result[part] = Buffer.concat(chunks);
  });
}

// The contract's order for uploads: what needs no body, then the quota, then the body. A caller with nothing left is
// refused before it sends its body, so it holds no upload slot and no memory.

/** What reading an upload in order needs from the route: the request, the caller, its quota and Idempotency-Key. */
export type UploadContext = Pick<RouteContext, "req" | "svc" | "caller" | "quota" | "idempotency">;

/**
 * Reads a multipart upload in the contract's order: its shape (400, 413 by declared size), then the caller's quota
 * (429 before the body is sent), then the body within the caller's share and deadlines (429, 503, 408).
 * A request whose Idempotency-Key already has a record may be the replay of an answer already paid for, which costs
 * nothing: its body is read even then and settled after. A new key is no way past the peek.
 */
export async function readUploadInOrder(at: UploadContext, files: UploadFiles = "image"): Promise<Upload> {
  const form = checkUpload(at.req, at.svc.config.upload.maxBytes, files);
  if (!(await at.idempotency.recorded())) await at.quota.assertLeft(1);
  return form.read(at.svc.uploads, at.caller);
}
