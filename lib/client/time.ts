// Human wording for quota resets, e.g. "5 h 12 m", shared by meters and error messages.
export function formatDuration(ms: number): string {
  const minutes = Math.max(0, Math.ceil(ms / 60_000));
  if (minutes < 1) return "less than a minute";
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (h === 0) return `${m} m`;
  return m === 0 ? `${h} h` : `${h} h ${m} m`;
}

/** "Expires in 29 days", "Expires in 3 h 5 m", "Kept until deleted"; empty for items saved before expiry existed. */
export function formatExpiry(expiresAt: string | null | undefined, now: number): string {
  if (expiresAt === undefined) return "";
  if (expiresAt === null) return "Kept until deleted";
  const left = Date.parse(expiresAt) - now;
  if (left <= 0) return "Expired";
  const days = Math.floor(left / 86_400_000);
  if (days >= 2) return `Expires in ${days} days`;
  return `Expires in ${formatDuration(left)}`;
}
