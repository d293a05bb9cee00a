// E2E: on a deployment with a small MAX_UPLOAD_BYTES, the enhance page resizes big photos in the browser instead of refusing them.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page, Request } from "playwright";
import sharp from "sharp";
import { type App, startApp } from "../helpers/app";
import { axeBothThemes, hasHorizontalOverflow, launchBrowser, openPage, screenshotAll } from "../helpers/browser";

const MAX_BYTES = 300_000;

let app: App;
let browser: Browser;

before(async () => {
  [app, browser] = await Promise.all([
    startApp({ name: "e2e-enhance-resize", env: { MAX_UPLOAD_BYTES: String(MAX_BYTES) } }),
    launchBrowser(),
  ]);
});
after(async () => {
  await browser?.close();
  await app?.stop();
});

/** Gradients under seeded noise: no codec can squeeze it under the limit at full size, so only resizing can. */
function noisyPixels(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 3);
  let seed = 0x2545f491;
  const rand = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x1_0000_0000;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const n = (rand() - 0.5) * 120;
      data[i] = Math.max(0, Math.min(255, (x * 255) / width + n));
      data[i + 1] = Math.max(0, Math.min(255, (y * 255) / height + n));
      data[i + 2] = Math.max(0, Math.min(255, 128 + (rand() - 0.5) * 200));
    }
  }
  return data;
}

async function noisyPng(width: number, height: number): Promise<Buffer> {
  return sharp(noisyPixels(width, height), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

type SentImage = { name: string; type: string; size: number };

/** Chromium hides blob-backed request bodies from Playwright, so the page's own fetch reports the file it sends. */
async function recordUploads(page: Page): Promise<() => Promise<SentImage[]>> {
  await page.addInitScript(() => {
    const sent: { name: string; type: string; size: number }[] = [];
    Object.assign(window, { __sentImages: sent });
    const original = window.fetch.bind(window);
    window.fetch = (input, init) => {
      const image = init?.body instanceof FormData ? init.body.get("image") : null;
      if (image instanceof File) sent.push({ name: image.name, type: image.type, size: image.size });
      return original(input, init);
    };
  });
  return () => page.evaluate(() => (window as unknown as { __sentImages: SentImage[] }).__sentImages);
}

const RESIZED =
  /^Resized in your browser from (\d+)×(\d+) \(([\d.]+) (?:MB|KB)\) to (\d+)×(\d+) \((\d+) KB\) to fit this server's 300 KB upload limit\.$/;

test("a photo over the deployment's byte limit is resized in the browser, then enhanced", async () => {
  const photo = await noisyPng(2000, 1500);
  assert.ok(photo.length > 10 * MAX_BYTES, `the test photo should be far over the limit, is ${photo.length} B`);
  const { page, context, problems } = await openPage(browser);
  const sentImages = await recordUploads(page);
  const uploads: Request[] = [];
  page.on("request", (r) => {
    if (r.url().endsWith("/api/enhance")) uploads.push(r);
  });
  await page.goto(`${app.url}/enhance`);
  // The limits come from /api/status, not from the page's defaults.
  await page
    .getByTestId("upload-limits")
    .filter({ hasText: "photos over 300 KB or 25 megapixels are resized in your browser" })
    .waitFor();

  await page.locator("#image-file").setInputFiles({ name: "harbour.png", mimeType: "image/png", buffer: photo });
  const notice = page.getByTestId("resize-notice");
  await notice.waitFor();
  const message = (await notice.innerText()).trim();
  const m = RESIZED.exec(message);
  assert.ok(m, `unexpected notice: ${message}`);
  assert.match(message, / MB\) to /);
  const [fromW, fromH, fromMb, toW, toH, toKb] = m.slice(1).map(Number);
  assert.deepEqual([fromW, fromH], [2000, 1500]);
  assert.equal(fromMb, Number((photo.length / 1e6).toFixed(1)));
  assert.ok(toW < 2000 && toH < 1500, `resized to ${toW}×${toH}`);
  assert.ok(Math.abs(toW / toH - 4 / 3) < 0.01, "the aspect ratio is kept");
  assert.ok(toKb * 1000 <= MAX_BYTES, `resized to ${toKb} KB`);
  await page.getByTestId("announcer").filter({ hasText: message }).waitFor();
  assert.match(
    await page.locator("figcaption").innerText(),
    new RegExp(`harbour\\.(webp|jpg) · ${toW}×${toH} · \\d+ KB · resized in your browser`),
  );
  assert.equal(await page.getByTestId("file-error").count(), 0);
  assert.equal(uploads.length, 0, "nothing is uploaded before Enhance");

  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    assert.equal(await hasHorizontalOverflow(page), false, `no sideways scroll at ${width} px`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await screenshotAll(page, "enhance-resized");
  assert.deepEqual(await axeBothThemes(page), []);

  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith("/api/enhance")),
    page.getByTestId("enhance").click(),
  ]);
  assert.equal(response.status(), 202, "accepted as a job");
  await page.getByTestId("compare").waitFor({ timeout: 120_000 });
  // The server reports what it received: the resized copy. The page says where that came from.
  assert.equal(await page.getByTestId("original-size").innerText(), `${toW} × ${toH}`);
  assert.equal(await page.getByTestId("enhanced-size").innerText(), `${toW * 2} × ${toH * 2}`);
  assert.equal(await page.getByTestId("resized-from").innerText(), "from your 2000 × 1500");
  assert.equal(uploads.length, 1);
  const [sent] = await sentImages();
  assert.match(sent.name, /^harbour\.(webp|jpg)$/);
  assert.match(sent.type, /^image\/(webp|jpeg)$/);
  assert.ok(sent.size <= MAX_BYTES - 30_000, `sent ${sent.size} B, leaving room for the multipart envelope`);
  assert.equal(Math.round(sent.size / 1000), toKb);
  // The enhanced PNG may still be arriving; a half-painted image would misrepresent the layout.
  await screenshotAll(page, "enhance-resized-result", (p) =>
    p.getByAltText("Enhanced result").evaluate((img: HTMLImageElement) => img.decode()),
  );
  assert.deepEqual(problems, []);
  await context.close();
});

