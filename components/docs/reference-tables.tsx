// The limits, errors and headers tables of the API reference, from the same tables the server uses.
import { ERROR_CODES, type ErrorCode } from "@/lib/api/error-codes";
import { RATE_LIMIT_HEADERS } from "@/lib/openapi";
import { SimpleTable } from "./simple-table";

export type Limits = {
  freeGenerationsPerDay: number;
  freeEnhancementsPerDay: number;
  proRequestsPerDay: number;
  statusCallsPerMinute: number;
  waitlistSignupsPerDay: number;
  maxUploadBytes: number;
};

const mono = (s: string) => <code className="font-mono text-[13px] whitespace-nowrap">{s}</code>;

export function LimitsTable({ limits }: { limits: Limits }) {
  const mb = (limits.maxUploadBytes / 1024 / 1024).toLocaleString("en-US", { maximumFractionDigits: 1 });
  return (
    <SimpleTable
      caption="Limits"
      testId="limits-table"
      head={["What", "Free (browser, per IP)", "Pro (per key)"]}
      rows={[
        [
          "Generations per day",
          limits.freeGenerationsPerDay.toLocaleString("en-US"),
          `${limits.proRequestsPerDay.toLocaleString("en-US")} requests, shared`,
        ],
        ["Enhancements per day", limits.freeEnhancementsPerDay.toLocaleString("en-US"), "(same counter)"],
        ["Daily window", "resets 00:00 UTC", "resets 00:00 UTC"],
        [
          mono("GET /api/status"),
          `${limits.statusCallsPerMinute} calls/minute, no quota`,
          `${limits.statusCallsPerMinute} calls/minute, no quota`,
        ],
        ["Prompt length", "1–400 characters (Unicode code points)", "same"],
        ["Upload", `${mb} MB, 25 megapixels; PNG, JPEG, WebP, AVIF, GIF`, "same"],
        ["Enhanced output", "2× or 4×, long side ≤ 4,096 px", "same"],
        ["JSON body", "64 KB", "64 KB"],
        ["Waitlist signups", `${limits.waitlistSignupsPerDay} per IP per day`, "—"],
      ]}
    />
  );
}

export function ErrorsTable() {
  return (
    <SimpleTable
      caption="Error codes"
      testId="errors-table"
      head={["Code", "HTTP", "Meaning"]}
      rows={(Object.entries(ERROR_CODES) as [ErrorCode, (typeof ERROR_CODES)[ErrorCode]][]).map(([code, e]) => [
        <span key="c" id={`error-${code}`} className="scroll-mt-6">
          {mono(code)}
        </span>,
        String(e.status),
        e.message,
      ])}
    />
  );
}

export function HeadersTable() {
  return (
    <SimpleTable
      caption="Headers"
      testId="headers-table"
      head={["Header", "Direction", "Meaning"]}
      rows={[
        [mono("Authorization: Bearer <key>"), "request", "Your Pro key. An unknown or revoked key is 401, never Free."],
        [
          mono("X-Requested-With: XMLHttpRequest"),
          "request",
          "Sent by the app's own pages: Free plan, counted per IP.",
        ],
        [mono("Content-Type"), "request", "application/json, or multipart/form-data for /api/enhance."],
        ...RATE_LIMIT_HEADERS.map((h) => [mono(h.name), "response", h.description]),
      ]}
    />
  );
}
