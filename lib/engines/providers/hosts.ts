// Where a provider's answers may send us: its own hosts over HTTPS, plus the origin of the operator's *_BASE_URL.
import type { ProviderName } from "@/lib/engines/routes";
import type { UrlPolicy } from "@/lib/net/guarded-fetch";

type ProviderHosts = {
  /** API hosts: trusted with the provider's key (BFL answers a polling_url on a regional cluster that needs it). */
  api: string[];
  /** Delivery hosts for result files: reachable, but never sent the key. */
  delivery: string[];
};

/** `*` stands for part of one DNS label. Hosts as the providers' APIs answer them (polling and result URLs). */
export const PROVIDER_HOSTS: Record<ProviderName, ProviderHosts> = {
  // Global api.bfl.ai, regional api.eu/us.bfl.ai, and the clusters polling_url names (api.eu1.bfl.ai, api.us1.bfl.ai);
  // result.sample is a signed URL on delivery-eu1.bfl.ai, delivery-us1.bfl.ai, …
  bfl: { api: ["api.bfl.ai", "api.*.bfl.ai"], delivery: ["delivery-*.bfl.ai"] },
  // urls.get is on the API; outputs on replicate.delivery and its subdomains (pbxt.replicate.delivery).
  replicate: { api: ["api.replicate.com"], delivery: ["replicate.delivery", "*.replicate.delivery"] },
  // fal.run (sync) and queue.fal.run (queue status and response URLs); images on fal.media, v3.fal.media, …
  fal: { api: ["fal.run", "queue.fal.run"], delivery: ["fal.media", "*.fal.media"] },
  // Answers base64 as asked; a URL answer points at the api.together.ai image proxy.
  together: { api: ["api.together.xyz"], delivery: ["api.together.ai"] },
  // gpt-image-1 answers base64 only; nothing is downloaded.
  openai: { api: ["api.openai.com"], delivery: [] },
  stability: { api: ["api.stability.ai"], delivery: [] },
};

/**
 * The configured base URL's origin is the operator's choice: reachable whatever its address (a LocalAI on
 * loopback, a gateway on the LAN) and trusted with the key. Anything else must be one of the provider's hosts,
 * on HTTPS and its default port; the address check then keeps it off private addresses.
 */
export function createHostPolicy(provider: ProviderName, baseUrl: string | undefined): UrlPolicy {
  const configured = baseUrl ? new URL(baseUrl).origin : undefined;
  const api = PROVIDER_HOSTS[provider].api.map(hostPattern);
  const delivery = PROVIDER_HOSTS[provider].delivery.map(hostPattern);
  return (url) => {
    if (url.origin === configured) return { allowed: true, anyAddress: true, credentials: true };
    const host = url.hostname.toLowerCase().replace(/\.$/, "");
    const matches = (patterns: RegExp[]) => patterns.some((p) => p.test(host));
    const known = matches(api) || matches(delivery);
    if (!known) return { allowed: false, reason: `${host} is not one of ${provider}'s hosts` };
    if (url.protocol !== "https:" || url.port !== "") {
      return { allowed: false, reason: `${provider} hosts are reached only over https on port 443` };
    }
    return { allowed: true, anyAddress: false, credentials: matches(api) };
  };
}

function hostPattern(pattern: string): RegExp {
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.]/g, "\\."))
    .join("[a-z0-9-]+");
  return new RegExp(`^${source}$`);
}
