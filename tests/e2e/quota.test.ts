// E2E: the Free quota runs out after 5 generations; the meter and the 429 message say so, with the waitlist link.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright";
import { type App, startApp } from "../helpers/app";
import { axeBothThemes, launchBrowser, openPage, screenshotAll } from "../helpers/browser";

let app: App;
let browser: Browser;

before(async () => {
  [app, browser] = await Promise.all([startApp({ name: "e2e-quota" }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await app?.stop();
});

test("the quota runs out after 5 free generations, with the meter and the message right", async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/`);
  const meter = page.getByTestId("usage-meter");
  await meter.filter({ hasText: /^5 of 5 free/ }).waitFor();
  const prompt = page.getByRole("textbox", { name: "Prompt" });
  const button = page.getByTestId("generate");

  for (let i = 1; i <= 5; i++) {
    await prompt.fill(`a quiet harbour at dawn, take ${i}`);
    await button.click();
    await meter.filter({ hasText: new RegExp(`^${5 - i} of 5 free generations left today · resets in \\d`) }).waitFor();
    await page
      .getByTestId("history")
      .getByRole("listitem")
      .nth(i - 1)
      .waitFor();
    await page
      .getByTestId("generate")
      .filter({ hasText: /^Generate$/ })
      .waitFor();
  }
  assert.equal(await page.getByTestId("history").getByRole("listitem").count(), 5);
  assert.equal(await page.getByRole("meter").evaluate((m: HTMLMeterElement) => m.value), 5);

  await prompt.fill("one more, please");
  await button.click();
  const notice = page.getByTestId("error-notice");
  await notice.waitFor();
  assert.equal(await notice.getAttribute("data-code"), "rate_limited");
  const text = await notice.innerText();
  assert.match(text, /You've used all 5 free generations for today/);
  assert.match(text, /come back in (\d+ h( \d+ m)?|\d+ m|less than a minute) \(midnight UTC\)/);
  const link = notice.getByRole("link", { name: "Join the Pro waitlist" });
  assert.equal(await link.getAttribute("href"), "/waitlist");
  assert.match(await meter.innerText(), /^0 of 5 free generations left today · resets in \d/);
  await page.getByTestId("announcer").filter({ hasText: "You've used all 5 free generations" }).waitFor();

  // The status record agrees after a reload.
  await page.reload();
  await meter.filter({ hasText: /^0 of 5 free/ }).waitFor();

  await prompt.fill("still nothing left");
  await button.click();
  await notice.waitFor();
  await screenshotAll(page, "studio-quota");
  assert.deepEqual(await axeBothThemes(page), []);

  await link.click();
  await page.waitForURL(`${app.url}/waitlist`);
  assert.deepEqual(problems, []);
  await context.close();
});
