// E2E: the studio generates with a chosen style and ratio, blocks over-long prompts, and shows the server's errors.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, test } from "node:test";
import type { Browser } from "playwright";
import { type App, startApp } from "../helpers/app";
import { axeBothThemes, launchBrowser, openPage, screenshotAll } from "../helpers/browser";

let app: App;
let browser: Browser;

before(async () => {
  [app, browser] = await Promise.all([startApp({ name: "e2e-studio" }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await app?.stop();
});

test("a generation with a chosen style and ratio is shown, kept in history and downloadable", async () => {
  const { page, context, problems } = await openPage(browser);
  const generateCalls: string[] = [];
  page.on("request", (r) => {
    if (r.url().endsWith("/api/generate")) generateCalls.push(r.headers()["x-requested-with"] ?? "");
  });
  await page.goto(`${app.url}/`);
  await page
    .getByTestId("usage-meter")
    .filter({ hasText: /^5 of 5 free generations left today · resets in \d/ })
    .waitFor();
  await page.getByTestId("result-empty").waitFor();
  await screenshotAll(page, "studio-empty");

  await page.getByRole("textbox", { name: "Prompt" }).fill("a lighthouse on a cliff at sunset");
  await page.getByRole("radio", { name: "Cinematic" }).check();
  await page.getByRole("radio", { name: /16:9/ }).check();
  await page.getByRole("radio", { name: /alpha-schnell/ }).check();
  // The model picker says plainly that the preview renderer is not AI.
  assert.ok((await page.getByTestId("not-ai-badge").count()) >= 4);

  await page.getByTestId("generate").dblclick();
  const image = page.getByTestId("result-image");
  await image.waitFor();
  assert.equal(generateCalls.length, 1, "a double click sends one request");
  assert.deepEqual(generateCalls, ["XMLHttpRequest"]);

  // The element shows before its bytes arrive; on a busy machine the load can take a while.
  await image.evaluate((img: HTMLImageElement) => img.decode());
  const size = await image.evaluate((img: HTMLImageElement) => ({ w: img.naturalWidth, h: img.naturalHeight }));
  assert.ok(size.w > 0, "the image loaded");
  assert.ok(Math.abs(size.w / size.h - 16 / 9) < 0.03 * (16 / 9), `16:9 image, got ${size.w}x${size.h}`);
  const caption = await page.getByTestId("result").innerText();
  assert.match(caption, /alpha-schnell/);
  assert.match(caption, /Cinematic/);
  assert.match(caption, /16:9/);
  assert.match(caption, /Preview renderer · not AI/);
  await page
    .getByTestId("usage-meter")
    .filter({ hasText: /^4 of 5 free generations left today/ })
    .waitFor();
  await page.getByTestId("announcer").filter({ hasText: "Image ready" }).waitFor();

  const history = page.getByTestId("history").getByRole("listitem");
  assert.equal(await history.count(), 1);
  assert.match(await history.first().innerText(), /lighthouse[\s\S]*alpha-schnell · Cinematic · 16:9/);
  const stored = await page.evaluate(
    () => JSON.parse(localStorage.getItem("darkroom.history.v1") ?? "[]") as { style: string; ratio: string }[],
  );
  assert.equal(stored.length, 1);
  assert.equal(stored[0].style, "Cinematic");

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download").click()]);
  const file = await download.path();
  assert.ok(file);
  assert.deepEqual(
    [...fs.readFileSync(file).subarray(0, 8)],
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    "a PNG was downloaded",
  );
  assert.match(download.suggestedFilename(), /^darkroom-.+\.png$/);

  await page.getByRole("button", { name: "Copy link" }).click();
  // The clipboard write is a promise the click starts; wait for it rather than read at once.
  const src = await image.getAttribute("src");
  await page.waitForFunction(async (want) => (await navigator.clipboard.readText()) === want, src);

  // History survives a reload.
  await page.reload();
  await page.getByTestId("result-image").waitFor();
  assert.equal(await page.getByTestId("history").getByRole("listitem").count(), 1);

  await screenshotAll(page, "studio-result", async (p) => {
    await p.getByTestId("result-image").evaluate((img: HTMLImageElement) => img.decode());
  });
  assert.deepEqual(await axeBothThemes(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test("an over-long prompt is blocked client-side, and the server's rejection is shown when the check is bypassed", async () => {
  const { page, context, problems } = await openPage(browser);
  let sent = 0;
  page.on("request", (r) => {
    if (r.url().endsWith("/api/generate")) sent++;
  });
  await page.goto(`${app.url}/`);
  const meter = page.getByTestId("usage-meter");
  await meter.waitFor();
  const before = await meter.innerText();
  const prompt = page.getByRole("textbox", { name: "Prompt" });

  // 400 emoji are 800 UTF-16 units but 400 code points: allowed, as the server counts.
  await prompt.fill("🌅".repeat(400));
  assert.equal(await page.getByTestId("prompt-counter").innerText(), "400 / 400");
  await prompt.fill(`${"🌅".repeat(400)}x`);
  assert.equal(await page.getByTestId("prompt-counter").innerText(), "401 / 400");
  await page.getByTestId("prompt-error").filter({ hasText: "1 characters over the 400-character limit" }).waitFor();
  assert.equal(await prompt.getAttribute("aria-invalid"), "true");
  await page.getByTestId("generate").click();
  await page.waitForTimeout(300);
  assert.equal(sent, 0, "no request for an over-long prompt");
  assert.equal(await page.evaluate(() => document.activeElement?.id), "prompt");

  await prompt.fill("   ");
  await page.getByTestId("generate").click();
  await page.getByTestId("prompt-error").filter({ hasText: "Describe the image you want first." }).waitFor();
  assert.equal(sent, 0);

  // Bypass the client check: the request leaves with a 401-code-point prompt.
  await page.route("**/api/generate", async (route) => {
    const body = JSON.parse(route.request().postData() ?? "{}") as Record<string, unknown>;
    await route.continue({ postData: JSON.stringify({ ...body, prompt: "y".repeat(401) }) });
  });
  await prompt.fill("a perfectly fine prompt");
  await page.getByTestId("generate").click();
  const notice = page.getByTestId("error-notice");
  await notice.waitFor();
  assert.equal(await notice.getAttribute("data-code"), "invalid_prompt");
  assert.match(await notice.innerText(), /Prompt must be 1 to 400 characters\./);
  assert.match(await notice.innerText(), /Reference: req_/);
  assert.equal(sent, 1);
  assert.equal(await meter.innerText(), before, "a rejected request uses no quota");
  await screenshotAll(page, "studio-error");
  assert.deepEqual(await axeBothThemes(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test("the studio works from the keyboard alone, with visible focus", async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/`);
  await page.getByTestId("usage-meter").waitFor();
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Skip to content");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement?.id), "main");
  await page.keyboard.press("Tab"); // mode: the checked radio
  assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).value), "text");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.id), "prompt");
  await page.keyboard.type("a fox in the snow");
  await page.keyboard.press("Tab"); // Generate
  await page.keyboard.press("Tab"); // how many images
  assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), "n");
  await page.keyboard.press("Tab"); // format
  assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).name), "output_format");
  await page.keyboard.press("Tab"); // style group: the checked radio
  assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).value), "Photorealistic");
  const ring = await page.evaluate(() => getComputedStyle(document.activeElement!.closest("label")!).outlineStyle);
  assert.notEqual(ring, "none", "the focused style chip shows a focus ring");
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.getByRole("radio", { name: "Cinematic" }).isChecked(), true);
  await page.keyboard.press("Tab"); // ratio group
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.getByRole("radio", { name: /16:9/ }).isChecked(), true);
  await page.getByRole("textbox", { name: "Prompt" }).focus();
  await page.keyboard.press("Control+Enter");
  await page.getByTestId("result-image").waitFor();
  assert.match(await page.getByTestId("result").innerText(), /Cinematic[\s·]+16:9/);
  assert.deepEqual(problems, []);
  await context.close();
});

test("each error code gets its own friendly message", async () => {
  const { page, context } = await openPage(browser);
  await page.goto(`${app.url}/`);
  await page.getByTestId("usage-meter").waitFor();
  const prompt = page.getByRole("textbox", { name: "Prompt" });
  const notice = page.getByTestId("error-notice");

  // 422 from the real content filter: a hint to rephrase.
  await prompt.fill("a photo of a fucking idiot");
  await page.getByTestId("generate").click();
  await notice.waitFor();
  assert.equal(await notice.getAttribute("data-code"), "content_filtered");
  assert.match(await notice.innerText(), /blocked by the safety filter[\s\S]*Try rephrasing it/);

  // 500: retry, or try another model; the Retry button sends the request again.
  let calls = 0;
  await page.route("**/api/generate", async (route) => {
    calls++;
    if (calls === 1) {
      await route.fulfill({
        status: 500,
        contentType: "application/json",
        headers: {
          "X-RateLimit-Limit": "5",
          "X-RateLimit-Remaining": "4",
          "X-RateLimit-Reset": String(Math.ceil(Date.now() / 1000) + 3600),
        },
        body: JSON.stringify({
          success: false,
          error: { code: "generation_failed", message: "The image model failed.", request_id: "req_test" },
        }),
      });
    } else {
      await route.continue();
    }
  });
  await prompt.fill("a calm lake");
  await page.getByTestId("generate").click();
  await notice.filter({ hasText: "The model couldn't make this image" }).waitFor();
  assert.match(await notice.innerText(), /Retry, or try another model/);
  await notice.getByRole("button", { name: "Retry" }).click();
  await page.getByTestId("result-image").waitFor();
  assert.equal(calls, 2);
  assert.equal(await notice.count(), 0, "the notice clears on success");
  await context.close();
});
