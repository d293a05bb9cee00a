// The refusals of an image or mask past the upload limit, for whichever entry point received it (a multipart
// body, an MCP tool's base64 argument).
import { ApiError } from "./api-error";

/** "10 MB" for 10 MiB, "4.5 MB" for 4,500,000, "300 KB" for 300,000: never rounded down to a misleading 0. */
export function describeBytes(bytes: number): string {
  if (bytes < 1_000_000) return `${Math.floor(bytes / 1000)} KB`;
  const mib = bytes / (1024 * 1024);
  const mb = Number.isInteger(mib) ? mib : Math.floor(bytes / 100_000) / 10;
  return `${mb} MB`;
}

export function imageTooLarge(maxBytes: number): ApiError {
  return new ApiError("image_too_large", `The image must be at most ${describeBytes(maxBytes)}.`);
}

export function maskTooLarge(maxBytes: number): ApiError {
  return new ApiError("invalid_mask", imageTooLarge(maxBytes).message.replace("image", "mask"), { param: "mask" });
}
