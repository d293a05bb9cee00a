// What an Idempotency-Key is bound to for a generate request. A text request whose 1.2 fields are all at their
// defaults (one image, PNG at the default quality) keeps the fingerprint 1.1 gave it, as enhance does, so a key
// retried across a rolling upgrade from 1.1 replays instead of answering 422 idempotency_mismatch; other requests
// keep 1.2's; an image input adds its bytes' digests.
import { DEFAULT_OUTPUT } from "@/lib/catalog/output-formats";
import type { GenerateInput } from "@/lib/engines/generate";
import { sha256 } from "@/lib/idempotency/idempotency";

export type FingerprintParts = {
  input: GenerateInput;
  /** sync, or async with its webhook. */
  mode: unknown;
  /** An edit's inputs: the image's and mask's bytes, the library image and the strength. */
  edit?: { image?: Buffer; mask?: Buffer; imageId?: string; strength: number };
};

export function generateFingerprint({ input, mode, edit }: FingerprintParts): unknown[] {
  if (edit) {
    const { image, mask, imageId, strength } = edit;
    return ["generate", input, image && sha256(image), mask && sha256(mask), imageId, strength, mode];
  }
  const { n = 1, output = DEFAULT_OUTPUT, edit: _edit, ...asIn11 } = input;
  const defaulted = n === 1 && output.format === DEFAULT_OUTPUT.format && output.quality === DEFAULT_OUTPUT.quality;
  return ["generate", defaulted ? asIn11 : input, mode];
}
