// The OpenAI mapping's tables, one row at a time: sizes to ratios, form text to numbers, errors to OpenAI's body,
// and the reset header's format. The API suite (tests/api/openai-suite.ts) drives the same through the real clients.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseGenerations } from "@/lib/features/openai/parse";
import { openaiDuration, openaiErrorBody } from "@/lib/http/openai/dialect";
import { buildOpenApi } from "@/lib/openapi";
import { ApiError } from "@/lib/schemas/api-error";

const json = (body: unknown) =>
  new Request("http://localhost/v1/images/generations", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

async function refusal(body: unknown): Promise<ApiError> {
  try {
    await parseGenerations(json(body));
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return err;
  }
  assert.fail(`accepted ${JSON.stringify(body)}`);
}

describe("OpenAI mapping", () => {
  it("maps each size to the published ratio nearest W:H; auto and no size keep the default and are not 'given'", async () => {
    const cases: [string | undefined, string, boolean][] = [
      ["1024x1024", "1:1", true],
      ["256x256", "1:1", true],
      ["1536x1024", "16:9", true],
      ["1792x1024", "16:9", true],
      ["1024x1536", "9:16", true],
      ["1024x1792", "9:16", true],
      ["1100x1000", "1:1", true],
      ["auto", "1:1", false],
      [undefined, "1:1", false],
    ];
    for (const [size, ratio, given] of cases) {
      const { order } = await parseGenerations(json({ prompt: "a cat", size }));
      assert.deepEqual([order.input.ratio, order.ratioGiven], [ratio, given], String(size));
    }
  });

  it("maps OpenAI's fields onto the order and the answer's shape", async () => {
    const { order, answer, stream } = await parseGenerations(
      json({
        prompt: "a cat",
        model: "beta-3",
        n: 2,
        quality: "hd",
        style: "vivid",
        output_format: "webp",
        output_compression: 0,
        response_format: "url",
        user: "u-1",
        seed: 5,
        negative_prompt: "rain",
        size: null,
      }),
    );
    assert.deepEqual(order.input, {
      prompt: "a cat",
      model: "beta-3",
      style: "Photorealistic",
      ratio: "1:1",
      seed: 5,
      negativePrompt: "rain",
      n: 2,
      output: { format: "webp", quality: 1 },
    });
    assert.deepEqual(answer, { kind: "generations", responseFormat: "url", outputFormat: "webp", quality: "high" });
    assert.equal(stream, undefined);
    const streamed = await parseGenerations(json({ prompt: "a cat", stream: true, partial_images: 3 }));
    assert.deepEqual(streamed.stream, { partialImages: 3 });
    assert.equal(streamed.answer.responseFormat, "b64_json", "b64_json is the default, as OpenAI's");
  });

  it("names the field at fault", async () => {
    const cases: [unknown, string, string][] = [
      [{ prompt: "" }, "invalid_prompt", "prompt"],
      [{ prompt: "a".repeat(4001) }, "invalid_prompt", "prompt"],
      [{ prompt: "a", n: 11 }, "invalid_n", "n"],
      [{ prompt: "a", n: 1.5 }, "invalid_n", "n"],
      [{ prompt: "a", size: "big" }, "invalid_request", "size"],
      [{ prompt: "a", size: "0x10" }, "invalid_request", "size"],
      [{ prompt: "a", response_format: "jpeg" }, "invalid_request", "response_format"],
      [{ prompt: "a", output_format: "gif" }, "invalid_output_format", "output_format"],
      [{ prompt: "a", output_compression: 101 }, "invalid_output_format", "output_compression"],
      [{ prompt: "a", background: "transparent" }, "invalid_request", "background"],
      [{ prompt: "a", stream: true, n: 2 }, "invalid_n", "n"],
      [{ prompt: "a", partial_images: 4 }, "invalid_request", "partial_images"],
      [{ prompt: "a", model: "dall-e-3" }, "invalid_model", "model"],
      [{ prompt: "a", style: "Baroque" }, "invalid_style", "style"],
    ];
    for (const [body, code, param] of cases) {
      const err = await refusal(body);
      assert.deepEqual([err.code, err.param], [code, param], JSON.stringify(body).slice(0, 80));
    }
  });

  it("writes errors in OpenAI's body: type by status, moderation_blocked for a filtered prompt", () => {
    const cases: [ApiError, number, string, string, string | null][] = [
      [new ApiError("invalid_n", undefined, { param: "n" }), 400, "invalid_request_error", "invalid_n", "n"],
      [new ApiError("content_filtered"), 400, "invalid_request_error", "moderation_blocked", "prompt"],
      [new ApiError("unauthorized"), 401, "authentication_error", "unauthorized", null],
      [new ApiError("not_found"), 404, "invalid_request_error", "not_found", null],
      [new ApiError("idempotency_in_progress"), 409, "invalid_request_error", "idempotency_in_progress", null],
      [new ApiError("image_too_large"), 413, "invalid_request_error", "image_too_large", "image"],
      [new ApiError("idempotency_mismatch"), 422, "invalid_request_error", "idempotency_mismatch", null],
      [new ApiError("rate_limited"), 429, "rate_limit_error", "rate_limited", null],
      [new ApiError("generation_failed"), 500, "server_error", "generation_failed", null],
      [new ApiError("busy"), 503, "server_error", "busy", null],
    ];
    for (const [err, status, type, code, param] of cases) {
      const answer = openaiErrorBody(err);
      assert.equal(answer.status, status, err.code);
      assert.deepEqual(answer.body.error, { message: err.message, type, param, code }, err.code);
    }
  });

  it("writes the reset time as OpenAI does", () => {
    assert.equal(openaiDuration(0), "0s");
    assert.equal(openaiDuration(59.2), "1m0s");
    assert.equal(openaiDuration(360), "6m0s");
    assert.equal(openaiDuration(86_399), "23h59m59s");
  });

  it("publishes the /v1 paths in the OpenAPI document, with OpenAI's error body and statuses", () => {
    type Op = { responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }> };
    const doc = buildOpenApi("http://localhost:3000") as { paths: Record<string, Record<string, Op>> };
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith("/v1/"));
    assert.deepEqual(paths.sort(), [
      "/v1/images/edits",
      "/v1/images/generations",
      "/v1/images/variations",
      "/v1/models",
      "/v1/models/{id}",
    ]);
    const generations = doc.paths["/v1/images/generations"].post;
    assert.match(generations.responses["400"].description, /moderation_blocked/);
    assert.equal(generations.responses["422"].description.includes("content_filtered"), false);
    assert.deepEqual(generations.responses["400"].content?.["application/json"].schema, {
      $ref: "#/components/schemas/OpenAIError",
    });
    assert.ok(doc.paths["/v1/images/edits"].post.responses["413"], "edits take uploads");
  });
});
