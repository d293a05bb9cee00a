// What a provider adapter is: one request in, raw image bytes out, failures thrown as typed errors.
import type { FetchFn } from "@/lib/engines/bounded-fetch";
import type { GenerateJob } from "@/lib/engines/types";
import type { Resolver } from "@/lib/net/guarded-fetch";

/** A route's configuration, as read from the environment. */
export type ProviderConfig = {
  apiKey: string;
  /** The *_BASE_URL override; each adapter documents its default. */
  baseUrl?: string;
  /** Host-name resolution for the address check; the system resolver unless a test stubs it. */
  resolve?: Resolver;
};

/** What an adapter is built from: the configuration and the one fetch it may use. */
export type ProviderSettings = Omit<ProviderConfig, "resolve"> & {
  /** Bounded in size and guarded: only the provider's hosts, public addresses, credentials kept at home. */
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
  /** A batching route's other images (job.count > 1), in order. */
  more?: { bytes: Uint8Array; seed?: number }[];
};

export type ProviderCall = (req: ProviderRequest) => Promise<ProviderResult>;
