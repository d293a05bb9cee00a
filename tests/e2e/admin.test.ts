// E2E: an operator takes someone from the waitlist to a working Pro key in the browser, sees the use on the charts,
// and revokes the key; a Pro caller reads their own usage. axe finds nothing serious, in both themes; screenshots at
// 375 and 1280 px.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright";
import { type App, createKey, startApp } from "../helpers/app";
import { axeBothThemes, hasHorizontalOverflow, launchBrowser, openPage, screenshotAll } from "../helpers/browser";
import { call, generate } from "../helpers/http";

const ADMIN_TOKEN = `e2e-admin-${"k".repeat(32)}`;
let app: App;
let browser: Browser;

before(async () => {
  [app, browser] = await Promise.all([
    startApp({
      name: "e2e-admin",
      env: {
        ADMIN_TOKEN,
        PRO_REQUESTS_PER_DAY: "50",
        // A faces route on an AUTOMATIC1111 server (never called here: the port is closed), for its licence terms.
        A1111_URLS: "http://127.0.0.1:9",
        ENHANCE_FACES: "a1111:R-ESRGAN 4x+",
      },
    }),
    launchBrowser(),
  ]);
});
after(async () => {
  await browser?.close();
  await app?.stop();
});

/** The bars drawn for one series of a chart, as their summed heights. */
async function barHeight(page: Page, chart: string, series: string): Promise<number> {
  return page
    .getByTestId(chart)
    .locator(`rect[data-series="${series}"]`)
    .evaluateAll((rects) => rects.reduce((sum, r) => sum + Number(r.getAttribute("height")), 0));
}

