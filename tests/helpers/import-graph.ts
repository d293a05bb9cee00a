// The import graph of a source tree, for the layering test: which file imports which, and what that means between
// folders. Only imports of our own files count ("@/…" and relative paths); packages and node: modules do not.
import fs from "node:fs";
import path from "node:path";

const SOURCE = /\.(ts|tsx)$/;
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;

export function sourcesUnder(root: string, rel: string): string[] {
  const full = path.join(root, rel);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return SOURCE.test(rel) ? [rel] : [];
  return fs
    .readdirSync(full, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? sourcesUnder(root, path.join(rel, e.name)) : sourcesUnder(root, path.join(rel, e.name)),
    );
}

/** The file an import specifier names, relative to root; null for packages and for what does not exist. */
function resolve(root: string, from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith(".")) base = path.join(path.dirname(from), spec);
  else return null;
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, "index.ts"),
    path.join(base, "index.tsx"),
  ]) {
    const full = path.join(root, candidate);
    if (fs.existsSync(full) && fs.statSync(full).isFile()) return path.normalize(candidate);
  }
  return null;
}

/** file → the files it imports (type-only imports too: they tie the layers together as much). */
export function fileGraph(root: string, dirs: string[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of dirs.flatMap((d) => sourcesUnder(root, d))) {
    const text = fs.readFileSync(path.join(root, file), "utf8");
    const deps = new Set<string>();
    for (const m of text.matchAll(IMPORT)) {
      const target = resolve(root, file, m[1] ?? m[2] ?? m[3]);
      if (target && target !== file) deps.add(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** The unit a lib file belongs to: its folder under lib/ ("lib/quota"), or the file itself at lib/'s top level. */
export function unitOf(file: string): string {
  const parts = file.split(path.sep);
  if (parts[0] !== "lib") return parts[0];
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : file.replace(SOURCE, "");
}

/** unit → the units it imports. */
export function unitGraph(files: Map<string, Set<string>>): Map<string, Set<string>> {
  const units = new Map<string, Set<string>>();
  for (const [file, deps] of files) {
    const from = unitOf(file);
    const set = units.get(from) ?? new Set<string>();
    for (const dep of deps) if (unitOf(dep) !== from) set.add(unitOf(dep));
    units.set(from, set);
  }
  return units;
}

/** Every cycle, as the strongly connected components of more than one node (Tarjan), each sorted. */
export function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}
