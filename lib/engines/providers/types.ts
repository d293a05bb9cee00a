// What a provider adapter is: one request in, raw image bytes out, failures thrown as typed errors.
import type { FetchFn } from "@/lib/engines/bounded-fetch";
import type { GenerateJob } from "@/lib/engines/types";

export type ProviderSettings = {
  apiKey: string;
  /** The *_BASE_URL override; each adapter documents its default. */
  baseUrl?: string;
  fetch: FetchFn;
};

export type ProviderRequest = {
  job: GenerateJob;
  /** Fires on client disconnect or at the route's deadline. */
  signal: AbortSignal;
  timeoutMs: number;
};

export type ProviderResult = {
  /** Any decodable image; the chain re-encodes it to the exact PNG size. */
  bytes: Uint8Array;
  seed?: number;
};

export type ProviderCall = (req: ProviderRequest) => Promise<ProviderResult>;
