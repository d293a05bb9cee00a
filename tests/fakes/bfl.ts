// Fake Black Forest Labs API (docs.bfl.ai): POST /v1/<model> → { id, polling_url }, GET polling_url → status/result.
import crypto from "node:crypto";
import {
  expect,
  expectHeader,
  type Fake,
  imageFromBase64,
  imageOf,
  isMultipleOf32InFluxRange,
  NOT_AN_IMAGE,
  objectOf,
  startFake,
} from "./fake-server";

export const BFL_KEY = "bfl-test-key";
const SUBMIT_PATHS = ["/v1/flux-pro-1.1", "/v1/flux-kontext-pro", "/v1/flux-pro-1.0-fill"];

export function startBflFake(): Promise<Fake> {
  const tasks = new Map<string, { width: number; height: number; seed: number; polls: number }>();
  return startFake(
    "bfl",
    async (req, f) => {
      expectHeader(f, req, "x-key", BFL_KEY);
      if (req.method === "POST") {
        expect(f, SUBMIT_PATHS.includes(req.path), `bfl: unexpected submit path ${req.path}`);
        const body = objectOf(req.body);
        expect(f, typeof body.prompt === "string" && body.prompt.length > 0, "bfl: prompt missing");
        // Kontext edits input_image; Fill repaints where its mask is white. Both take their size from the image.
        const input = await imageFromBase64(body.input_image);
        if (req.path === "/v1/flux-pro-1.1") {
          expect(
            f,
            isMultipleOf32InFluxRange(body.width) && isMultipleOf32InFluxRange(body.height),
            `bfl: bad size ${String(body.width)}x${String(body.height)}`,
          );
        } else {
          expect(f, input !== null, `bfl ${req.path}: input_image must be a base64 image`);
          if (input) Object.assign(body, { width: input.width, height: input.height });
        }
        if (req.path === "/v1/flux-pro-1.0-fill") {
          const mask = await imageFromBase64(body.mask);
          expect(f, mask !== null, "bfl fill: mask must be a base64 image");
          expect(f, mask?.width === input?.width && mask?.height === input?.height, "bfl fill: mask size differs");
        } else {
          expect(f, body.mask === undefined, `bfl ${req.path}: takes no mask`);
        }
        expect(f, body.output_format === "png", "bfl: output_format should be png");
        if (f.mode === "error") return { status: 500, json: { detail: "Internal Server Error" } };
        if (f.mode === "capacity") {
          return f.variant === "402"
            ? { status: 402, json: { detail: "Insufficient credits" } }
            : {
                status: 429,
                json: { detail: "You have exceeded the number of active tasks." },
                headers: { "Retry-After": "7" },
              };
        }
        const id = crypto.randomUUID();
        tasks.set(id, {
          width: Number(body.width),
          height: Number(body.height),
          seed: typeof body.seed === "number" ? body.seed : 1234,
          polls: 0,
        });
        // Real polling URLs point at a regional host; the client must follow what it is given, not the base URL.
        return {
          status: 200,
          json: { id, polling_url: f.urlFor("polling", `/v1/get_result?id=${id}`), cost: 4, input_mp: 0, output_mp: 1 },
        };
      }
      expect(f, req.path === "/v1/get_result", `bfl: unexpected poll path ${req.path}`);
      const id = req.query.get("id") ?? "";
      const task = tasks.get(id);
      if (!task) return { status: 200, json: { id, status: "Task not found", result: null } };
      task.polls++;
      f.polls++;
      if (f.mode === "hang" || task.polls <= f.pendingPolls)
        return { status: 200, json: { id, status: "Pending", result: null, progress: 0.4 } };
      if (f.mode === "moderate") {
        const status = f.variant === "content" ? "Content Moderated" : "Request Moderated";
        return {
          status: 200,
          json: { id, status, result: null, details: { "Moderation Reasons": ["Derivative Works Filter"] } },
        };
      }
      const bytes = f.mode === "malformed" ? NOT_AN_IMAGE : await imageOf(task.width, task.height, "jpeg");
      const sample = f.host(bytes, "jpeg");
      return {
        status: 200,
        json: {
          id,
          status: "Ready",
          result: { sample, prompt: "…", seed: task.seed, start_time: 1, end_time: 2, duration: 1 },
          progress: null,
        },
      };
    },
    { pendingPolls: 1 },
  );
}
