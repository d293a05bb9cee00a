// Times in the console: UTC, to the minute, the same for every operator whatever their time zone.
export function formatWhen(iso: string | null): string {
  if (!iso) return "—";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "—";
  return `${new Date(t).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function formatDay(iso: string): string {
  return iso.slice(0, 10);
}
