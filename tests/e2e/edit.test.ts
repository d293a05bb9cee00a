// E2E: the studio's Edit mode on the preview engine with no keys. A real photo is uploaded, a mask painted with the
// mouse (brush, eraser, undo, clear) and with touch on a phone, four webp variants come back in a grid labelled as
// the preview engine's, and the area outside the mask is unchanged. Also: paste and drop start an edit, "Edit" on a
// history item (the studio's and the enhance page's), and the enhance page's format picker.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright";
import sharp from "sharp";
import { loadTestPhoto } from "../fixtures/photos";
import { type App, startApp } from "../helpers/app";
import { axeBothThemes, hasHorizontalOverflow, launchBrowser, openPage, screenshotAll } from "../helpers/browser";
import { pngOf } from "../helpers/images";

let app: App;
let browser: Browser;
let photo: Buffer;
let photoRaw: Buffer;
const W = 480;
const H = 320;

before(async () => {
  const rgb = await loadTestPhoto(W, H);
  photoRaw = rgb.data;
  photo = await sharp(rgb.data, { raw: { width: W, height: H, channels: 3 } })
    .png()
    .toBuffer();
  [app, browser] = await Promise.all([
    startApp({ name: "e2e-edit", env: { FREE_GENERATIONS_PER_DAY: "50", FREE_ENHANCEMENTS_PER_DAY: "50" } }),
    launchBrowser(),
  ]);
});
after(async () => {
  await browser?.close();
  await app?.stop();
});

type SentFile = { name: string; type: string; base64: string };
type SentForm = { fields: Record<string, string>; files: Record<string, SentFile> };

/** Chromium hides multipart bodies from Playwright, so the page's own fetch reports the form it sends. */
async function recordForms(page: Page): Promise<() => Promise<SentForm[]>> {
  await page.addInitScript(() => {
    const sent: Promise<SentForm>[] = [];
    Object.assign(window, { __sentForms: sent });
    const original = window.fetch.bind(window);
    // No named inner functions here: tsx would wrap them in a __name helper the page does not have.
    window.fetch = (input, init) => {
      if (String(input).endsWith("/api/generate") && init?.body instanceof FormData) {
        const fields: Record<string, string> = {};
        const files: Promise<[string, SentFile]>[] = [];
        for (const [k, v] of init.body.entries()) {
          if (typeof v === "string") {
            fields[k] = v;
            continue;
          }
          files.push(
            new Promise((resolve) => {
              const reader = new FileReader();
              reader.onload = () =>
                resolve([k, { name: v.name, type: v.type, base64: String(reader.result).replace(/^data:[^,]*,/, "") }]);
              reader.readAsDataURL(v);
            }),
          );
        }
        sent.push(Promise.all(files).then((f) => ({ fields, files: Object.fromEntries(f) })));
      }
      return original(input, init);
    };
  });
  return () =>
    page.evaluate(() => Promise.all((window as unknown as { __sentForms: Promise<SentForm>[] }).__sentForms));
}

/** A sent mask as one grey value per pixel. */
async function maskPixels(
  file: SentFile,
): Promise<{ at: (x: number, y: number) => number; width: number; height: number }> {
  const { data, info } = await sharp(Buffer.from(file.base64, "base64"))
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { at: (x, y) => data[Math.round(y) * info.width + Math.round(x)], width: info.width, height: info.height };
}

/** Mean absolute RGB difference between the photo and an image over a rectangle (fractions of the image). */
function regionDiff(a: Buffer, b: Buffer, r: { x0: number; y0: number; x1: number; y1: number }): number {
  let sum = 0;
  let n = 0;
  for (let y = Math.floor(r.y0 * H); y < Math.floor(r.y1 * H); y++) {
    for (let x = Math.floor(r.x0 * W); x < Math.floor(r.x1 * W); x++) {
      for (let c = 0; c < 3; c++) {
        const i = (y * W + x) * 3 + c;
        sum += Math.abs(a[i] - b[i]);
        n++;
      }
    }
  }
  return sum / n;
}

async function drag(page: Page, from: [number, number], to: [number, number], steps = 12) {
  await page.mouse.move(...from);
  await page.mouse.down();
  await page.mouse.move(...to, { steps });
  await page.mouse.up();
}

