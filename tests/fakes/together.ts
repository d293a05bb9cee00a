// Fake Together AI images API: POST /v1/images/generations → { data: [{ b64_json }] } (response_format base64).
import { expect, expectHeader, type Fake, imageOf, NOT_AN_IMAGE, objectOf, startFake } from "./fake-server";

export const TOGETHER_KEY = "together-test-key";
const MODELS = ["black-forest-labs/FLUX.1.1-pro", "black-forest-labs/FLUX.1-schnell"];

export function startTogetherFake(): Promise<Fake> {
  return startFake("together", async (req, f) => {
    expectHeader(f, req, "authorization", `Bearer ${TOGETHER_KEY}`);
    expect(
      f,
      req.method === "POST" && req.path === "/v1/images/generations",
      `together: unexpected ${req.method} ${req.path}`,
    );
    const body = objectOf(req.body);
    expect(
      f,
      typeof body.model === "string" && MODELS.includes(body.model),
      `together: unexpected model ${String(body.model)}`,
    );
    expect(f, typeof body.prompt === "string" && body.prompt.length > 0, "together: prompt missing");
    expect(
      f,
      Number(body.width) % 16 === 0 && Number(body.height) % 16 === 0,
      "together: width/height must be multiples of 16",
    );
    expect(
      f,
      body.response_format === "base64" || body.response_format === "b64_json",
      "together: expected a base64 answer",
    );
    if (body.model === "black-forest-labs/FLUX.1-schnell")
      expect(f, body.steps === 4, "together: schnell should run 4 steps");

    if (f.mode === "error")
      return {
        status: 503,
        json: { error: { message: "The server is overloaded", type: "server_error", code: null } },
      };
    if (f.mode === "capacity") {
      return {
        status: 429,
        json: { error: { message: "rate limit exceeded", type: "rate_limit", code: "rate_limit_exceeded" } },
      };
    }
    if (f.mode === "hang") return "hang";
    if (f.mode === "moderate")
      return { status: 422, json: { error: { message: "NSFW content", type: "invalid_request_error", code: null } } };
    const bytes =
      f.mode === "malformed" ? NOT_AN_IMAGE : await imageOf(Number(body.width), Number(body.height), "jpeg");
    return {
      status: 200,
      json: {
        id: "gen-1",
        model: body.model,
        object: "list",
        data: [{ index: 0, b64_json: bytes.toString("base64"), type: null, timings: { inference: 1 } }],
      },
    };
  });
}
