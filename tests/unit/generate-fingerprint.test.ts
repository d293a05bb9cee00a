// An Idempotency-Key retried across a rolling upgrade from 1.1 must replay, not answer 422: a generate request whose
// 1.2 fields are at their defaults keeps 1.1's fingerprint (issue 33, item 9). 1.1 bound the key to
// ["generate", { ...request, negativePrompt }, mode], the request being the parsed prompt, model, style, ratio, seed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_OUTPUT_QUALITY } from "@/lib/catalog/output-formats";
import type { GenerateInput } from "@/lib/engines/generate";
import { generateFingerprint } from "@/lib/features/generate/fingerprint";

const sync = { async: false };
/** The input the route builds for a request with no 1.2 fields: n and the output encoding defaulted. */
const input: GenerateInput = {
  prompt: "a lighthouse",
  model: "alpha-pro",
  style: "Cinematic",
  ratio: "1:1",
  seed: 7,
  negativePrompt: "fog",
  n: 1,
  output: { format: "png", quality: DEFAULT_OUTPUT_QUALITY },
};
const as11 = (mode: unknown) =>
  JSON.stringify([
    "generate",
    { prompt: "a lighthouse", model: "alpha-pro", style: "Cinematic", ratio: "1:1", seed: 7, negativePrompt: "fog" },
    mode,
  ]);

describe("the generate request's idempotency fingerprint", () => {
  it("is 1.1's for a request whose 1.2 fields are at their defaults, sync or async", () => {
    assert.equal(JSON.stringify(generateFingerprint({ input, mode: sync })), as11(sync));
    const hooked = { async: true, webhookUrl: "https://example.com/hook" };
    assert.equal(JSON.stringify(generateFingerprint({ input, mode: hooked })), as11(hooked));
  });

  it("binds 1.2's fields when they are not the defaults, and an edit's inputs always", () => {
    const two = generateFingerprint({ input: { ...input, n: 2 }, mode: sync });
    assert.notEqual(JSON.stringify(two), as11(sync));
    assert.equal((two[1] as GenerateInput).n, 2);
    const webp = generateFingerprint({ input: { ...input, output: { format: "webp", quality: 90 } }, mode: sync });
    assert.notEqual(JSON.stringify(webp), as11(sync));
    const edit = { image: Buffer.from("image"), strength: 0.5 };
    const withImage = generateFingerprint({ input, mode: sync, edit });
    const otherImage = generateFingerprint({
      input,
      mode: sync,
      edit: { ...edit, image: Buffer.from("x") },
    });
    assert.notEqual(JSON.stringify(withImage), JSON.stringify(otherImage));
  });
});