test("edit with a mouse-painted mask: four webp variants in a grid, labelled, the rest of the photo unchanged", async () => {
  const { page, context, problems } = await openPage(browser);
  const sentForms = await recordForms(page);
  await page.goto(`${app.url}/`);
  await page.getByTestId("usage-meter").waitFor();
  await page.getByRole("radio", { name: "Edit an image" }).check();
  await page.getByTestId("edit-panel").waitFor();
  await screenshotAll(page, "edit-empty");
  assert.deepEqual(await axeBothThemes(page), []);

  await page.locator("#image-file").setInputFiles({ name: "street.png", mimeType: "image/png", buffer: photo });
  const canvas = page.getByTestId("mask-canvas");
  await canvas.waitFor();
  assert.match(await page.getByTestId("edit-source-caption").innerText(), /street\.png · 480×320/);
  assert.match(await page.getByTestId("mask-status").innerText(), /No mask painted: the whole image will change/);
  assert.equal(await page.getByRole("slider", { name: "Strength" }).inputValue(), "0.6");
  assert.equal(await page.getByRole("radio", { name: "Brush" }).isChecked(), true);
  // The ratio picker goes: an edit keeps the photo's shape.
  assert.equal(await page.getByRole("radio", { name: /16:9/ }).count(), 0);

  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  assert.ok(box && box.width > 200, `the canvas is shown: ${JSON.stringify(box)}`);
  const at = (fx: number, fy: number): [number, number] => [box.x + box.width * fx, box.y + box.height * fy];

  // A broad stroke across the middle, from 10 % to 60 % of the width.
  await page.getByRole("slider", { name: "Brush size" }).fill("60");
  await drag(page, at(0.1, 0.5), at(0.6, 0.5));
  await page
    .getByTestId("mask-status")
    .filter({ hasText: /Painted: about \d+ % of the image will change/ })
    .waitFor();
  // The eraser takes the stroke's left end away again.
  await page.getByRole("radio", { name: "Eraser" }).check();
  await page.getByRole("slider", { name: "Brush size" }).fill("80");
  await drag(page, at(0.02, 0.5), at(0.2, 0.5));
  // A stray stroke top right, undone with the button; another bottom left, undone with Ctrl+Z.
  await page.getByRole("radio", { name: "Brush" }).check();
  await drag(page, at(0.8, 0.1), at(0.95, 0.2));
  await page.getByTestId("mask-undo").click();
  await drag(page, at(0.05, 0.9), at(0.15, 0.95));
  await page.getByRole("slider", { name: "Brush size" }).focus();
  await page.keyboard.press("Control+z");
  // Clear, and Undo brings the marks back.
  await page.getByTestId("mask-clear").click();
  await page.getByTestId("mask-status").filter({ hasText: "No mask painted" }).waitFor();
  await page.getByTestId("mask-undo").click();
  await page.getByTestId("mask-status").filter({ hasText: "Painted: about" }).waitFor();
  // Keyboard: the brush size moves with the arrows.
  await page.getByRole("slider", { name: "Brush size" }).focus();
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.getByRole("slider", { name: "Brush size" }).inputValue(), "82");

  await page.getByRole("textbox", { name: "Prompt" }).fill("a stormy sky over the middle of the street");
  await page.getByRole("radio", { name: "4", exact: true }).check();
  await page.getByRole("radio", { name: "WEBP" }).check();
  await screenshotAll(page, "edit-painted");
  assert.deepEqual(await axeBothThemes(page), []);

  await page.getByTestId("generate").click();
  const cells = page.getByTestId("result-grid").getByTestId("result-cell");
  await cells.nth(3).waitFor({ timeout: 120_000 });
  assert.equal(await cells.count(), 4);
  for (let i = 0; i < 4; i++) {
    assert.match(await cells.nth(i).innerText(), new RegExp(`Variant ${i + 1}[\\s\\S]*Preview · not AI`));
  }
  assert.match(
    await page.getByTestId("not-ai-note").innerText(),
    /Not AI\.[\s\S]*preview engine[\s\S]*the area you painted/,
  );
  await page
    .getByTestId("announcer")
    .filter({ hasText: "4 images ready. Made by the preview engine, not AI." })
    .waitFor();
  await page
    .getByTestId("usage-meter")
    .filter({ hasText: /^46 of 50 free generations left today/ })
    .waitFor();

  await screenshotAll(page, "edit-results", async (p) => {
    await p
      .getByTestId("result-image")
      .evaluateAll((imgs) => Promise.all(imgs.map((i) => (i as HTMLImageElement).decode())));
  });
  assert.deepEqual(await axeBothThemes(page), []);

  // On a phone each variant's caption, badge and buttons stay inside its cell.
  await page.setViewportSize({ width: 375, height: 812 });
  const spilling = await cells.evaluateAll(
    (all) =>
      all.filter((cell) =>
        [...cell.querySelectorAll("*")].some(
          (el) => el.getBoundingClientRect().right > cell.getBoundingClientRect().right + 1,
        ),
      ).length,
  );
  assert.equal(spilling, 0, "nothing spills out of a grid cell at 375 px");
  assert.equal(await hasHorizontalOverflow(page), false);
  await page.setViewportSize({ width: 1280, height: 900 });

  // What was sent: the photo untouched, and a white-on-black mask at its size, as painted.
  const [form] = await sentForms();
  assert.deepEqual(
    { n: form.fields.n, format: form.fields.output_format, strength: form.fields.strength, ratio: form.fields.ratio },
    { n: "4", format: "webp", strength: "0.6", ratio: undefined },
  );
  assert.ok(Buffer.from(form.files.image.base64, "base64").equals(photo), "the photo goes up byte for byte");
  const mask = await maskPixels(form.files.mask);
  assert.deepEqual([mask.width, mask.height], [W, H]);
  assert.equal(mask.at(W * 0.4, H * 0.5), 255, "painted: white");
  assert.equal(mask.at(W * 0.4, H * 0.5 - 10), 255, "the brush is broad");
  assert.equal(mask.at(W * 0.08, H * 0.5), 0, "erased: black");
  assert.equal(mask.at(W * 0.88, H * 0.15), 0, "undone with the button: black");
  assert.equal(mask.at(W * 0.1, H * 0.92), 0, "undone with Ctrl+Z: black");
  assert.equal(mask.at(W * 0.4, H * 0.1), 0, "never painted: black");

  // Every variant is a webp the CDN serves as such, and outside the mask it is the photo.
  const urls = await cells
    .getByTestId("result-image")
    .evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).src));
  assert.equal(new Set(urls).size, 4);
  for (const url of urls) {
    assert.match(url, /\.webp$/);
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/webp");
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(bytes.subarray(8, 12).toString("latin1"), "WEBP");
    const out = await sharp(bytes).removeAlpha().resize(W, H, { fit: "fill" }).raw().toBuffer();
    const kept = regionDiff(photoRaw, out, { x0: 0, y0: 0.75, x1: 1, y1: 1 });
    const keptTop = regionDiff(photoRaw, out, { x0: 0.7, y0: 0, x1: 1, y1: 0.3 });
    const changed = regionDiff(photoRaw, out, { x0: 0.3, y0: 0.45, x1: 0.5, y1: 0.55 });
    assert.ok(
      kept < 4 && keptTop < 4,
      `outside the mask the photo is kept (${kept.toFixed(2)}, ${keptTop.toFixed(2)})`,
    );
    assert.ok(changed > 8 && changed > 3 * kept, `inside the mask it changed (${changed.toFixed(2)})`);
  }

  // History: one entry per image, each with its own delete token and the edit's facts.
  const stored = await page.evaluate(
    () =>
      JSON.parse(localStorage.getItem("darkroom.history.v1") ?? "[]") as {
        id: string;
        url: string;
        deleteToken?: string;
        ai: boolean;
        edit?: { strength: number; masked: boolean };
      }[],
  );
  assert.equal(stored.length, 4);
  assert.deepEqual(
    stored.map((s) => s.url),
    urls,
  );
  for (const s of stored) {
    assert.ok(s.deleteToken, "each image keeps its delete token");
    assert.deepEqual(s.edit, { strength: 0.6, masked: true });
    assert.equal(s.ai, false);
  }
  // "Edit" on a history item opens that image, with a fresh mask.
  const third = page.getByTestId("history").getByRole("listitem").nth(2);
  await third.getByTestId("history-edit").click();
  await page.getByTestId("edit-source-caption").filter({ hasText: "a stormy sky" }).waitFor();
  await page.getByTestId("mask-status").filter({ hasText: "No mask painted" }).waitFor();
  const size = await page
    .getByTestId("edit-source")
    .evaluate((img: HTMLImageElement) => img.decode().then(() => [img.naturalWidth, img.naturalHeight]));
  assert.ok(Math.abs(size[0] / size[1] - W / H) < 0.03 * (W / H), `the variant keeps the photo's shape: ${size}`);
  assert.deepEqual(problems, []);
  await context.close();
});

