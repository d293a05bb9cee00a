// comfyui:<upscale model file> enhance routes through /api/enhance against the loopback ComfyUI fake, on each store:
// the photo uploaded with POST /upload/image and the shipped workflow's exact nodes (LoadImage → UpscaleModelLoader →
// ImageUpscaleWithModel → ImageScale to the target → SaveImage), exactly the target size for 2× and 4× from models
// whose factor differs, the labels, faces with facerestore_cf's nodes and the fidelity, the model file checked
// against /object_info/UpscaleModelLoader with an unknown one ejecting its route, failover to the next route on a
// 500 and on the route's deadline (the prompt deleted from the queue), and an async job's progress from the websocket
// and its cancel reaching the server (/interrupt).
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type Fakes, startAllFakes } from "../fakes";
import { type ComfyFake, startComfyFake } from "../fakes/comfyui";
import { type App, runScript, startApp } from "../helpers/app";
import { type Backends, startBackends } from "../helpers/backends";
import { assertServedBy, photoOf, sizeAt, WAIT } from "../helpers/gpu-enhance";
import { BROWSER, call, enhance } from "../helpers/http";

/** The route's deadline: long enough for the fake's answer on a loaded machine, short enough to wait out once. */
const ROUTE_DEADLINE_MS = 20_000;

type Node = { class_type: string; inputs: Record<string, unknown> };

