// GET /docs/guides/<slug> – an operator guide from docs/<slug>.md, as plain text (only the guides in the table).
import { readFile } from "node:fs/promises";
import path from "node:path";
import { guideBySlug } from "@/lib/catalog/guides";

export const runtime = "nodejs";

export async function GET(_request: Request, context: { params: Promise<{ slug: string }> }): Promise<Response> {
  const guide = guideBySlug((await context.params).slug);
  if (!guide) return new Response("Not found\n", { status: 404, headers: { "Content-Type": "text/plain" } });
  const text = await readFile(path.join(process.cwd(), "docs", `${guide.slug}.md`), "utf8");
  return new Response(text, {
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "public, max-age=300",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
