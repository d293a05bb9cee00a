// Comparing a presented secret (admin token, cron secret, metrics token) with the configured one in constant time
// whatever was presented: the SHA-256 digests of both are compared, so not even the length leaks.
import crypto from "node:crypto";

export function secretMatches(presented: string, secret: string): boolean {
  const a = crypto.createHash("sha256").update(presented).digest();
  const b = crypto.createHash("sha256").update(secret).digest();
  return crypto.timingSafeEqual(a, b);
}
