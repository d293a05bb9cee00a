// E2E: the enhance page's mode picker on a server whose faces and creative modes run on remote routes (Replicate's
// and fal's loopback fakes): every mode with its engine, what faces and creative do, creative's prompt reaching the
// engine, the before/after comparison and the honest labels for each mode's result; and a server without those
// routes, where they are greyed out with the reason. Axe and screenshots at 375 and 1280 px in both themes.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright";
import { type Fakes, startAllFakes } from "../fakes";
import { objectOf } from "../fakes/fake-server";
import { type App, startApp } from "../helpers/app";
import { axeBothThemes, hasHorizontalOverflow, launchBrowser, openPage, screenshotAll } from "../helpers/browser";
import { pngOf } from "../helpers/images";

let fakes: Fakes;
let routed: App;
let plain: App;
let browser: Browser;

before(async () => {
  fakes = await startAllFakes();
  [routed, plain, browser] = await Promise.all([
    startApp({
      name: "e2e-enhance-modes",
      env: {
        ...fakes.env,
        ENHANCE_FACES: "replicate:sczhou/codeformer,fal:fal-ai/codeformer",
        ENHANCE_CREATIVE: "fal:fal-ai/clarity-upscaler",
        FREE_ENHANCEMENTS_PER_DAY: "100",
      },
    }),
    startApp({ name: "e2e-enhance-modes-plain" }),
    launchBrowser(),
  ]);
});
after(async () => {
  await browser?.close();
  await Promise.all([routed?.stop(), plain?.stop()]);
  await fakes?.closeAll();
});

