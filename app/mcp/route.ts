// POST /mcp – the Model Context Protocol over Streamable HTTP, stateless (contract 1.3, "MCP server"): a Pro key,
// then one server and transport for this request, whose tools call the generate and enhance flows for the
// caller.

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createMcpServer } from "@/lib/features/mcp/server";
import { identifyCaller, readClientIp } from "@/lib/http/identify";
import { keepAlive } from "@/lib/http/keep-alive";
import { readJsonObject } from "@/lib/http/read-json";
import { errorResponse, newRequestId, originOf, rejectOtherMethods } from "@/lib/http/with-api";
import { getServices } from "@/lib/services";
import packageJson from "@/package.json";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const maxDuration = 300;

export async function POST(req: Request): Promise<Response> {
  const requestId = newRequestId();
  try {
    const svc = getServices();
    // Before any MCP message: a Pro key, or 401 with WWW-Authenticate.
    const caller = await identifyCaller(req, svc, readClientIp(req, svc), ["key"]);
    // Room for an image and a mask at the upload limit, in base64, and the message around them.
    const body = await readJsonObject(req, Math.ceil((svc.config.upload.maxBytes * 2 * 4) / 3) + 64 * 1024);
    const server = createMcpServer({
      signal: req.signal,
      svc,
      caller,
      requestId,
      origin: originOf(req),
      keepAlive,
      version: packageJson.version,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    return await transport.handleRequest(req, { parsedBody: body });
  } catch (err) {
    const res = errorResponse(err, requestId);
    if (res.status === 401) res.headers.set("WWW-Authenticate", 'Bearer realm="darkroom"');
    return res;
  }
}

export const { GET, PUT, PATCH, DELETE } = rejectOtherMethods(["POST"]);
