// E2E: a waitlist signup and a duplicate get the same confirmation; a bad email is caught before sending.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright";
import { type App, runScript, startApp } from "../helpers/app";
import { axeBothThemes, launchBrowser, openPage, screenshotAll } from "../helpers/browser";

let app: App;
let browser: Browser;

before(async () => {
  [app, browser] = await Promise.all([startApp({ name: "e2e-waitlist" }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await app?.stop();
});

test("a waitlist signup, including a duplicate", async () => {
  const { page, context, problems } = await openPage(browser);
  let posts = 0;
  page.on("request", (r) => {
    if (r.url().endsWith("/api/waitlist")) posts++;
  });
  await page.goto(`${app.url}/waitlist`);
  await screenshotAll(page, "waitlist-empty");
  assert.deepEqual(await axeBothThemes(page), []);

  const email = page.getByRole("textbox", { name: "Email" });
  await email.fill("not-an-email");
  await page.getByRole("button", { name: "Join the waitlist" }).click();
  await page.locator("#email-error").filter({ hasText: "Please enter a valid email address" }).waitFor();
  assert.equal(await email.getAttribute("aria-invalid"), "true");
  assert.equal(posts, 0);

  await email.fill("Ada@Example.com");
  await page.getByRole("textbox", { name: /What would you use it for/ }).fill("Product shots for my shop");
  await page.getByRole("button", { name: "Join the waitlist" }).click();
  const confirmation = page.getByTestId("waitlist-confirmation");
  await confirmation.waitFor();
  const first = await confirmation.innerText();
  assert.match(first, /You're on the list/);
  await screenshotAll(page, "waitlist-confirmed");

  await page.reload();
  await page.getByRole("textbox", { name: "Email" }).fill("ada@example.com");
  await page.getByRole("button", { name: "Join the waitlist" }).click();
  await confirmation.waitFor();
  assert.equal(await confirmation.innerText(), first, "a duplicate gets the very same answer");
  assert.equal(posts, 2);

  const list = await runScript(app, "waitlist", ["list", "--format", "json"]);
  const entries = JSON.parse(list.lines.join("\n")) as { email: string; use_case: string | null }[];
  assert.deepEqual(
    entries.map((e) => e.email),
    ["ada@example.com"],
  );
  assert.equal(entries[0].use_case, "Product shots for my shop");
  assert.deepEqual(problems, []);
  await context.close();
});
