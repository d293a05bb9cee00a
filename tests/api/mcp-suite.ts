// Contract 1.3, "MCP server", driven by the official TypeScript SDK client (Client and
// StreamableHTTPClientTransport) against the built app on the preview engine: the tools and their schemas, images
// inline and by URL, edits from the library and from base64, enhance, progress, jobs, refusals as isError results,
// the 401 before any message, and one quota shared exactly with /api.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import sharp from "sharp";
import { type App, runScript, startApp } from "../helpers/app";
import { type Backends, startBackends } from "../helpers/backends";
import { call } from "../helpers/http";
import { pngOf } from "../helpers/images";

type McpBackend = "embedded" | "redis";

export function runMcpSuite(backend: McpBackend) {
  let app: App;
  let backends: Backends | undefined;
  let key: string;

  async function newKey(limit?: number): Promise<string> {
    const args = ["create", "--label", `mcp-${backend}`, ...(limit === undefined ? [] : ["--limit", String(limit)])];
    const out = await runScript(app, "keys", args);
    assert.equal(out.code, 0, out.stderr);
    return out.lines.at(-1) as string;
  }

  async function connect(apiKey: string): Promise<Client> {
    const client = new Client({ name: "darkroom-tests", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    });
    await client.connect(transport);
    return client;
  }

  async function used(apiKey: string): Promise<number> {
    const res = await call(app.url, "/api/status", { headers: { Authorization: `Bearer ${apiKey}` } });
    assert.equal(res.status, 200, res.text);
    return res.json.usage_today;
  }

  async function callTool(client: Client, name: string, args: Record<string, unknown>) {
    return (await client.callTool({ name, arguments: args }, CallToolResultSchema)) as CallToolResult;
  }

  function errorCodeOf(result: CallToolResult): string {
    assert.equal(result.isError, true, JSON.stringify(result).slice(0, 300));
    const error = (result.structuredContent as { error: { code: string; message: string } }).error;
    const text = result.content.find((c) => c.type === "text");
    assert.ok(text?.type === "text" && text.text.startsWith(`${error.code}:`), "the code is in the text too");
    return error.code;
  }

  before(async () => {
    backends = backend === "redis" ? await startBackends("redis") : undefined;
    app = await startApp({
      name: `mcp-${backend}`,
      env: { ...backends?.env, MODEL_ALPHA_PRO: "preview", MODEL_ALPHA_SCHNELL: "preview", MODEL_BETA_3: "preview" },
    });
    key = await newKey();
  });
  after(async () => {
    await app?.stop();
    await backends?.close();
  });

  describe(`MCP server (${backend})`, () => {
    it("declares itself and lists the five tools with input and output schemas", async () => {
      const client = await connect(key);
      assert.equal(client.getServerVersion()?.name, "darkroom");
      assert.match(client.getServerVersion()?.version ?? "", /^\d+\.\d+\.\d+$/);
      assert.match(client.getInstructions() ?? "", /generate_image/);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [
        "edit_image",
        "enhance_image",
        "generate_image",
        "get_job",
        "list_models",
      ]);
      const generate = tools.find((t) => t.name === "generate_image");
      assert.deepEqual(generate?.inputSchema.required, ["prompt"]);
      const props = generate?.inputSchema.properties as Record<string, { enum?: string[] }>;
      for (const field of ["prompt", "model", "style", "ratio", "n", "seed", "negative_prompt", "output_format"]) {
        assert.ok(props[field], field);
      }
      assert.ok(props.model.enum?.includes("alpha-schnell"), "models from the catalogue");
      const enhance = tools.find((t) => t.name === "enhance_image");
      const modes = (enhance?.inputSchema.properties ?? {}) as Record<string, { enum?: string[] }>;
      const modeEnum = modes.mode?.enum;
      assert.ok(modeEnum?.includes("fast") && modeEnum.includes("quality"), "modes from the catalogue");
      for (const tool of tools) assert.equal(tool.outputSchema?.type, "object", tool.name);
      const models = await callTool(client, "list_models", {});
      const listed = models.structuredContent as {
        models: { name: string; takes: string[] }[];
        enhance_modes: unknown[];
      };
      assert.equal(listed.models.length, 4);
      assert.ok(listed.models.every((m) => m.takes.includes("text")));
      await client.close();
    });

    it("generate_image n 2: two inline images that decode, URLs that resolve, two units, valid structuredContent", async () => {
      const client = await connect(key);
      const before = await used(key);
      const result = await callTool(client, "generate_image", {
        prompt: "a lighthouse on a cliff",
        n: 2,
        model: "alpha-schnell",
      });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
      const { tools } = await client.listTools();
      const schema = tools.find((t) => t.name === "generate_image")?.outputSchema;
      const checked = new AjvJsonSchemaValidator().getValidator(schema as never)(result.structuredContent);
      assert.ok(checked.valid, checked.errorMessage);
      const out = result.structuredContent as {
        images: { id: string; url: string; width: number; height: number; seed?: number }[];
        usage: number;
        remaining: number;
      };
      assert.equal(out.images.length, 2);
      const inline = result.content.filter((c) => c.type === "image");
      assert.equal(inline.length, 2);
      for (const item of inline) {
        assert.ok(item.type === "image");
        assert.ok(item.data.length < 1024 * 1024, "under 1 MB");
        const meta = await sharp(Buffer.from(item.data, "base64")).metadata();
        assert.ok((meta.width ?? 0) > 0 && (meta.height ?? 0) > 0);
      }
      const links = result.content.filter((c) => c.type === "resource_link");
      assert.deepEqual(
        links.map((l) => (l.type === "resource_link" ? l.uri : "")),
        out.images.map((i) => i.url),
      );
      for (const image of out.images) {
        const res = await fetch(image.url);
        assert.equal(res.status, 200, image.url);
        const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
        assert.deepEqual([meta.width, meta.height], [image.width, image.height]);
      }
      assert.equal(out.usage, before + 2);
      assert.equal(await used(key), before + 2, "exactly two units, on the same counter as /api");
      await client.close();
    });

    it("edit_image from the library by image_id, and from a base64 image and mask", async () => {
      const client = await connect(key);
      const made = await callTool(client, "generate_image", { prompt: "a red barn", model: "alpha-schnell" });
      const [source] = (made.structuredContent as { images: { id: string }[] }).images;
      const before = await used(key);
      const byId = await callTool(client, "edit_image", {
        prompt: "the barn in snow",
        image_id: source.id,
        model: "alpha-schnell",
      });
      assert.notEqual(byId.isError, true, JSON.stringify(byId).slice(0, 300));
      assert.equal((byId.structuredContent as { images: unknown[] }).images.length, 1);
      const photo = await pngOf(320, 240);
      const mask = await sharp({ create: { width: 320, height: 240, channels: 3, background: "#ffffff" } })
        .png()
        .toBuffer();
      const byBytes = await callTool(client, "edit_image", {
        prompt: "a boat on the water",
        image: photo.toString("base64"),
        mask: mask.toString("base64"),
        model: "alpha-schnell",
      });
      assert.notEqual(byBytes.isError, true, JSON.stringify(byBytes).slice(0, 300));
      const [edited] = (byBytes.structuredContent as { images: { url: string }[] }).images;
      assert.equal((await fetch(edited.url)).status, 200);
      assert.equal(await used(key), before + 2);
      const other = await newKey();
      const otherClient = await connect(other);
      assert.equal(
        errorCodeOf(await callTool(otherClient, "edit_image", { prompt: "x", image_id: source.id })),
        "not_found",
      );
      assert.equal(await used(other), 0, "someone else's image is refused before quota");
      await otherClient.close();
      await client.close();
    });

    it("enhance_image from base64 and from image_id", async () => {
      const client = await connect(key);
      const before = await used(key);
      const photo = await pngOf(200, 150);
      const result = await callTool(client, "enhance_image", {
        image: photo.toString("base64"),
        mode: "fast",
        scale: 2,
      });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
      const [image] = (
        result.structuredContent as { images: { id: string; url: string; width: number; height: number }[] }
      ).images;
      assert.deepEqual([image.width, image.height], [400, 300]);
      const res = await fetch(image.url);
      assert.equal(res.status, 200);
      const again = await callTool(client, "enhance_image", { image_id: image.id, strength: 0 });
      assert.notEqual(again.isError, true, JSON.stringify(again).slice(0, 300));
      assert.equal((again.structuredContent as { images: { width: number }[] }).images[0].width, 800);
      assert.equal(await used(key), before + 2);
      await client.close();
    });

    it("sends progress notifications with a progressToken, and async returns a job get_job follows", async () => {
      const client = await connect(key);
      const seen: { progress: number; message?: string }[] = [];
      const result = (await client.callTool(
        { name: "generate_image", arguments: { prompt: "a kite", model: "alpha-schnell" } },
        CallToolResultSchema,
        {
          onprogress: (p) => seen.push(p),
        },
      )) as CallToolResult;
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
      assert.ok(seen.length >= 1, "at least one progress notification");
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress, "progress increases");
      assert.equal((result.structuredContent as { images: unknown[] }).images.length, 1);

      const accepted = await callTool(client, "generate_image", {
        prompt: "a windmill",
        model: "alpha-schnell",
        async: true,
      });
      const job = (accepted.structuredContent as { job: { id: string } }).job;
      assert.match(job.id, /^job_[a-f0-9]{32}$/);
      let followed: CallToolResult | undefined;
      for (let i = 0; i < 100; i++) {
        followed = await callTool(client, "get_job", { job_id: job.id });
        if ((followed.structuredContent as { job: { status: string } }).job.status === "succeeded") break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const done = followed?.structuredContent as { images: { url: string }[]; job: { status: string } };
      assert.equal(done.job.status, "succeeded");
      assert.equal(done.images.length, 1);
      assert.equal((await fetch(done.images[0].url)).status, 200);
      assert.equal(errorCodeOf(await callTool(client, "get_job", { job_id: "job_0000" })), "not_found");
      await client.close();
    });

    it("refuses as isError results: a filtered prompt, a bad input, an over-large image, a spent quota", async () => {
      const client = await connect(key);
      const before = await used(key);
      assert.equal(
        errorCodeOf(await callTool(client, "generate_image", { prompt: "explicit porn of a naked woman" })),
        "content_filtered",
      );
      assert.equal(errorCodeOf(await callTool(client, "generate_image", { prompt: "a cat", n: 9 })), "invalid_n");
      assert.equal(errorCodeOf(await callTool(client, "generate_image", { prompt: "" })), "invalid_prompt");
      assert.equal(
        errorCodeOf(await callTool(client, "edit_image", { prompt: "a cat", image: "%%%" })),
        "invalid_image",
      );
      assert.equal(errorCodeOf(await callTool(client, "enhance_image", {})), "invalid_request");
      const big = Buffer.alloc(11 * 1024 * 1024, 7).toString("base64");
      const tooLarge = errorCodeOf(await callTool(client, "enhance_image", { image: big }));
      assert.ok(["file_too_large", "image_too_large"].includes(tooLarge), tooLarge);
      assert.equal(await used(key), before, "no refusal took a unit");

      const limited = await newKey(1);
      const spent = await connect(limited);
      const first = await callTool(spent, "generate_image", { prompt: "a kite", model: "alpha-schnell" });
      assert.notEqual(first.isError, true);
      const refused = await callTool(spent, "generate_image", { prompt: "a kite", model: "alpha-schnell" });
      assert.equal(errorCodeOf(refused), "rate_limited");
      const schema = (await spent.listTools()).tools.find((t) => t.name === "generate_image")?.outputSchema;
      assert.ok(
        new AjvJsonSchemaValidator().getValidator(schema as never)(refused.structuredContent).valid,
        "a refusal validates too",
      );
      assert.equal(
        errorCodeOf(await callTool(spent, "enhance_image", { image: big })).endsWith("too_large"),
        true,
        "over-large is refused before the spent quota",
      );
      await spent.close();
      await client.close();
    });

    it("answers 401 with WWW-Authenticate to a wrong or missing key, before any MCP message; 405 to GET", async () => {
      const init = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      };
      for (const headers of [{ Authorization: "Bearer dr_live_not-a-real-key-0000000000000000" }, {}] as Record<
        string,
        string
      >[]) {
        const res = await call(app.url, "/mcp", {
          method: "POST",
          headers: { ...headers, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
          body: JSON.stringify(init),
        });
        assert.equal(res.status, 401);
        assert.match(String(res.headers["www-authenticate"]), /^Bearer/);
        assert.equal(res.json.error.code, "unauthorized");
      }
      const client = new Client({ name: "t", version: "1" });
      await assert.rejects(
        client.connect(
          new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
            requestInit: { headers: { Authorization: "Bearer nope" } },
          }),
        ),
      );
      const get = await call(app.url, "/mcp", { headers: { Authorization: `Bearer ${key}` } });
      assert.equal(get.status, 405);
    });

    it("MCP and /api racing on one key's quota stay exact", async () => {
      const limited = await newKey(6);
      const client = await connect(limited);
      const viaMcp = Array.from({ length: 5 }, () =>
        callTool(client, "generate_image", { prompt: "a pear", model: "alpha-schnell" }),
      );
      const viaApi = Array.from({ length: 5 }, () =>
        call(app.url, "/api/generate", {
          method: "POST",
          headers: { Authorization: `Bearer ${limited}`, "Content-Type": "application/json" },
          body: JSON.stringify({ prompt: "a pear", model: "alpha-schnell" }),
        }),
      );
      const mcp = await Promise.all(viaMcp);
      const api = await Promise.all(viaApi);
      const made = mcp.filter((r) => r.isError !== true).length + api.filter((r) => r.status === 200).length;
      assert.equal(made, 6, "exactly the limit was made");
      for (const r of mcp) if (r.isError) assert.equal(errorCodeOf(r), "rate_limited");
      for (const r of api) if (r.status !== 200) assert.equal(r.status, 429);
      assert.equal(await used(limited), 6);
      const usage = await call(app.url, "/api/usage?days=1", { headers: { Authorization: `Bearer ${limited}` } });
      assert.equal(usage.json.days.at(-1).generate, 6, "the usage history counts both");
      await client.close();
    });
  });
}
