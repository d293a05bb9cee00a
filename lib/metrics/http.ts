// Request counts and durations for the node server (server.ts), which sees every request: pages, API routes and
// the /cdn files it serves itself. Labelled by route pattern (lib/metrics/routes.ts), never by raw path.
import type http from "node:http";
import { observeRequest } from "./index";
import type { RouteMatcher } from "./routes";

/** Counts the request once its answer is sent, or once the client went away first (status 499, as nginx logs it). */
export function timeRequest(req: http.IncomingMessage, res: http.ServerResponse, routeOf: RouteMatcher): void {
  const started = performance.now();
  res.once("close", () => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const route = routeOf(q === -1 ? url : url.slice(0, q));
    const status = res.writableFinished ? res.statusCode : 499;
    observeRequest(req.method ?? "GET", route, status, (performance.now() - started) / 1000);
  });
}