test("on a phone a finger paints the mask (touch events), without scrolling the page", async () => {
  const context = await browser.newContext({
    viewport: { width: 375, height: 812 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (/Content.Security.Policy|Refused to/i.test(m.text())) errors.push(m.text());
  });
  const sentForms = await recordForms(page);
  await page.goto(`${app.url}/`);
  await page.getByTestId("usage-meter").waitFor();
  await page.getByRole("radio", { name: "Edit an image" }).tap();
  await page.locator("#image-file").setInputFiles({ name: "street.png", mimeType: "image/png", buffer: photo });
  const canvas = page.getByTestId("mask-canvas");
  await canvas.waitFor();
  assert.equal(await canvas.evaluate((c) => getComputedStyle(c).touchAction), "none");
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  assert.ok(box && box.width < 375 && box.width > 200, `the canvas fits the phone, scaled: ${JSON.stringify(box)}`);
  const scrollBefore = await page.evaluate(() => window.scrollY);

  // A real touch drag, top to bottom at 70 % of the width, through Chromium's input pipeline.
  const cdp = await context.newCDPSession(page);
  const point = (fy: number) => ({ x: box.x + box.width * 0.7, y: box.y + box.height * fy, id: 1 });
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [point(0.15)] });
  for (let i = 1; i <= 14; i++) {
    await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: [point(0.15 + (0.7 * i) / 14)] });
  }
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  // And a tap paints a dot.
  await page.touchscreen.tap(box.x + box.width * 0.2, box.y + box.height * 0.3);
  await page.getByTestId("mask-status").filter({ hasText: "Painted: about" }).waitFor();
  assert.equal(await page.evaluate(() => window.scrollY), scrollBefore, "painting does not scroll the page");
  assert.equal(await hasHorizontalOverflow(page), false);

  await page.getByRole("textbox", { name: "Prompt" }).fill("a lamp post made of glass");
  await page.getByTestId("generate").tap();
  await page.getByTestId("result-image").waitFor({ timeout: 120_000 });
  assert.match(await page.getByTestId("result").innerText(), /Preview renderer · not AI/);
  await page.getByTestId("not-ai-note").waitFor();

  const [form] = await sentForms();
  const mask = await maskPixels(form.files.mask);
  assert.deepEqual([mask.width, mask.height], [W, H], "the mask is at the photo's size, not the screen's");
  assert.equal(mask.at(W * 0.7, H * 0.5), 255, "the finger's path is white");
  assert.equal(mask.at(W * 0.7, H * 0.2), 255);
  assert.equal(mask.at(W * 0.2, H * 0.3), 255, "the tap left a dot");
  assert.equal(mask.at(W * 0.45, H * 0.5), 0, "between them, black");
  assert.equal(mask.at(W * 0.7, H * 0.97), 0, "below the end of the stroke, black");
  assert.equal(form.fields.n, undefined, "one image unless asked");
  assert.equal(await hasHorizontalOverflow(page), false);
  await page.screenshot({ path: "tests/screenshots/edit-mobile-touch.png", fullPage: true });
  assert.deepEqual(errors, []);
  await context.close();
});

