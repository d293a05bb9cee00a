// GET and HEAD /cdn/<id>.png – stored images, immutable and revalidatable. Under `npm start` server.ts answers these
// paths before Next (to keep Content-Length); this handler serves them wherever Next runs without it.

import { getServices } from "@/lib/services";
import { type ImageReply, replyWithImage } from "../serve-image";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Params = { params: Promise<{ file: string }> };

export async function GET(req: Request, { params }: Params): Promise<Response> {
  const { file } = await params;
  return toResponse(
    await replyWithImage(getServices().storage, file, { method: "GET", ifNoneMatch: ifNoneMatch(req) }),
  );
}

export async function HEAD(req: Request, { params }: Params): Promise<Response> {
  const { file } = await params;
  return toResponse(
    await replyWithImage(getServices().storage, file, { method: "HEAD", ifNoneMatch: ifNoneMatch(req) }),
  );
}

function ifNoneMatch(req: Request): string | null {
  return req.headers.get("if-none-match");
}

function toResponse(reply: ImageReply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}
