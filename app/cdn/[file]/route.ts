// GET /cdn/<id>.png – serves stored images, immutable, from the embedded storage.

import { getServices } from "@/lib/services";
import { isLocalImageId } from "@/lib/storage/local";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const IMMUTABLE = "public, max-age=31536000, immutable";

export async function GET(_req: Request, { params }: { params: Promise<{ file: string }> }): Promise<Response> {
  const { file } = await params;
  const id = /^([a-f0-9]{32})\.png$/.exec(file)?.[1];
  const png = id && isLocalImageId(id) ? await getServices().storage.readPng(id) : null;
  if (!png) {
    return Response.json(
      { success: false, error: { code: "not_found", message: "No image at this address." } },
      { status: 404, headers: { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" } },
    );
  }
  return new Response(new Uint8Array(png), {
    headers: {
      "Content-Type": "image/png",
      "Content-Length": String(png.length),
      "Cache-Control": IMMUTABLE,
      ETag: `"${id}"`,
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
    },
  });
}
