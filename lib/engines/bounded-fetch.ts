// The one fetch every provider call goes through, so a provider image URL cannot flood memory or use a non-HTTP scheme,
// and a URL the guard refused fails the route like any other bad answer.
import { type FetchFn, RefusedUrlError } from "@/lib/net/guarded-fetch";
import { ProviderError } from "./failures";
/** Larger than any PNG a provider returns at ≤ 2 MP, small enough that a hostile URL cannot exhaust memory. */
export const MAX_RESPONSE_BYTES = 40 * 1024 * 1024;

export type { FetchFn };

/**
 * Size is bounded here because the SDKs follow image URLs blindly; time is bounded by the caller's abort signal.
 * `inner` is the guarded fetch of the provider's host policy (lib/net/guarded-fetch).
 */
export function createBoundedFetch(inner: FetchFn, maxBytes = MAX_RESPONSE_BYTES): FetchFn {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== "http:" && url.protocol !== "https:" && url.protocol !== "data:") {
      throw new ProviderError("malformed", `refused to fetch a ${url.protocol} URL`);
    }
    const res = await inner(input, init).catch((err: unknown) => {
      throw err instanceof RefusedUrlError ? new ProviderError("malformed", `refused ${err.message}`) : err;
    });
    const declared = Number(res.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw new ProviderError("malformed", `response of ${declared} bytes exceeds ${maxBytes}`);
    }
    if (!res.body) return res;
    return new Response(res.body.pipeThrough(limitBytes(maxBytes)), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

function limitBytes(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(new ProviderError("malformed", `response exceeds ${maxBytes} bytes`));
      else controller.enqueue(chunk);
    },
  });
}
