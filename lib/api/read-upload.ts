// Streams a multipart upload through busboy, enforcing the byte cap while it arrives.

import { Readable } from "node:stream";
import type { ReadableStream as NodeWebStream } from "node:stream/web";
import Busboy from "busboy";
import { ApiError } from "./errors";

export type Upload = {
  /** Bytes of the `image` file part, if one was sent as a file. */
  image: Buffer | null;
  /** True when `image` was sent as a plain text field instead of a file. */
  imageWasText: boolean;
  fields: Record<string, string>;
};

const MAX_FIELD_BYTES = 1024;
// Room for multipart boundaries and the small text fields on top of the file itself.
const ENVELOPE_BYTES = 64 * 1024;

export async function readUpload(req: Request, maxFileBytes: number): Promise<Upload> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type) || !/boundary=/i.test(type)) {
    throw new ApiError("invalid_request", "Send the image as multipart/form-data.");
  }
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > maxFileBytes + ENVELOPE_BYTES) throw tooLarge(maxFileBytes);
  if (!req.body) throw new ApiError("invalid_image", "The image field is missing.");

  let parser: Busboy.Busboy;
  try {
    parser = Busboy({
      headers: { "content-type": type },
      limits: { files: 1, fileSize: maxFileBytes, fields: 16, fieldSize: MAX_FIELD_BYTES, parts: 24 },
    });
  } catch {
    throw new ApiError("invalid_request", "The multipart body is malformed.");
  }

  const source = Readable.fromWeb(req.body as unknown as NodeWebStream<Uint8Array>);
  return new Promise<Upload>((resolve, reject) => {
    const result: Upload = { image: null, imageWasText: false, fields: {} };
    let failed = false;
    const fail = (err: ApiError) => {
      if (failed) return;
      failed = true;
      source.unpipe(parser);
      source.destroy();
      reject(err);
    };

    parser.on("file", (name, stream) => {
      if (name !== "image" || result.image) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("limit", () => fail(tooLarge(maxFileBytes)));
      stream.on("end", () => {
        if (!failed) result.image = Buffer.concat(chunks);
      });
    });
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated) return fail(new ApiError("invalid_request", `The field "${name}" is too long.`));
      if (name === "image") result.imageWasText = true;
      else if (!(name in result.fields)) result.fields[name] = value;
    });
    parser.on("filesLimit", () => {});
    parser.on("error", () => fail(new ApiError("invalid_request", "The multipart body is malformed.")));
    parser.on("close", () => {
      if (!failed) resolve(result);
    });
    source.on("error", () => fail(new ApiError("invalid_request", "The upload was interrupted.")));
    source.pipe(parser);
  });
}

function tooLarge(maxBytes: number) {
  return new ApiError("image_too_large", `The image must be at most ${describeBytes(maxBytes)}.`);
}

/** "10 MB" for 10 MiB, "4.5 MB" for 4,500,000, "300 KB" for 300,000: never rounded down to a misleading 0. */
export function describeBytes(bytes: number): string {
  if (bytes < 1_000_000) return `${Math.floor(bytes / 1000)} KB`;
  const mib = bytes / (1024 * 1024);
  const mb = Number.isInteger(mib) ? mib : Math.floor(bytes / 100_000) / 10;
  return `${mb} MB`;
}