test("a sideways-stored JPEG is resized upright, as the server would orient it", async () => {
  const jpeg = await sharp(noisyPixels(1600, 1200), { raw: { width: 1600, height: 1200, channels: 3 } })
    .jpeg({ quality: 95 })
    .withMetadata({ orientation: 6 })
    .toBuffer();
  assert.ok(jpeg.length > MAX_BYTES);
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/enhance`);
  await page.getByTestId("upload-limits").filter({ hasText: "300 KB" }).waitFor();
  await page.locator("#image-file").setInputFiles({ name: "portrait.jpg", mimeType: "image/jpeg", buffer: jpeg });
  const notice = page.getByTestId("resize-notice");
  await notice.waitFor();
  const m = RESIZED.exec((await notice.innerText()).trim());
  assert.ok(m, await notice.innerText());
  const [fromW, fromH, , toW, toH] = m.slice(1).map(Number);
  assert.deepEqual([fromW, fromH], [1200, 1600], "dimensions as displayed, after EXIF orientation");
  assert.ok(toH > toW, `still portrait: ${toW}×${toH}`);
  await page.getByTestId("enhance").click();
  await page.getByTestId("compare").waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId("original-size").innerText(), `${toW} × ${toH}`);
  assert.deepEqual(problems, []);
  await context.close();
});

test("non-images and undecodable oversized files are still refused, with nothing uploaded", async () => {
  const { page, context, problems } = await openPage(browser);
  let uploads = 0;
  page.on("request", (r) => {
    if (r.url().endsWith("/api/enhance")) uploads++;
  });
  await page.goto(`${app.url}/enhance`);
  await page.getByTestId("upload-limits").filter({ hasText: "300 KB" }).waitFor();
  const input = page.locator("#image-file");
  await input.setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.alloc(MAX_BYTES * 2, 65) });
  await page
    .getByTestId("file-error")
    .filter({ hasText: "“notes.txt” is not a PNG, JPEG, WebP, AVIF or GIF image." })
    .waitFor();
  await input.setInputFiles({ name: "broken.jpg", mimeType: "image/jpeg", buffer: Buffer.alloc(MAX_BYTES * 2, 7) });
  const error = page.getByTestId("file-error");
  await error
    .filter({
      hasText:
        "“broken.jpg” (600 KB) is over this server's 300 KB upload limit, and your browser couldn't read it as an image",
    })
    .waitFor();
  await page.getByTestId("announcer").filter({ hasText: "couldn't read it as an image" }).waitFor();
  assert.equal(await page.getByTestId("resize-notice").count(), 0);
  assert.equal(await page.getByTestId("enhance").isDisabled(), true);
  await screenshotAll(page, "enhance-resize-refused");
  assert.equal(uploads, 0);
  assert.deepEqual(problems, []);
  await context.close();
});
