// The limits, errors and headers tables of the API reference, from the same tables the server uses.

import { RATE_LIMIT_HEADERS } from "@/lib/openapi";
import { ERROR_CODES, type ErrorCode } from "@/lib/schemas/error-codes";
import { mono, SimpleTable } from "./simple-table";

export type Limits = {
  freeGenerationsPerDay: number;
  freeEnhancementsPerDay: number;
  proRequestsPerDay: number;
  statusCallsPerMinute: number;
  waitlistSignupsPerDay: number;
  maxUploadBytes: number;
};

export function LimitsTable({ limits }: { limits: Limits }) {
  const mb = (limits.maxUploadBytes / 1024 / 1024).toLocaleString("en-US", { maximumFractionDigits: 1 });
  return (
    <SimpleTable
      caption="Limits"
      testId="limits-table"
      head={["What", "Free (browser, per IP)", "Pro (per key)"]}
      rows={[
        {
          key: "generations",
          cells: [
            "Generations per day",
            limits.freeGenerationsPerDay.toLocaleString("en-US"),
            `${limits.proRequestsPerDay.toLocaleString("en-US")} requests, shared`,
          ],
        },
        {
          key: "enhancements",
          cells: ["Enhancements per day", limits.freeEnhancementsPerDay.toLocaleString("en-US"), "(same counter)"],
        },
        { key: "window", cells: ["Daily window", "resets 00:00 UTC", "resets 00:00 UTC"] },
        {
          key: "status",
          cells: [
            mono("GET /api/status"),
            `${limits.statusCallsPerMinute} calls/minute, no quota`,
            `${limits.statusCallsPerMinute} calls/minute, no quota`,
          ],
        },
        { key: "prompt", cells: ["Prompt length", "1–400 characters (Unicode code points)", "same"] },
        { key: "upload", cells: ["Upload", `${mb} MB, 25 megapixels; PNG, JPEG, WebP, AVIF, GIF`, "same"] },
        { key: "output", cells: ["Enhanced output", "2× or 4×, long side ≤ 4,096 px", "same"] },
        { key: "json", cells: ["JSON body", "64 KB", "64 KB"] },
        { key: "waitlist", cells: ["Waitlist signups", `${limits.waitlistSignupsPerDay} per IP per day`, "—"] },
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
      rows={(Object.entries(ERROR_CODES) as [ErrorCode, (typeof ERROR_CODES)[ErrorCode]][]).map(([code, e]) => ({
        key: code,
        cells: [
          <span key="code" id={`error-${code}`} className="scroll-mt-6">
            {mono(code)}
          </span>,
          String(e.status),
          e.message,
        ],
      }))}
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
        {
          key: "Authorization",
          cells: [
            mono("Authorization: Bearer <key>"),
            "request",
            "Your Pro key. An unknown or revoked key is 401, never Free.",
          ],
        },
        {
          key: "X-Requested-With",
          cells: [
            mono("X-Requested-With: XMLHttpRequest"),
            "request",
            "Sent by the app's own pages: Free plan, counted per IP.",
          ],
        },
        {
          key: "Content-Type",
          cells: [mono("Content-Type"), "request", "application/json, or multipart/form-data for /api/enhance."],
        },
        ...RATE_LIMIT_HEADERS.map((h) => ({ key: h.name, cells: [mono(h.name), "response", h.description] })),
      ]}
    />
  );
}