test("the keyboard paints the mask: Tab to the canvas, arrows move the brush, Space draws, Enter dots", async () => {
  const { page, context, problems } = await openPage(browser);
  const sentForms = await recordForms(page);
  await page.goto(`${app.url}/`);
  await page.getByTestId("usage-meter").waitFor();
  await page.getByRole("radio", { name: "Edit an image" }).check();
  await page.locator("#image-file").setInputFiles({ name: "street.png", mimeType: "image/png", buffer: photo });
  const canvas = page.getByTestId("mask-canvas");
  await canvas.waitFor();
  await page.getByRole("slider", { name: "Brush size" }).fill("40");
  // Reached with Tab, straight after the "Remove image" button.
  await page.getByRole("button", { name: "Remove image" }).focus();
  await page.keyboard.press("Tab");
  assert.equal(await canvas.evaluate((c) => c === document.activeElement), true, "Tab reaches the canvas");
  assert.equal(await canvas.getAttribute("role"), "application");
  await page.getByTestId("mask-key-brush").waitFor();

  // Moves are half a brush in the photo's pixels (Shift: four times that).
  const box = await canvas.boundingBox();
  assert.ok(box);
  const stride = (40 * (W / box.width)) / 2;
  // Enter at the start (the centre) paints a dot; three steps up, then Space, four steps right, Space: a stroke.
  await page.keyboard.press("Enter");
  await page.getByTestId("mask-status").filter({ hasText: "Painted: about" }).waitFor();
  for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Space");
  for (let i = 0; i < 4; i++) await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Space");
  await screenshotAll(page, "edit-keyboard-mask");
  assert.deepEqual(await axeBothThemes(page), []);
  // Ctrl+Z undoes the stroke; it is drawn again leftwards from its end, and Escape lifts the brush.
  await page.keyboard.press("Control+z");
  await page.keyboard.press("Space");
  for (let i = 0; i < 4; i++) await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("Escape");
  // A Shift step jumps four times as far, and a stray dot there is undone.
  await page.keyboard.press("Shift+ArrowDown");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Control+z");

  await page.getByRole("textbox", { name: "Prompt" }).fill("a paper lantern");
  await page.getByTestId("generate").click();
  await page.getByTestId("result-image").waitFor({ timeout: 120_000 });
  const [form] = await sentForms();
  const mask = await maskPixels(form.files.mask);
  assert.deepEqual([mask.width, mask.height], [W, H]);
  const [cx, cy] = [W / 2, H / 2];
  const row = cy - 3 * stride;
  assert.equal(mask.at(cx, cy), 255, "the Enter dot at the centre is white");
  assert.equal(mask.at(cx + 2 * stride, row), 255, "the redrawn stroke is white");
  assert.equal(mask.at(cx + 7 * stride, row), 0, "past the stroke's end, black");
  assert.equal(mask.at(cx + 2 * stride, cy - 1.5 * stride), 0, "between the stroke and the dot, black");
  assert.equal(mask.at(cx + 4 * stride, row + 4 * stride), 0, "the undone dot: black");
  assert.equal(mask.at(W * 0.1, H * 0.9), 0, "never painted: black");
  assert.deepEqual(problems, []);
  await context.close();
});

