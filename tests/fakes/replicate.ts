// Fake Replicate API honouring `Prefer: wait`, with polling at GET /v1/predictions/<id>.
import crypto from "node:crypto";
import {
  expect,
  expectHeader,
  type Fake,
  imageFromBase64,
  imageOf,
  NOT_AN_IMAGE,
  objectOf,
  startFake,
} from "./fake-server";
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
  /** The enhance models' input image, decoded: the output is sized from it. */
  source?: { width: number; height: number };
};

/** The enhance models by pinned version, and the factor each upscales by (real-esrgan's own 4×, whatever `scale` asks). */
export const REPLICATE_ENHANCE_VERSIONS: Record<string, string> = {
  f121d640bd286e1fdc67f9799164c1d5be36ff74576ee11c803ae5b665dd46aa: "nightmareai/real-esrgan",
  cc4956dd26fa5a7185d5660cc9100fab1b8070a1d1654a8bb5eb6d443b020bb2: "sczhou/codeformer",
  "0fbacf7afc6c144e5be9767cff80f25aff23e52b0708f17e20f9879b2f21516c": "tencentarc/gfpgan",
};
const ENHANCE_FACTOR: Record<string, (input: Record<string, unknown>) => number> = {
  "nightmareai/real-esrgan": () => 4,
  "sczhou/codeformer": (input) => Number(input.upscale ?? 2),
  "tencentarc/gfpgan": (input) => Number(input.scale ?? 2),
};

/** POST /v1/models/<owner>/<name>/predictions (official models) or /v1/predictions with a version; output is a URL or a list. */
export function startReplicateFake(): Promise<Fake> {
  const predictions = new Map<string, Prediction>();
  return startFake("replicate", async (req, f) => {
    expectHeader(f, req, "authorization", `Bearer ${REPLICATE_TOKEN}`);
    const cancel = /^\/v1\/predictions\/(\w+)\/cancel$/.exec(req.path);
    if (cancel && req.method === "POST") {
      const p = predictions.get(cancel[1] ?? "");
      if (!p) return { status: 404, json: { detail: "Not found." } };
      if (p.status === "starting" || p.status === "processing") p.status = "canceled";
      return { status: 200, json: view(p, f) };
    }
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
      const enhance = REPLICATE_ENHANCE_VERSIONS[String(body.version)];
      expect(f, body.version === SDXL_VERSION || !!enhance, `replicate: unexpected version ${String(body.version)}`);
      model = enhance ?? "stability-ai/sdxl";
    } else {
      const m = /^\/v1\/models\/([^/]+\/[^/]+)\/predictions$/.exec(req.path);
      expect(f, m !== null, `replicate: unexpected path ${req.path}`);
      model = m?.[1] ?? "";
    }
    const source = model in ENHANCE_FACTOR ? await checkEnhanceInput(f, model, input) : undefined;
    if (!source) checkInput(f, model, input);
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
      source,
    };
    predictions.set(p.id, p);
    // With pendingPolls > 0 the sync wait "runs out" and the client must poll urls.get.
    if (f.pendingPolls === 0) await finish(p, f);
    return { status: 201, json: view(p, f) };
  });
}

/**
 * The enhance models' input schemas: real-esrgan image, scale (0–10), face_enhance; codeformer image, upscale,
 * codeformer_fidelity (0–1), face_upsample, background_enhance; gfpgan img, scale, version (v1.2–v1.4). Nothing
 * else is accepted, and the image must be a decodable data URI.
 */
async function checkEnhanceInput(f: Fake, model: string, input: Record<string, unknown>) {
  const allowed: Record<string, string[]> = {
    "nightmareai/real-esrgan": ["image", "scale", "face_enhance"],
    "sczhou/codeformer": ["image", "upscale", "codeformer_fidelity", "face_upsample", "background_enhance"],
    "tencentarc/gfpgan": ["img", "scale", "version"],
  };
  for (const key of Object.keys(input))
    expect(f, allowed[model]?.includes(key) ?? false, `replicate ${model}: unknown input ${key}`);
  const source = await imageFromBase64(model === "tencentarc/gfpgan" ? input.img : input.image);
  expect(f, source !== null, `replicate ${model}: the image is not a decodable data URI`);
  if (model === "nightmareai/real-esrgan") {
    expect(f, typeof input.scale === "number" && input.scale > 0 && input.scale <= 10, "real-esrgan: scale 0–10");
    expect(f, typeof input.face_enhance === "boolean", "real-esrgan: face_enhance must be a boolean");
  } else if (model === "sczhou/codeformer") {
    expect(f, Number.isInteger(input.upscale), "codeformer: upscale must be an integer");
    const fidelity = input.codeformer_fidelity;
    expect(f, typeof fidelity === "number" && fidelity >= 0 && fidelity <= 1, "codeformer: fidelity 0–1");
  } else {
    expect(f, typeof input.scale === "number", "gfpgan: scale must be a number");
    expect(f, ["v1.2", "v1.3", "v1.4"].includes(String(input.version)), "gfpgan: unknown version");
  }
  return source ?? { width: 64, height: 64 };
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
  if (p.status !== "starting") return;
  if (f.mode === "moderate") {
    p.status = "failed";
    p.error = "NSFW content detected. Try running it again, or try a different prompt.";
    return;
  }
  const factor = ENHANCE_FACTOR[p.model]?.(p.input);
  const [w, h] = factor
    ? [(p.source?.width ?? 64) * factor, (p.source?.height ?? 64) * factor]
    : p.model === "black-forest-labs/flux-schnell"
      ? (RATIO_SIZES[String(p.input.aspect_ratio)] ?? [1024, 1024])
      : [Number(p.input.width), Number(p.input.height)];
  const bytes = f.mode === "malformed" ? NOT_AN_IMAGE : await imageOf(w, h, "png");
  const url = f.host(bytes, "png");
  p.status = "succeeded";
  // FLUX 1.1 pro and the enhance models answer one URL; schnell and SDXL answer a list.
  p.output = p.model === "black-forest-labs/flux-1.1-pro" || factor ? url : [url];
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
