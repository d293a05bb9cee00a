// The edge keeps a serverless function alive while an accepted job settles.
import { after } from "next/server";

/**
 * Keeps the function alive until an accepted job settles: on Vercel through `after` (within the route's
 * maxDuration); a long-lived server runs it to the end anyway.
 */
export function keepAlive(done: Promise<void>): void {
  try {
    after(done);
  } catch {
    // Outside a request scope that supports waitUntil, the process outlives the job by itself.
  }
}