async function checkPage(page: Page, name: string, ready?: (p: Page) => Promise<void>) {
  await screenshotAll(page, name, ready);
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    assert.equal(await hasHorizontalOverflow(page), false, `${name} scrolls sideways at ${width} px`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  assert.deepEqual(await axeBothThemes(page), [], `${name}: axe`);
}

test("from the waitlist to a working key, its use on the charts, and its revocation", async () => {
  const email = "grace@example.com";
  const signup = await call(app.url, "/api/waitlist", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, use_case: "Illustrations for a children's book" }),
  });
  assert.equal(signup.status, 200);

  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/admin`);
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  await checkPage(page, "admin-sign-in");

  await page.getByLabel("Admin token").fill("not-the-token-but-long-enough-to-try");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByTestId("sign-in-error").filter({ hasText: "That is not the admin token." }).waitFor();
  await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("tab", { name: "Overview" }).waitFor();
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === "darkroom_admin");
  assert.ok(session?.httpOnly, "the session cookie is HttpOnly");
  assert.equal(session?.sameSite, "Strict");
  assert.equal(await page.evaluate(() => document.cookie.includes("darkroom_admin")), false);

  await page.getByTestId("requests-today").waitFor();
  const requestsBefore = Number(await page.getByTestId("requests-today").innerText());
  const proBarsBefore = await barHeight(page, "chart-requests", "generate/pro");

  // Approve the signup, copy the key.
  await page.getByRole("tab", { name: "Waitlist" }).click();
  const row = page.locator(`tr[data-email="${email}"]`);
  await row.waitFor();
  assert.match(await row.innerText(), /pending/);
  await checkPage(page, "admin-waitlist");
  await page.getByRole("button", { name: `Approve ${email}` }).click();
  const issued = page.getByTestId("issued-key");
  await issued.waitFor();
  const key = (await page.getByTestId("issued-key-value").innerText()).trim();
  assert.match(key, /^dk_live_[A-Za-z0-9_-]{43}$/);
  assert.match(await page.getByTestId("issued-key-invitation").innerText(), /\/docs/);
  await page.getByRole("button", { name: "Copy key" }).click();
  await page.getByRole("button", { name: "Key copied" }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
  await checkPage(page, "admin-key-issued");
  await page.getByRole("button", { name: "Done, I have copied it" }).click();
  await page.getByRole("radio", { name: /Invited/ }).check({ force: true });
  await page.locator(`tr[data-email="${email}"]`).filter({ hasText: "invited" }).waitFor();

  // Use it, and see the charts move.
  const auth = { Authorization: `Bearer ${key}` };
  const imageUrls: string[] = [];
  for (const prompt of ["a red kite over the sea", "a paper crane"]) {
    const res = await generate(app.url, { prompt }, { headers: auth });
    assert.equal(res.status, 200, res.text);
    imageUrls.push(res.json.url);
  }
  await page.getByRole("tab", { name: "Overview" }).click();
  await page.getByRole("button", { name: "Refresh" }).click();
  await page
    .getByTestId("requests-today")
    .filter({ hasText: String(requestsBefore + 2) })
    .waitFor();
  assert.ok((await barHeight(page, "chart-requests", "generate/pro")) > proBarsBefore, "the Pro bar grew");
  assert.ok((await barHeight(page, "chart-outcomes", "succeeded")) > 0);
  assert.match(await page.getByTestId("chart-models").innerText(), /alpha-pro/);
  // The enhance modes with their routes, and the face model's licence terms (GFPGAN, ENHANCE_FACE_RESTORER's default).
  const faces = page.getByTestId("enhance-modes-table").locator('tr[data-mode="faces"]');
  assert.match(await faces.innerText(), /a1111:R-ESRGAN 4x\+[\s\S]*AI/);
  assert.match(await page.getByTestId("licence-faces").innerText(), /GFPGAN includes parts under non-commercial terms/);
  assert.match(
    await page.getByTestId("enhance-modes-table").locator('tr[data-mode="creative"]').innerText(),
    /No route \(ENHANCE_CREATIVE\)[\s\S]*Not served/,
  );
  await checkPage(page, "admin-overview");

  // Revoke it, and its images with it; the next call fails and the images are gone.
  await page.getByRole("tab", { name: "Keys" }).click();
  const keyRow = page.locator("tr", { hasText: email });
  await keyRow.getByTestId("key-usage-today").filter({ hasText: "2" }).waitFor();
  await checkPage(page, "admin-keys");
  await keyRow.getByRole("button", { name: `Revoke ${email}` }).click();
  await keyRow.getByRole("checkbox", { name: "Also delete its images" }).check();
  await checkPage(page, "admin-revoke-confirm");
  await keyRow.getByRole("button", { name: "Confirm revoke and delete images" }).click();
  await keyRow.filter({ hasText: "revoked" }).waitFor();
  for (const url of imageUrls) assert.equal((await fetch(url)).status, 404, `${url} deleted with its key`);
  const refused = await generate(app.url, { prompt: "one more" }, { headers: auth });
  assert.equal(refused.status, 401);
  assert.equal(refused.json.error.code, "unauthorized");

  await page.getByRole("tab", { name: "Audit log" }).click();
  const audit = page.getByTestId("audit-table");
  await audit.filter({ hasText: "Revoked key" }).waitFor();
  const auditText = await audit.innerText();
  for (const action of ["Signed in", "Approved", "Revoked key", "Deleted key's images"]) {
    assert.match(auditText, new RegExp(action));
  }
  assert.match(auditText, /127\.0\.0\.0\/24/);
  assert.doesNotMatch(auditText, /127\.0\.0\.1\b/);
  await checkPage(page, "admin-audit");

  // Signing out ends the session on the server: a copy of the cookie taken before stops working.
  const copied = (await context.cookies()).find((c) => c.name === "darkroom_admin");
  assert.ok(copied, "the console's session cookie");
  const withCopy = () => call(app.url, "/api/admin/keys", { headers: { Cookie: `darkroom_admin=${copied.value}` } });
  assert.equal((await withCopy()).status, 200);
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  assert.equal((await withCopy()).status, 401, "the copied cookie is refused after sign-out");
  assert.deepEqual(problems, []);
  await context.close();
});

test("sign out everywhere ends every console session, on every browser", async () => {
  const signIn = async () => {
    const { page, context, problems } = await openPage(browser);
    await page.goto(`${app.url}/admin`);
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out everywhere" }).waitFor();
    return { page, context, problems };
  };
  const first = await signIn();
  const second = await signIn();
  first.page.once("dialog", (dialog) => void dialog.accept());
  await first.page.getByRole("button", { name: "Sign out everywhere" }).click();
  await first.page.getByRole("button", { name: "Sign in" }).waitFor();
  // The other browser's session ended too: its next load shows the sign-in form.
  await second.page.reload();
  await second.page.getByRole("button", { name: "Sign in" }).waitFor();
  const audit = await call(app.url, "/api/admin/audit", { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.ok(audit.json.entries.some((e: { action: string }) => e.action === "sign_out_everywhere"));
  assert.deepEqual([...first.problems, ...second.problems], []);
  await Promise.all([first.context.close(), second.context.close()]);
});

test("a Pro caller pastes their key and sees their own usage, kept only in memory", async () => {
  const { key } = await createKey(app, "reader");
  for (const prompt of ["a snowy owl", "a tram at night", "a field of tulips"]) {
    assert.equal((await generate(app.url, { prompt }, { headers: { Authorization: `Bearer ${key}` } })).status, 200);
  }
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/account`);
  await checkPage(page, "account-empty");
  await page.getByLabel("Your Pro API key").fill("dk_live_not-a-real-key");
  await page.getByRole("button", { name: "Show my usage" }).click();
  await page.getByText("That key is not a valid, active Pro key.").waitFor();
  await page.getByLabel("Your Pro API key").fill(key);
  await page.getByRole("button", { name: "Show my usage" }).click();
  await page.getByTestId("account-usage").waitFor();
  assert.equal(await page.getByTestId("usage-total").innerText(), "3");
  assert.equal(await page.getByTestId("used-today").innerText(), "3");
  assert.ok((await barHeight(page, "chart-account", "generate")) > 0);
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  assert.ok(!stored.includes(key) && !page.url().includes(key), "the key is neither stored nor in the address");
  await checkPage(page, "account-usage");
  await page.getByRole("button", { name: "Forget key" }).click();
  await page.getByLabel("Your Pro API key").waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});
