// Fake OpenAI images API: POST /v1/images/generations → { data: [{ b64_json }] }, moderation as a 400 error code;
// POST /v1/images/edits (multipart: model, prompt, image or image[] files, an optional mask PNG with alpha).
import sharp from "sharp";
import {
  expect,
  expectHeader,
  type Fake,
  imageOf,
  type MultipartBody,
  multipartOf,
  NOT_AN_IMAGE,
  objectOf,
  type Recorded,
  startFake,
} from "./fake-server";

export const OPENAI_KEY = "sk-test-key";
const GPT_IMAGE_SIZES = ["1024x1024", "1536x1024", "1024x1536"];

export function startOpenAiFake(): Promise<Fake> {
  return startFake("openai", async (req, f) => {
    expectHeader(f, req, "authorization", `Bearer ${OPENAI_KEY}`);
    const form = multipartOf(req.body);
    if (req.path === "/v1/images/edits") return edits(f, req, form);
    expect(
      f,
      req.method === "POST" && req.path === "/v1/images/generations",
      `openai: unexpected ${req.method} ${req.path}`,
    );
    const body = objectOf(req.body);
    const gptImage = typeof body.model === "string" && body.model.startsWith("gpt-image-");
    expect(f, typeof body.prompt === "string" && body.prompt.length > 0, "openai: prompt missing");
    // images.ts: n is 1 to 10 (dall-e-3 takes only 1).
    const n = Number(body.n ?? 1);
    expect(f, Number.isInteger(n) && n >= 1 && n <= 10, `openai: n ${String(body.n)}`);
    expect(f, body.model !== "dall-e-3" || n === 1, "openai: dall-e-3 takes only n=1");
    if (gptImage) {
      expect(
        f,
        typeof body.size === "string" && GPT_IMAGE_SIZES.includes(body.size),
        `openai: gpt-image-1 has no size ${String(body.size)}`,
      );
      // gpt-image models always answer base64 and reject response_format.
      expect(f, body.response_format === undefined, "openai: gpt-image-1 does not take response_format");
    } else {
      expect(f, body.response_format === "b64_json", "openai-compatible: expected response_format b64_json");
    }

    // "gpt-image-down" fails only gpt-image-1, so a chain can fall through to a compatible endpoint's model.
    if (f.mode === "error" || (f.variant === "gpt-image-down" && gptImage))
      return {
        status: 500,
        json: {
          error: {
            message: "The server had an error while processing your request.",
            type: "server_error",
            param: null,
            code: null,
          },
        },
      };
    if (f.mode === "capacity") {
      return {
        status: 429,
        json: {
          error: {
            message: "Rate limit reached for images",
            type: "requests",
            param: null,
            code: "rate_limit_exceeded",
          },
        },
      };
    }
    if (f.mode === "hang") return "hang";
    if (f.mode === "moderate") {
      const code = f.variant === "blocked" ? "moderation_blocked" : "content_policy_violation";
      return {
        status: 400,
        json: {
          error: {
            message: "Your request was rejected as a result of our safety system.",
            type: "image_generation_user_error",
            param: null,
            code,
          },
        },
      };
    }
    const [w, h] = String(body.size ?? "1024x1024")
      .split("x")
      .map(Number);
    const bytes = f.mode === "malformed" ? NOT_AN_IMAGE : await imageOf(w, h, "png");
    return {
      status: 200,
      json: {
        created: Math.floor(Date.now() / 1000),
        data: Array.from({ length: n }, () => ({ b64_json: bytes.toString("base64") })),
        background: "opaque",
        output_format: "png",
        quality: "high",
        size: body.size,
        usage: {
          input_tokens: 10,
          output_tokens: 100,
          total_tokens: 110,
          input_tokens_details: { text_tokens: 10, image_tokens: 0 },
        },
      },
    };
  });
}

/** What OpenAI's edits endpoint checks: PNG images (as `image`, or `image[]` for several), a mask of the same size with an alpha channel. */
async function edits(f: Fake, req: Recorded, form: MultipartBody | null) {
  expect(f, req.method === "POST" && form !== null, "openai edits: expected a multipart POST");
  if (!form) return { status: 400, json: { error: { message: "expected multipart", type: "invalid_request_error" } } };
  expect(f, form.fields.model?.length === 1, "openai edits: model missing");
  expect(f, (form.fields.prompt?.[0] ?? "").length > 0, "openai edits: prompt missing");
  const images = form.files.image ?? form.files["image[]"] ?? [];
  expect(f, images.length >= 1, "openai edits: no image file (image or image[])");
  const size = form.fields.size?.[0] ?? "1024x1024";
  expect(f, GPT_IMAGE_SIZES.includes(size), `openai edits: no size ${size}`);
  const first = images[0] ? await sharp(images[0].bytes).metadata() : undefined;
  expect(f, first?.format === "png", "openai edits: the image must be a PNG");
  const mask = form.files.mask?.[0];
  if (mask) {
    const meta = await sharp(mask.bytes).metadata();
    expect(f, meta.format === "png" && meta.hasAlpha === true, "openai edits: the mask must be a PNG with alpha");
    expect(
      f,
      meta.width === first?.width && meta.height === first?.height,
      "openai edits: mask and image sizes differ",
    );
  }
  const n = Number(form.fields.n?.[0] ?? 1);
  expect(f, Number.isInteger(n) && n >= 1 && n <= 10, `openai edits: n ${String(form.fields.n?.[0])}`);
  if (f.mode === "error") return { status: 500, json: { error: { message: "server error", type: "server_error" } } };
  const [w, h] = size.split("x").map(Number);
  const png = (await imageOf(w, h, "png")).toString("base64");
  return {
    status: 200,
    json: {
      created: Math.floor(Date.now() / 1000),
      data: Array.from({ length: n }, () => ({ b64_json: png })),
    },
  };
}
