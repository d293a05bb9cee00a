// Fake Replicate API honouring `Prefer: wait`, with polling at GET /v1/predictions/<id>.
import crypto from "node:crypto";
import { expect, expectHeader, type Fake, imageOf, NOT_AN_IMAGE, objectOf, startFake } from "./fake-server";
export const REPLICATE_TOKEN = "r8_test_token";
export const SDXL_VERSION = "7762fd07cf82c948538e41f63f77d685e02b063e37e496e96eefd46c929f9bdc";
const RATIO_SIZES: Record<string, [number, number]> = { "1:1": [1024, 1024], "16:9": [1344, 768], "9:16": [768, 1344] };

type Prediction = {
  id: string;
  model: string;
  status: string;
  output: unknown;
  error: string | null;
  polls: number;
  input: Record<string, unknown>;
};

/** POST /v1/models/<owner>/<name>/predictions (official models) or /v1/predictions with a version; output is a URL or a list. */
export function startReplicateFake(): Promise<Fake> {
  const predictions = new Map<string, Prediction>();
  return startFake("replicate", async (req, f) => {
    expectHeader(f, req, "authorization", `Bearer ${REPLICATE_TOKEN}`);
    if (req.method === "GET") {
      const p = predictions.get(req.path.replace("/v1/predictions/", ""));
      if (!p) return { status: 404, json: { detail: "Not found." } };
      f.polls++;
      p.polls++;
      // The POST's own "starting" answer counts as the first still-running answer.
      if (p.polls >= f.pendingPolls) await finish(p, f);
      return { status: 200, json: view(p, f) };
    }
    expectHeader(f, req, "prefer", /^wait(=\d+)?$/);
    const body = objectOf(req.body);
    const input = objectOf(body.input);
    let model = "";
    if (req.path === "/v1/predictions") {
      expect(f, body.version === SDXL_VERSION, `replicate: unexpected version ${String(body.version)}`);
      model = "stability-ai/sdxl";
    } else {
      const m = /^\/v1\/models\/([^/]+\/[^/]+)\/predictions$/.exec(req.path);
      expect(f, m !== null, `replicate: unexpected path ${req.path}`);
      model = m?.[1] ?? "";
    }
    checkInput(f, model, input);
    if (f.mode === "error") return { status: 500, json: { detail: "Internal server error" } };
    if (f.mode === "capacity") {
      return {
        status: 429,
        json: {
          title: "Request was throttled",
          detail: "Request was throttled. Expected available in 2 seconds.",
          status: 429,
        },
        headers: { "Retry-After": "2" },
      };
    }
    if (f.mode === "hang") return "hang";
    const p: Prediction = {
      id: crypto.randomBytes(10).toString("hex"),
      model,
      status: "starting",
      output: null,
      error: null,
      polls: 0,
      input,
    };
    predictions.set(p.id, p);
    // With pendingPolls > 0 the sync wait "runs out" and the client must poll urls.get.
    if (f.pendingPolls === 0) await finish(p, f);
    return { status: 201, json: view(p, f) };
  });
}

function checkInput(f: Fake, model: string, input: Record<string, unknown>) {
  expect(f, typeof input.prompt === "string" && input.prompt.length > 0, "replicate: prompt missing");
  if (model === "black-forest-labs/flux-1.1-pro") {
    expect(
      f,
      input.aspect_ratio === "custom" && Number(input.width) % 32 === 0 && Number(input.height) % 32 === 0,
      "replicate: flux pro needs custom width/height",
    );
    expect(f, input.output_format === "png", "replicate: output_format should be png");
  } else if (model === "black-forest-labs/flux-schnell") {
    expect(
      f,
      typeof input.aspect_ratio === "string" && input.aspect_ratio in RATIO_SIZES,
      "replicate: schnell needs an aspect_ratio",
    );
  } else if (model === "stability-ai/sdxl") {
    expect(f, Number.isInteger(input.width) && Number.isInteger(input.height), "replicate: sdxl needs width/height");
  } else {
    f.violations.push(`replicate: unexpected model ${model}`);
  }
}

async function finish(p: Prediction, f: Fake) {
  if (p.status === "succeeded" || p.status === "failed") return;
  if (f.mode === "moderate") {
    p.status = "failed";
    p.error = "NSFW content detected. Try running it again, or try a different prompt.";
    return;
  }
  const [w, h] =
    p.model === "black-forest-labs/flux-schnell"
      ? (RATIO_SIZES[String(p.input.aspect_ratio)] ?? [1024, 1024])
      : [Number(p.input.width), Number(p.input.height)];
  const bytes = f.mode === "malformed" ? NOT_AN_IMAGE : await imageOf(w, h, "png");
  const url = f.host(bytes, "png");
  p.status = "succeeded";
  // FLUX 1.1 pro answers one URL; schnell and SDXL answer a list.
  p.output = p.model === "black-forest-labs/flux-1.1-pro" ? url : [url];
}

function view(p: Prediction, f: Fake) {
  return {
    id: p.id,
    model: p.model,
    version: p.model === "stability-ai/sdxl" ? SDXL_VERSION : "hidden",
    input: p.input,
    logs: "",
    output: p.status === "starting" ? null : p.output,
    error: p.error,
    status: p.status === "starting" && p.polls > 0 ? "processing" : p.status,
    created_at: new Date().toISOString(),
    urls: {
      get: f.urlFor("polling", `/v1/predictions/${p.id}`),
      cancel: f.urlFor("polling", `/v1/predictions/${p.id}/cancel`),
    },
  };
}
