// The error table is one row per code (lib/schemas/error-codes.ts): the /api answer, the /v1 mapping and the
// OpenAPI document read it, and docs/api.md's table must list the same codes with the same statuses.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { openaiErrorBody } from "@/lib/http/openai/dialect";
import { ApiError } from "@/lib/schemas/api-error";
import { ERROR_CODE_NAMES, ERROR_CODES, openaiAnswerOf, paramOf } from "@/lib/schemas/error-codes";

/** Code → HTTP status, as the "## Errors" table of docs/api.md gives them (a row may name several codes). */
function documentedStatuses(): Map<string, number> {
  const doc = fs.readFileSync(path.resolve(__dirname, "../../docs/api.md"), "utf8");
  const section = doc.slice(doc.indexOf("\n## Errors"));
  const table = section.slice(0, section.indexOf("\n## ", 1));
  const statuses = new Map<string, number>();
  for (const line of table.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const status = Number(cells[2]);
    if (!Number.isInteger(status) || status < 100) continue;
    for (const [, code] of cells[1].matchAll(/`([a-z_]+)`/g)) statuses.set(code, status);
  }
  return statuses;
}

describe("the error table", () => {
  it("is what docs/api.md documents: every code, with its status, and nothing else", () => {
    const documented = documentedStatuses();
    assert.deepEqual([...documented.keys()].sort(), [...ERROR_CODE_NAMES].sort());
    for (const code of ERROR_CODE_NAMES) assert.equal(documented.get(code), ERROR_CODES[code].status, code);
  });

  it("drives the /v1 answer: OpenAI's own code where it differs, and the field an error is about", () => {
    const filtered = openaiErrorBody(new ApiError("content_filtered", "blocked"));
    assert.deepEqual(filtered, {
      status: 400,
      body: {
        error: { message: "blocked", type: "invalid_request_error", param: "prompt", code: "moderation_blocked" },
      },
    });
    const busy = openaiErrorBody(new ApiError("busy", "full"));
    assert.deepEqual(busy.body.error, { message: "full", type: "server_error", param: null, code: "busy" });
    assert.equal(busy.status, 503);
    assert.equal(paramOf("invalid_mask"), "mask");
    assert.deepEqual(openaiAnswerOf("rate_limited"), { status: 429, code: "rate_limited" });
  });
});
