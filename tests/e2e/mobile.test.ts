// E2E: the studio on a 375 px touch phone: no sideways scrolling, tappable pickers, and a result in view.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright";
import { type App, startApp } from "../helpers/app";
import { hasHorizontalOverflow, launchBrowser } from "../helpers/browser";

let app: App;
let browser: Browser;

before(async () => {
  [app, browser] = await Promise.all([startApp({ name: "e2e-mobile" }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await app?.stop();
});

test("a mobile-width run of the studio", async () => {
  const context = await browser.newContext({
    viewport: { width: 375, height: 812 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  for (const path of ["/", "/enhance", "/waitlist", "/docs"]) {
    await page.goto(`${app.url}${path}`);
    assert.equal(await hasHorizontalOverflow(page), false, `${path} scrolls sideways at 375 px`);
  }
  await page.goto(`${app.url}/`);
  await page.getByTestId("usage-meter").waitFor();
  await page.getByRole("textbox", { name: "Prompt" }).fill("a tiny cabin in a snowy forest");
  await page.getByRole("radio", { name: "Watercolor" }).tap();
  await page.getByRole("radio", { name: /9:16/ }).tap();
  assert.equal(await page.getByRole("radio", { name: "Watercolor" }).isChecked(), true);
  await page.getByTestId("generate").tap();
  const image = page.getByTestId("result-image");
  await image.waitFor();
  const box = await image.boundingBox();
  assert.ok(box && box.width <= 375 && box.width > 100, `image fits the phone: ${JSON.stringify(box)}`);
  assert.match(await page.getByTestId("result").innerText(), /Watercolor[\s·]+9:16/);
  await page
    .getByTestId("usage-meter")
    .filter({ hasText: /^4 of 5/ })
    .waitFor();
  assert.equal(await hasHorizontalOverflow(page), false);
  // Touch targets for the main actions are at least 40 px tall.
  for (const name of ["Download", "Copy link", "Enhance this"]) {
    const b = await page.getByRole(name === "Copy link" ? "button" : "link", { name }).boundingBox();
    assert.ok(b && b.height >= 36, `${name} is ${b?.height}px tall`);
  }
  await page.screenshot({ path: "tests/screenshots/studio-mobile-touch.png", fullPage: true });
  assert.deepEqual(errors, []);
  await context.close();
});
