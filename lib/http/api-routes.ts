// The routes withApi wraps, by their pattern in the build's routes manifest (lib/metrics/routes.ts). Every answer
// on them carries the contract's rate-limit headers, so while the server drains (server.ts) their requests still
// reach withApi, which turns them away with the headers of the caller's bucket; the server answers the rest itself.
export const API_ROUTES: ReadonlySet<string> = new Set([
  "/api/generate",
  "/api/enhance",
  "/api/status",
  "/api/account",
  "/api/usage",
  "/api/waitlist",
  "/api/images",
  "/api/images/[...id]",
  "/api/jobs/[id]",
  "/api/jobs/[id]/events",
  "/v1/images/generations",
  "/v1/images/edits",
  "/v1/images/variations",
  "/v1/models",
  "/v1/models/[id]",
  "/v1/[...path]",
]);