/** The share of the enhanced image the comparison shows, from the original's clip on the right. */
async function enhancedShare(page: Page): Promise<number> {
  const value = await page.getByTestId("compare-before").evaluate((el: HTMLElement) => el.style.clipPath);
  return Number(/^inset\(0(?:px)? ([\d.]+)(?:%|px)/.exec(value)?.[1]);
}

/** Runs one enhancement in `mode` on the picked photo and waits for its before/after. */
async function enhanceIn(page: Page, mode: string, prompt?: string): Promise<void> {
  await page.getByTestId(`model-${mode}`).check();
  if (prompt !== undefined) await page.getByTestId("enhance-prompt").fill(prompt);
  await page.getByTestId("enhance").click();
  await page
    .getByTestId("announcer")
    .filter({ hasText: "Enhanced from 160x120 to 320x240" })
    .waitFor({ timeout: 120_000 });
  await page.getByTestId("compare").waitFor();
}

test("every mode with its engine; faces and creative explained; each mode's result compared and labelled", async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${routed.url}/enhance`);
  await page.getByTestId("mode-faces-engine").filter({ hasText: "replicate:sczhou/codeformer" }).waitFor();
  assert.match(await page.getByTestId("mode-faces-engine").innerText(), /then 1 fallback/);
  assert.match(await page.getByTestId("mode-creative-engine").innerText(), /^fal:fal-ai\/clarity-upscaler$/);
  assert.match(await page.getByTestId("mode-fast-engine").innerText(), /^onnx:esrgan-slim · on this server$/);
  for (const mode of ["fast", "quality", "faces", "creative"]) {
    assert.equal(await page.getByTestId(`model-${mode}`).isDisabled(), false, mode);
  }
  // Only creative carries the generative label in the picker, and only it shows a prompt field.
  assert.equal(await page.getByTestId("mode-card-creative").getByTestId("generative-badge").count(), 1);
  assert.equal(await page.getByTestId("generative-badge").count(), 1);
  assert.equal(await page.getByTestId("enhance-prompt").count(), 0);

  await page.getByTestId("model-faces").check();
  await page.getByTestId("mode-explainer").filter({ hasText: "redraws blurred or damaged eyes" }).waitFor();
  assert.match(await page.getByTestId("mode-licence").innerText(), /S-Lab/);
  assert.match(await page.locator("#strength-hint").innerText(), /faces as they were/);
  await page.getByTestId("model-creative").check();
  await page.getByTestId("mode-explainer").filter({ hasText: "invents detail the photo does not hold" }).waitFor();
  await page.getByTestId("enhance-prompt").waitFor();
  await screenshotAll(page, "enhance-modes-creative");
  assert.deepEqual(await axeBothThemes(page), []);

  await page.locator("#image-file").setInputFiles({
    name: "portrait.png",
    mimeType: "image/png",
    buffer: await pngOf(160, 120),
  });
  await page.getByTestId("upload-preview").waitFor();
  const expected: Record<string, { engine: RegExp; generative: number; notAi: number }> = {
    fast: { engine: /^Made by onnx:esrgan-slim/, generative: 0, notAi: 0 },
    faces: { engine: /^Made by replicate:sczhou\/codeformer$/, generative: 0, notAi: 0 },
    creative: { engine: /^Made by fal:fal-ai\/clarity-upscaler$/, generative: 1, notAi: 0 },
  };
  for (const [mode, want] of Object.entries(expected)) {
    fakes.resetAll();
    await enhanceIn(page, mode, mode === "creative" ? "crisp autumn leaves" : undefined);
    assert.match(await page.getByTestId("result-engine").innerText(), want.engine, mode);
    assert.equal(await page.locator("#preview-heading ~ div").getByTestId("generative-badge").count(), want.generative);
    assert.equal(await page.getByTestId("not-ai-badge").count(), want.notAi, mode);
    assert.equal(await page.getByTestId("enhanced-size").innerText(), "320 × 240");
    // The comparison works whatever made the image: the keyboard moves the divider over it.
    const slider = page.getByRole("slider", { name: /Compare before and after/ });
    await slider.focus();
    await page.keyboard.press("End");
    assert.equal(await enhancedShare(page), 0, mode);
    await page.keyboard.press("Home");
    assert.equal(await enhancedShare(page), 100, mode);
    if (mode === "creative") {
      const sent = fakes.fal.requests.find((r) => r.method === "POST");
      assert.equal(objectOf(sent?.body).prompt, "crisp autumn leaves", "the prompt reaches the engine");
      await screenshotAll(page, "enhance-modes-creative-result");
      assert.deepEqual(await axeBothThemes(page), []);
    }
    if (mode === "faces") {
      const sent = fakes.replicate.requests.find((r) => r.method === "POST");
      assert.equal(objectOf(objectOf(sent?.body).input).upscale, 2);
      assert.equal(objectOf(objectOf(sent?.body).input).prompt, undefined, "faces sends no prompt");
    }
  }
  // strength 0 in a faithful mode is a plain resize, and says so.
  await page.getByRole("slider", { name: "Strength" }).fill("0");
  await enhanceIn(page, "fast");
  await page.getByTestId("not-ai-badge").filter({ hasText: "not AI" }).waitFor();
  await page.setViewportSize({ width: 375, height: 812 });
  assert.equal(await hasHorizontalOverflow(page), false);
  assert.deepEqual(fakes.replicate.violations, []);
  assert.deepEqual(fakes.fal.violations, []);
  assert.deepEqual(problems, []);
  await context.close();
});

test("modes without a route are greyed out with the reason, and cannot be chosen", async () => {
  const { page, context, problems } = await openPage(browser, { width: 375, height: 812 });
  await page.goto(`${plain.url}/enhance`);
  await page.getByTestId("mode-faces-reason").waitFor();
  for (const mode of ["faces", "creative"]) {
    assert.equal(await page.getByTestId(`model-${mode}`).isDisabled(), true, mode);
    assert.equal(
      await page.getByTestId(`mode-${mode}-reason`).innerText(),
      `Unavailable: no engine on this server (the operator sets ENHANCE_${mode.toUpperCase()})`,
    );
  }
  assert.equal(await page.getByTestId("model-fast").isChecked(), true);
  assert.equal(await page.getByTestId("model-quality").isDisabled(), false);
  // The reason is the radio's description, so a screen reader hears it with the mode's name.
  const describedBy = await page.getByTestId("model-faces").getAttribute("aria-describedby");
  assert.equal(describedBy, "mode-faces-engine");
  assert.equal(await hasHorizontalOverflow(page), false);
  await screenshotAll(page, "enhance-modes-unavailable");
  assert.deepEqual(await axeBothThemes(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});
