// The status record's fast serialiser must produce exactly what JSON.stringify would.
import assert from "node:assert/strict";
import { it } from "node:test";
import { STATUS_STYLES, serializeStatus } from "@/lib/status/build";

it("splices the cached style catalogue into equivalent JSON", () => {
  const body = { status: "ok", version: "1.0", usage_today: 2, nested: { a: [1, 'x"y'] }, styles: STATUS_STYLES };
  const text = serializeStatus(body);
  assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(body)));
  assert.ok(STATUS_STYLES.length >= 12);
});

it("serialises any other body plainly", () => {
  const body = { status: "degraded", styles: [{ name: "x", description: "y" }] };
  assert.equal(serializeStatus(body), JSON.stringify(body));
});
