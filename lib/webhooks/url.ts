// The request-time check of a webhook_url. Literal addresses are judged here; host names are resolved and judged
// again at every send (lib/webhooks/send.ts), since what a name points at can change after the request.
import net from "node:net";
import { InvalidWebhookUrl } from "@/lib/errors";
import { classifyAddress } from "@/lib/net/address";

/** Longer URLs are refused; no receiver needs one. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** A host as it is compared with WEBHOOK_ALLOW_HOSTS: lower case, without IPv6 brackets or a trailing dot. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h.endsWith(".")) h = h.slice(0, -1);
  return h;
}

export function isAllowedHost(host: string, allowHosts: readonly string[]): boolean {
  const h = normalizeHost(host);
  return allowHosts.some((a) => normalizeHost(a) === h);
}

/**
 * Parses and checks a webhook URL: https only (http too for an allow-listed host), no user info, and no literal
 * address outside public unicast unless its host is allow-listed. Throws InvalidWebhookUrl with a message that is
 * safe to show to the caller.
 */
export function checkWebhookUrl(url: string, allowHosts: readonly string[]): URL {
  if (url.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new InvalidWebhookUrl(`webhook_url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidWebhookUrl("webhook_url must be an absolute https URL.");
  }
  const allowed = isAllowedHost(parsed.hostname, allowHosts);
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && allowed)) {
    throw new InvalidWebhookUrl("webhook_url must be an https URL.");
  }
  if (parsed.username || parsed.password) {
    throw new InvalidWebhookUrl("webhook_url must not contain a user name or password.");
  }
  if (allowed) return parsed;
  const host = normalizeHost(parsed.hostname);
  if (host === "") throw new InvalidWebhookUrl("webhook_url must name a host.");
  // RFC 6761: these names are loopback by definition, whatever a resolver says.
  if (host === "localhost" || host.endsWith(".localhost")) {
    throw new InvalidWebhookUrl("webhook_url must point at a public address, not a loopback one.");
  }
  if (net.isIP(host) !== 0) {
    const kind = classifyAddress(host);
    if (kind !== "public") {
      throw new InvalidWebhookUrl(`webhook_url must point at a public address, not a ${kind} one.`);
    }
  }
  return parsed;
}
