// The operator guides: the table and docs/ agree, every relative link in README.md and docs/ resolves (file and
// anchor), and GET /docs/guides/<slug> serves a listed guide as text and nothing else.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { GET } from "@/app/docs/guides/[slug]/route";
import { GUIDES } from "@/lib/catalog/guides";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DOCS = path.join(ROOT, "docs");

/** GitHub's heading anchors: lower case, punctuation other than '-' and '_' dropped, spaces to '-'. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  let fence = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fence = !fence;
    const m = !fence && /^#{1,6} (.+)$/.exec(line);
    if (m) {
      out.add(
        m[1]
          .toLowerCase()
          .replace(/[^\p{L}\p{N}\s_-]/gu, "")
          .replace(/\s/g, "-"),
      );
    }
  }
  return out;
}

function linksOf(file: string): string[] {
  const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
}

describe("operator guides", () => {
  it("lists exactly the files in docs/", () => {
    const files = readdirSync(DOCS)
      .filter((f) => f.endsWith(".md"))
      .map((f) => f.slice(0, -3))
      .sort();
    assert.deepEqual(GUIDES.map((g) => g.slug).sort(), files);
  });

  it("every relative link in README.md and docs/ points at an existing file and heading", () => {
    const files = [path.join(ROOT, "README.md"), ...readdirSync(DOCS).map((f) => path.join(DOCS, f))];
    let checked = 0;
    for (const file of files) {
      for (const link of linksOf(file)) {
        const [target, anchor] = link.split("#");
        const resolved = target ? path.resolve(path.dirname(file), target) : file;
        assert.ok(existsSync(resolved), `${path.relative(ROOT, file)}: ${link} does not exist`);
        if (anchor) {
          assert.ok(
            anchors(readFileSync(resolved, "utf8")).has(anchor),
            `${path.relative(ROOT, file)}: no heading #${anchor} in ${target || "itself"}`,
          );
        }
        checked++;
      }
    }
    assert.ok(checked > 20, `only ${checked} links found`);
  });

  it("the README links every guide", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    for (const g of GUIDES) assert.ok(readme.includes(`(docs/${g.slug}.md)`), `README lacks docs/${g.slug}.md`);
  });

  it("GET /docs/guides/<slug> serves a listed guide as text, and 404s anything else", async () => {
    const get = (slug: string) =>
      GET(new Request(`http://x/docs/guides/${slug}`), { params: Promise.resolve({ slug }) });
    const res = await get("configuration");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(await res.text(), readFileSync(path.join(DOCS, "configuration.md"), "utf8"));
    for (const bad of ["nope", "../README", "..%2Fpackage.json", "configuration.md"]) {
      assert.equal((await get(bad)).status, 404, bad);
    }
  });
});
