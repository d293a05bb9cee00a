// The route pattern of a request path, read from the build's routes manifest, so request metrics are labelled by
// "/api/jobs/[id]" and never by a raw path (ids, probes of random URLs): the label set stays bounded.
import fs from "node:fs";
import path from "node:path";

type ManifestRoute = { page: string; regex: string };
/** Paths served before Next, or by it outside the app's routes. */
const PREFIXES: [string, string][] = [
  ["/cdn/", "/cdn/[file]"],
  ["/_next/", "/_next"],
];
export const OTHER_ROUTE = "other";

export type RouteMatcher = (pathname: string) => string;

export function routeMatcherOf(manifest: { staticRoutes?: ManifestRoute[]; dynamicRoutes?: ManifestRoute[] }) {
  const statics = new Set((manifest.staticRoutes ?? []).map((r) => r.page));
  // Next lists dynamic routes most specific first, catch-alls last.
  const dynamics = (manifest.dynamicRoutes ?? []).map((r) => ({ page: r.page, regex: new RegExp(r.regex) }));
  return (pathname: string): string => {
    const trimmed = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
    if (statics.has(trimmed)) return trimmed;
    for (const [prefix, route] of PREFIXES) if (pathname.startsWith(prefix)) return route;
    return dynamics.find((d) => d.regex.test(pathname))?.page ?? OTHER_ROUTE;
  };
}

/** The matcher of a build directory; every path is "other" when its manifest cannot be read (a dev server). */
export function loadRouteMatcher(distDir: string): RouteMatcher {
  try {
    return routeMatcherOf(JSON.parse(fs.readFileSync(path.join(distDir, "routes-manifest.json"), "utf8")));
  } catch {
    return routeMatcherOf({});
  }
}
