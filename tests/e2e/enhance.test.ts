// E2E: upload checks, an enhancement of an untouched upload, the compare slider moved by keyboard, and the download.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright";
import { type App, startApp } from "../helpers/app";
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

/** Chromium hides blob-backed request bodies from Playwright, so the page's own fetch reports the file it sends. */
async function recordUploads(page: Page): Promise<() => Promise<{ name: string; type: string; base64: string }[]>> {
  await page.addInitScript(() => {
    const sent: Promise<{ name: string; type: string; base64: string }>[] = [];
    Object.assign(window, { __sentImages: sent });
    const original = window.fetch.bind(window);
    window.fetch = (input, init) => {
      const image = init?.body instanceof FormData ? init.body.get("image") : null;
      if (image instanceof File) {
        const read = new Promise<string>((resolve) => {
          const reader = new FileReader();
          reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
          reader.readAsDataURL(image);
        });
        sent.push(read.then((base64) => ({ name: image.name, type: image.type, base64 })));
      }
      return original(input, init);
    };
  });
  type Sent = { name: string; type: string; base64: string };
  return () => page.evaluate(() => Promise.all((window as unknown as { __sentImages: Promise<Sent>[] }).__sentImages));
}

test("client-side checks refuse wrong types and undecodable oversized files without uploading", async () => {
  const { page, context, problems } = await openPage(browser);
  let uploads = 0;
  page.on("request", (r) => {
    if (r.url().endsWith("/api/enhance")) uploads++;
  });
  await page.goto(`${app.url}/enhance`);
  await page.getByTestId("preview-empty").waitFor();
  await page
    .getByTestId("usage-meter")
    .filter({ hasText: /^5 of 5 free enhancements left today/ })
    .waitFor();
  assert.equal(await page.getByTestId("enhance").isDisabled(), true);
  // The default limits, as published by /api/status.
  await page
    .getByTestId("upload-limits")
    .filter({ hasText: "photos over 10 MB or 25 megapixels are resized in your browser" })
    .waitFor();
  await screenshotAll(page, "enhance-empty");
  assert.deepEqual(await axeBothThemes(page), []);

  const input = page.locator("#image-file");
  await input.setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
  await page.getByTestId("file-error").filter({ hasText: "is not a PNG, JPEG, WebP, AVIF or GIF image" }).waitFor();
  await input.setInputFiles({ name: "huge.png", mimeType: "image/png", buffer: Buffer.alloc(10 * 1024 * 1024 + 1) });
  // Too large, and not an image the browser can decode to shrink it.
  await page
    .getByTestId("file-error")
    .filter({ hasText: "is over this server's 10 MB upload limit, and your browser couldn't read it as an image" })
    .waitFor();
  assert.equal(await page.getByTestId("enhance").isDisabled(), true);
  assert.equal(uploads, 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test("an enhance of an untouched small upload, with the compare slider moved by the keyboard", async () => {
  const { page, context, problems } = await openPage(browser);
  const sentImages = await recordUploads(page);
  await page.goto(`${app.url}/enhance`);
  const png = await pngOf(320, 240);
  await page.locator("#image-file").setInputFiles({ name: "harbour.png", mimeType: "image/png", buffer: png });
  await page.getByTestId("upload-preview").waitFor();
  assert.match(await page.locator("figcaption").innerText(), /harbour\.png · 320×240/);
  assert.equal(await page.getByTestId("resize-notice").count(), 0);

  await page.getByRole("slider", { name: "Strength" }).fill("0.8");
  assert.equal(await page.getByTestId("strength-value").innerText(), "0.80");
  await page.getByRole("radio", { name: "4×" }).check();
  await page.getByRole("radio", { name: "2×" }).check();
  await page.getByTestId("enhance").click();

  await page.getByTestId("compare").waitFor({ timeout: 120_000 });
  // Within the default limits the file goes up byte for byte, under its own name.
  const [sent] = await sentImages();
  assert.deepEqual({ name: sent.name, type: sent.type }, { name: "harbour.png", type: "image/png" });
  assert.ok(Buffer.from(sent.base64, "base64").equals(png), "the upload is the chosen file, untouched");
  assert.equal(await page.getByTestId("original-size").innerText(), "320 × 240");
  assert.equal(await page.getByTestId("enhanced-size").innerText(), "640 × 480");
  await page
    .getByTestId("usage-meter")
    .filter({ hasText: /^4 of 5 free enhancements left today/ })
    .waitFor();
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