test("pasting or dropping an image starts an edit of it; without a mask the whole image is sent", async () => {
  const { page, context, problems } = await openPage(browser);
  const sentForms = await recordForms(page);
  await page.goto(`${app.url}/`);
  await page.getByTestId("usage-meter").waitFor();
  const small = await pngOf(200, 150);
  // Paste while creating from text.
  await page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], "clip.png", { type: "image/png" }));
    document.body.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true }));
  }, small.toString("base64"));
  await page.getByTestId("edit-source-caption").filter({ hasText: "clip.png · 200×150" }).waitFor();
  assert.equal(await page.getByRole("radio", { name: "Edit an image" }).isChecked(), true);

  // Drop another one on the drop zone.
  const drop = await page.evaluateHandle(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], "dropped.png", { type: "image/png" }));
    return data;
  }, photo.toString("base64"));
  await page.getByTestId("drop-zone").dispatchEvent("drop", { dataTransfer: drop });
  await page.getByTestId("edit-source-caption").filter({ hasText: "dropped.png · 480×320" }).waitFor();

  // Generate without painting and without a prompt first: the prompt is still required.
  await page.getByTestId("generate").click();
  await page.getByTestId("prompt-error").filter({ hasText: "Describe the image you want first." }).waitFor();
  await page.getByRole("slider", { name: "Strength" }).fill("0.3");
  await page.getByRole("textbox", { name: "Prompt" }).fill("warmer light");
  await page.getByTestId("generate").click();
  await page.getByTestId("result-image").waitFor({ timeout: 120_000 });
  const [form] = await sentForms();
  assert.equal(form.files.mask, undefined, "no mask painted: no mask sent");
  assert.equal(form.fields.strength, "0.3");
  assert.ok(Buffer.from(form.files.image.base64, "base64").equals(photo));
  assert.match(await page.getByTestId("result").innerText(), /edit at strength 0\.3/);
  assert.match(await page.getByTestId("not-ai-note").innerText(), /the whole picture/);
  assert.deepEqual(problems, []);
  await context.close();
});

test("the enhance page's format picker, and Edit from the enhance page's history", async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/enhance`);
  await page.locator("#image-file").setInputFiles({ name: "harbour.png", mimeType: "image/png", buffer: photo });
  await page.getByTestId("upload-preview").waitFor();
  await page.getByRole("radio", { name: "WEBP" }).check();
  await page.getByTestId("enhance").click();
  await page.getByTestId("compare").waitFor({ timeout: 120_000 });
  const download = page.getByTestId("download");
  assert.equal(await download.innerText(), "Download WEBP");
  assert.equal(await download.getAttribute("download"), "harbour-enhanced-2x.webp");
  const url = await download.getAttribute("href");
  assert.ok(url?.endsWith(".webp"), `a webp URL: ${url}`);
  const res = await fetch(url!);
  assert.equal(res.headers.get("content-type"), "image/webp");
  await screenshotAll(page, "enhance-format");
  assert.deepEqual(await axeBothThemes(page), []);

  await page.getByTestId("enhance-history").getByTestId("enhance-history-edit").first().click();
  await page.waitForURL(/\/\?edit=/);
  await page.getByTestId("edit-source-caption").filter({ hasText: "Image from the enhance page · 960×640" }).waitFor();
  assert.equal(await page.getByRole("radio", { name: "Edit an image" }).isChecked(), true);
  assert.deepEqual(problems, []);
  await context.close();
});
