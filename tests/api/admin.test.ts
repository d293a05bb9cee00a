// The operators' console API on embedded defaults (SQLite); and without ADMIN_TOKEN, no console at all.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type App, startApp } from "../helpers/app";
import { call } from "../helpers/http";
import { ADMIN_ENDPOINTS, ADMIN_TOKEN, assertError, runAdminSuite } from "./admin-suite";

runAdminSuite("embedded");

describe("without ADMIN_TOKEN", () => {
  let app: App;
  before(async () => {
    app = await startApp({ name: "admin-off" });
  });
  after(async () => {
    await app?.stop();
  });

  it("answers 404 not_found on every admin endpoint, even to the would-be token", async () => {
    for (const [method, path] of [
      ...ADMIN_ENDPOINTS,
      ["POST", "/api/admin/session"],
      ["DELETE", "/api/admin/session"],
    ]) {
      for (const headers of [{}, { Authorization: `Bearer ${ADMIN_TOKEN}` }] as Record<string, string>[]) {
        assertError(await call(app.url, path, { method, headers }), 404, "not_found");
      }
    }
  });

  it("/admin tells the operator how to turn the console on", async () => {
    const page = await call(app.url, "/admin");
    assert.equal(page.status, 200);
    assert.match(page.text, /ADMIN_TOKEN/);
    assert.match(page.text, /32/);
  });

  it("refuses to start with an ADMIN_TOKEN under 32 characters", async () => {
    await assert.rejects(
      startApp({ name: "admin-short", env: { ADMIN_TOKEN: "too-short" } }),
      /ADMIN_TOKEN must be at least 32 characters/,
    );
  });
});
