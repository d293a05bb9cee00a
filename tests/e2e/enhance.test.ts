// E2E: upload checks, an enhancement, the compare slider moved by keyboard, and the download.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, test } from "node:test";
import type { Browser } from "playwright";
import { startApp, type App } from "../helpers/app";
import { axeBothThemes, launchBrowser, openPage, screenshotAll } from "../helpers/browser";
import { pngOf } from "../helpers/images";

let app: App;
let browser: Browser;

before(async () => {
  [app, browser] = await Promise.all([startApp({ name: "e2e-enhance" }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await app?.stop();
});

test("client-side checks refuse wrong types and oversized files without uploading", async () => {
  const { page, context, problems } = await openPage(browser);
  let uploads = 0;
  page.on("request", (r) => {
    if (r.url().endsWith("/api/enhance")) uploads++;
  });
  await page.goto(`${app.url}/enhance`);
  await page.getByTestId("preview-empty").waitFor();
  await page.getByTestId("usage-meter").filter({ hasText: /^5 of 5 free enhancements left today/ }).waitFor();
  assert.equal(await page.getByTestId("enhance").isDisabled(), true);
  await screenshotAll(page, "enhance-empty");
  assert.deepEqual(await axeBothThemes(page), []);

  const input = page.locator("#image-file");
  await input.setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
  await page.getByTestId("file-error").filter({ hasText: "is not a PNG, JPEG, WebP, AVIF or GIF image" }).waitFor();
  await input.setInputFiles({ name: "huge.png", mimeType: "image/png", buffer: Buffer.alloc(10 * 1024 * 1024 + 1) });
  await page.getByTestId("file-error").filter({ hasText: "the limit is 10 MB" }).waitFor();
  assert.equal(await page.getByTestId("enhance").isDisabled(), true);
  assert.equal(uploads, 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test("an enhance with the compare slider moved by the keyboard", async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/enhance`);
  await page.locator("#image-file").setInputFiles({ name: "harbour.png", mimeType: "image/png", buffer: await pngOf(320, 240) });
  await page.getByTestId("upload-preview").waitFor();
  assert.match(await page.locator("figcaption").innerText(), /harbour\.png · 320×240/);

  await page.getByRole("slider", { name: "Strength" }).fill("0.8");
  assert.equal(await page.getByTestId("strength-value").innerText(), "0.80");
  await page.getByRole("radio", { name: "4×" }).check();
  await page.getByRole("radio", { name: "2×" }).check();
  await page.getByTestId("enhance").click();

  await page.getByTestId("compare").waitFor();
  assert.equal(await page.getByTestId("original-size").innerText(), "320 × 240");
  assert.equal(await page.getByTestId("enhanced-size").innerText(), "640 × 480");
  await page.getByTestId("usage-meter").filter({ hasText: /^4 of 5 free enhancements left today/ }).waitFor();
  await page.getByTestId("announcer").filter({ hasText: "Enhanced from 320x240 to 640x480" }).waitFor();

  const slider = page.getByRole("slider", { name: /Compare before and after/ });
  // The original is clipped from the right: the inset's right edge is the share of the enhanced image shown.
  const clip = async () => {
    const value = await page.getByTestId("compare-before").evaluate((el: HTMLElement) => el.style.clipPath);
    return Number(/^inset\(0(?:px)? ([\d.]+)(?:%|px)/.exec(value)?.[1]);
  };
  assert.equal(await clip(), 50);
  await slider.focus();
  for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowRight");
  assert.equal(await slider.inputValue(), "55");
  assert.equal(await clip(), 45);
  await page.keyboard.press("Home");
  assert.equal(await clip(), 100);
  await page.keyboard.press("End");
  assert.equal(await clip(), 0);
  await page.keyboard.press("PageDown");
  assert.ok(Number(await slider.inputValue()) < 100);
  assert.match((await slider.getAttribute("aria-valuetext")) ?? "", /% original/);

  // Mouse: clicking near the left edge shows mostly the enhanced image.
  const box = await page.getByTestId("compare").boundingBox();
  assert.ok(box);
  await page.mouse.click(box.x + box.width * 0.2, box.y + box.height / 2);
  assert.ok(Math.abs(Number(await slider.inputValue()) - 20) <= 3, `clicked to ~20, got ${await slider.inputValue()}`);
  await slider.focus();
  await page.keyboard.press("ArrowRight");

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download").click()]);
  const file = await download.path();
  assert.ok(file);
  assert.equal(fs.readFileSync(file).subarray(1, 4).toString("latin1"), "PNG");
  assert.equal(download.suggestedFilename(), "harbour-enhanced-2x.png");

  await screenshotAll(page, "enhance-result");
  assert.deepEqual(await axeBothThemes(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test("“Enhance this” from the studio hands the generated image over", async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/`);
  await page.getByRole("textbox", { name: "Prompt" }).fill("a red bicycle against a blue wall");
  await page.getByTestId("generate").click();
  await page.getByTestId("result-image").waitFor();
  await page.getByRole("link", { name: "Enhance this" }).click();
  await page.waitForURL(/\/enhance\?src=/);
  await page.getByTestId("upload-preview").waitFor();
  assert.match(await page.locator("figcaption").innerText(), /1024×1024/);
  assert.deepEqual(problems, []);
  await context.close();
});