export function runEnhanceComfyUiSuite(backend: "embedded" | "redis") {
  let fakes: Fakes;
  let comfy: ComfyFake;
  let app: App;
  let backends: Backends | undefined;
  let key: string;
  let from = 0;
  const nextAddress = () => `127.0.${backend === "redis" ? 17 : 16}.${++from}`;

  before(async () => {
    [fakes, comfy] = await Promise.all([startAllFakes(), startComfyFake({ name: "comfy-enhance" })]);
    backends = backend === "redis" ? await startBackends("redis") : undefined;
    app = await startApp({
      name: `enhance-comfyui-${backend}`,
      env: {
        ...backends?.env,
        ...fakes.env,
        COMFYUI_URLS: comfy.url,
        ENHANCE_FAST: "comfyui:RealESRGAN_x2plus.pth",
        ENHANCE_QUALITY: "comfyui:4x-Missing.pth,comfyui:4x-UltraSharp.pth",
        ENHANCE_FACES: "comfyui:4x-UltraSharp.pth,replicate:sczhou/codeformer",
        ENHANCE_TIMEOUT_MS: String(ROUTE_DEADLINE_MS),
        FREE_ENHANCEMENTS_PER_DAY: "100",
      },
    });
    const out = await runScript(app, "keys", ["create", "--label", `enhance-comfyui-${backend}`]);
    assert.equal(out.code, 0, out.stderr);
    key = out.lines.at(-1) as string;
  });
  after(async () => {
    await app?.stop();
    await comfy?.close();
    await fakes?.closeAll();
    await backends?.close();
  });
  /** The paths the server was asked for in earlier tests: what a route learns once per server is asked once. */
  const earlier: string[] = [];
  beforeEach(() => {
    earlier.push(...comfy.requests.map((r) => r.path));
    fakes.resetAll();
    comfy.reset();
  });
  const askedEver = (path: string) => [...earlier, ...comfy.requests.map((r) => r.path)].filter((p) => p === path);

  const photo = () => photoOf("#6a8");
  /** The nodes of the last prompt the server accepted, by class. */
  const lastGraph = () => {
    const prompt = comfy.prompts.at(-1)?.prompt as Record<string, Node> | undefined;
    assert.ok(prompt, "the server got a prompt");
    const byClass = (cls: string) => {
      const id = Object.keys(prompt).find((i) => prompt[i].class_type === cls);
      assert.ok(id, `the prompt has a ${cls} node`);
      return { id, inputs: prompt[id].inputs };
    };
    return { prompt, byClass };
  };

  async function waitFor(what: string, check: () => boolean) {
    for (const stop = Date.now() + 120_000; !check(); ) {
      assert.ok(Date.now() < stop, `timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  describe(`comfyui enhance routes (${backend})`, () => {
    it("lists the comfyui routes in status", async () => {
      const status = await call(app.url, "/api/status", { headers: BROWSER, from: nextAddress(), ...WAIT });
      const modes = Object.fromEntries(status.json.enhance_modes.map((m: { name: string }) => [m.name, m]));
      assert.deepEqual(modes.fast.engines, ["comfyui:RealESRGAN_x2plus.pth"]);
      assert.deepEqual(modes.quality.engines, ["comfyui:4x-Missing.pth", "comfyui:4x-UltraSharp.pth"]);
      assert.deepEqual(modes.faces.engines, ["comfyui:4x-UltraSharp.pth", "replicate:sczhou/codeformer"]);
      assert.equal(modes.faces.available, true);
      assert.match(modes.faces.licence_notes, /GFPGAN/, "GFPGAN's terms, from ENHANCE_FACE_RESTORER");
      assert.equal(modes.creative.available, false);
    });

    // 2× on a 4× model and 4× on a 2× model: ImageScale brings either to exactly the target.
    for (const [scale, mode, model, factor] of [
      [2, "quality", "4x-UltraSharp.pth", 4],
      [4, "fast", "RealESRGAN_x2plus.pth", 2],
    ] as const) {
      it(`upscales with ${model} to exactly ${scale}x through the shipped workflow, with the exact nodes`, async () => {
        const res = await enhance(
          app.url,
          { image: { data: await photo(), type: "image/png" }, model: mode, scale: String(scale) },
          { from: nextAddress(), ...WAIT },
        );
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(
          [res.json.model, res.json.engine, res.json.ai, res.json.generative],
          [mode, `comfyui:${model}`, true, false],
        );
        const [width, height] = [120 * scale, 80 * scale];
        assert.equal(res.json.enhanced_size, `${width}x${height}`);
        assert.equal(await sizeAt(res.json.url), `${width}x${height}`);

        // The server's own output is the target: the model's factor made another size, ImageScale fixed it.
        assert.deepEqual(comfy.saved.at(-1), {
          node: comfy.saved.at(-1)?.node,
          width,
          height,
          upscaled: { width: 120 * factor, height: 80 * factor },
        });
        // The photo went up with POST /upload/image (multipart `image`, type input), and LoadImage names it.
        const uploads = [...comfy.uploads.entries()];
        assert.equal(uploads.length, 1);
        assert.deepEqual(uploads[0][1], { width: 120, height: 80, hasAlpha: false });
        const { prompt, byClass } = lastGraph();
        const load = byClass("LoadImage");
        const loader = byClass("UpscaleModelLoader");
        const upscale = byClass("ImageUpscaleWithModel");
        const scaleNode = byClass("ImageScale");
        const save = byClass("SaveImage");
        assert.deepEqual(load.inputs, { image: uploads[0][0] });
        assert.deepEqual(loader.inputs, { model_name: model });
        assert.deepEqual(upscale.inputs, { upscale_model: [loader.id, 0], image: [load.id, 0] });
        assert.deepEqual(scaleNode.inputs, {
          image: [upscale.id, 0],
          upscale_method: "lanczos",
          width,
          height,
          crop: "disabled",
        });
        assert.deepEqual(save.inputs.images, [scaleNode.id, 0]);
        assert.equal(Object.keys(prompt).length, 5, "no face nodes outside faces");
        assert.equal(
          askedEver("/api/object_info/UpscaleModelLoader").length,
          1,
          "the model files were checked against object_info, once for the server",
        );
        assert.deepEqual(comfy.violations, []);
      });
    }

    it("restores faces with facerestore_cf's nodes before the upscale, strength as the restorer's weight", async () => {
      const res = await enhance(
        app.url,
        { image: { data: await photo(), type: "image/png" }, model: "faces", scale: "2", strength: "0.7" },
        { from: nextAddress(), ...WAIT },
      );
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        [res.json.engine, res.json.ai, res.json.generative, res.json.enhanced_size],
        ["comfyui:4x-UltraSharp.pth", true, false, "240x160"],
      );
      const { prompt, byClass } = lastGraph();
      const load = byClass("LoadImage");
      const faceLoader = byClass("FaceRestoreModelLoader");
      const restore = byClass("FaceRestoreCFWithModel");
      const upscale = byClass("ImageUpscaleWithModel");
      assert.deepEqual(faceLoader.inputs, { model_name: "GFPGANv1.4.pth" }, "ENHANCE_FACE_RESTORER's model file");
      assert.deepEqual(restore.inputs, {
        facerestore_model: [faceLoader.id, 0],
        image: [load.id, 0],
        facedetection: "retinaface_resnet50",
        codeformer_fidelity: 0.3,
      });
      assert.deepEqual(upscale.inputs.image, [restore.id, 0], "faces are restored before the upscale");
      assert.equal(Object.keys(prompt).length, 7);
      assert.equal(askedEver("/api/object_info/FaceRestoreCFWithModel").length, 1, "the pack was looked up");
      assert.deepEqual(comfy.saved.at(-1)?.width, 240);
      assert.deepEqual(comfy.violations, []);
    });

    it("ejects a route whose model file the server does not list, with a log line, and the next route serves", async () => {
      await assertServedBy(
        app.url,
        await photo(),
        nextAddress,
        { model: "quality" },
        { engine: "comfyui:4x-UltraSharp.pth", size: "240x160", times: 2 },
      );
      const loaded = comfy.prompts.map(
        (p) => Object.values(p.prompt).find((n) => n.class_type === "UpscaleModelLoader")?.inputs.model_name,
      );
      assert.deepEqual(loaded, ["4x-UltraSharp.pth", "4x-UltraSharp.pth"], "the unknown file is never sent");
      assert.match(app.logs(), /enhance route ejected[^\n]*4x-Missing\.pth/);
    });

    it("fails over from the server's 500 to the next route", async () => {
      comfy.mode = "http-error";
      await assertServedBy(
        app.url,
        await photo(),
        nextAddress,
        { model: "faces", scale: "2", strength: "0.7" },
        { engine: "replicate:sczhou/codeformer", size: "240x160" },
      );
      assert.ok(
        comfy.requests.some((r) => r.path === "/api/prompt" && r.method === "POST"),
        "the comfyui route was tried first",
      );
    });

    it("fails over past the route's deadline, deleting its prompt from the server's queue", async () => {
      comfy.paused = true;
      const res = await enhance(
        app.url,
        { image: { data: await photo(), type: "image/png" }, model: "faces", scale: "2" },
        { from: nextAddress(), ...WAIT },
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.engine, "replicate:sczhou/codeformer");
      const id = comfy.prompts.at(-1)?.id;
      assert.ok(id, "the prompt reached the server");
      await waitFor("POST /api/queue", () => comfy.requests.some((r) => r.path === "/api/queue"));
      assert.deepEqual(comfy.requests.find((r) => r.path === "/api/queue")?.body, { delete: [id] });
      assert.equal(comfy.busy(), 0, "nothing is left in the server's queue");
    });

    it("reports the websocket's progress on an async job, and its cancel interrupts the prompt", async () => {
      comfy.stepDelayMs = 3_000;
      const auth = { Authorization: `Bearer ${key}` };
      const accepted = await enhance(
        app.url,
        { image: { data: await photo(), type: "image/png" }, model: "quality", scale: "2" },
        { headers: { ...auth, Prefer: "respond-async" }, from: nextAddress(), ...WAIT },
      );
      assert.equal(accepted.status, 202, accepted.text);
      const path = `/api/jobs/${accepted.json.id}`;
      let job = await call(app.url, path, { headers: auth, from: nextAddress(), ...WAIT });
      for (const stop = Date.now() + 120_000; !/upscaling tile/.test(String(job.json.progress?.stage)); ) {
        assert.ok(Date.now() < stop, `no progress from the websocket: ${job.text}`);
        assert.equal(job.json.status === "succeeded" || job.json.status === "failed", false, job.text);
        await new Promise((r) => setTimeout(r, 200));
        job = await call(app.url, path, { headers: auth, from: nextAddress(), ...WAIT });
      }
      assert.match(job.json.progress.stage, /^upscaling tile [1-4]\/4$/);
      assert.ok(job.json.progress.fraction > 0 && job.json.progress.fraction <= 1, job.text);

      const cancelled = await call(app.url, path, { method: "DELETE", headers: auth, from: nextAddress(), ...WAIT });
      assert.equal(cancelled.json.status, "canceled", cancelled.text);
      await waitFor("POST /api/interrupt", () => comfy.requests.some((r) => r.path === "/api/interrupt"));
      assert.deepEqual(comfy.requests.find((r) => r.path === "/api/interrupt")?.body, {
        prompt_id: comfy.prompts.at(-1)?.id,
      });
      await waitFor("the prompt to stop", () => comfy.busy() === 0);
      assert.equal(comfy.saved.length, 0, "the interrupted prompt saved nothing");
    });
  });
}
