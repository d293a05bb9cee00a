// E2E: the image library in the pages. The studio's history shows each image's expiry, "Reuse settings" fills the
// form (prompt, model, style, ratio, seed), and Delete removes the image with its delete token (its URL then 404s);
// a pasted Pro key lists the key's images from the server; the enhance page keeps a history with Delete too.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright";
import { type App, createKey, startApp } from "../helpers/app";
import { axeBothThemes, launchBrowser, openPage, screenshotAll } from "../helpers/browser";
import { generate } from "../helpers/http";
import { pngOf } from "../helpers/images";

let app: App;
let browser: Browser;

before(async () => {
  [app, browser] = await Promise.all([
    startApp({ name: "e2e-images", env: { FREE_GENERATIONS_PER_DAY: "50", FREE_ENHANCEMENTS_PER_DAY: "50" } }),
    launchBrowser(),
  ]);
});
after(async () => {
  await browser?.close();
  await app?.stop();
});

const statusOf = async (url: string) => (await fetch(url)).status;

test("studio history: expiry shown, Reuse settings fills the form, Delete removes the image", async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/`);
  const prompt = page.getByRole("textbox", { name: "Prompt" });

  // First: a seeded Anime 9:16 on alpha-schnell. Second: defaults.
  await prompt.fill("a paper crane on a windowsill");
  await page.getByRole("radio", { name: "Anime" }).check();
  await page.getByRole("radio", { name: /9:16/ }).check();
  await page.getByRole("radio", { name: /alpha-schnell/ }).check();
  await page.getByTestId("seed").fill("4242");
  await page.getByTestId("generate").click();
  await page.getByTestId("announcer").filter({ hasText: "Image ready" }).waitFor();
  await prompt.fill("a harbour at dawn");
  await page.getByRole("radio", { name: "Photorealistic" }).check();
  await page.getByRole("radio", { name: /1:1/ }).check();
  await page.getByRole("radio", { name: /alpha-pro/ }).check();
  await page.getByTestId("seed").fill("");
  await page.getByTestId("generate").click();
  const items = page.getByTestId("history").getByRole("listitem");
  await items.nth(1).waitFor();
  assert.equal(await items.count(), 2);

  // Each item says when it expires (IMAGE_RETENTION_DAYS, 30 by default).
  for (const i of [0, 1])
    assert.match(await items.nth(i).getByTestId("expiry").innerText(), /^Expires in (29|30) days$/);
  const stored = await page.evaluate(
    () =>
      JSON.parse(localStorage.getItem("darkroom.history.v1") ?? "[]") as {
        id: string;
        url: string;
        prompt: string;
        seed?: number;
        deleteToken?: string;
        expiresAt?: string;
      }[],
  );
  assert.equal(stored.length, 2);
  assert.match(stored[1].deleteToken ?? "", /^dt_/, "the delete token is kept with the local history");
  assert.equal(stored[1].seed, 4242);
  assert.ok(Date.parse(stored[1].expiresAt ?? "") > Date.now() + 29 * 86_400_000);

  // Reuse the older one: every setting comes back.
  await items.nth(1).getByTestId("reuse").click();
  assert.equal(await prompt.inputValue(), "a paper crane on a windowsill");
  assert.equal(await page.getByRole("radio", { name: "Anime" }).isChecked(), true);
  assert.equal(await page.getByRole("radio", { name: /9:16/ }).isChecked(), true);
  assert.equal(await page.getByRole("radio", { name: /alpha-schnell/ }).isChecked(), true);
  assert.equal(await page.getByTestId("seed").inputValue(), "4242");
  await page.getByTestId("announcer").filter({ hasText: "prompt, model, style, ratio and seed" }).waitFor();
  await screenshotAll(page, "studio-history", async (p) => {
    await p.getByTestId("history").scrollIntoViewIfNeeded();
  });

  // Regenerating from the reused settings gives the same image (same seed, same engine).
  const before = stored[1];
  const again = await page.evaluate(async () => {
    const res = await fetch("/api/generate", {
      method: "POST",
      headers: { "X-Requested-With": "XMLHttpRequest", "Content-Type": "application/json" },
      body: JSON.stringify({
        prompt: (document.getElementById("prompt") as HTMLTextAreaElement).value,
        seed: Number((document.getElementById("seed") as HTMLInputElement).value),
        style: "Anime",
        ratio: "9:16",
        model: "alpha-schnell",
      }),
    });
    return (await res.json()) as { url: string };
  });
  const [a, b] = await Promise.all([fetch(before.url), fetch(again.url)]);
  assert.ok(Buffer.from(await a.arrayBuffer()).equals(Buffer.from(await b.arrayBuffer())), "same seed, same image");

  // Delete the older one from the history.
  assert.equal(await statusOf(before.url), 200);
  await items.nth(1).getByRole("button", { name: "Delete image: a paper crane on a windowsill" }).click();
  await page.getByTestId("announcer").filter({ hasText: "Image deleted." }).waitFor();
  assert.equal(await items.count(), 1);
  assert.match(await items.first().innerText(), /harbour/);
  assert.equal(await statusOf(before.url), 404, "the image URL answers 404 at once");
  const left = await page.evaluate(() => JSON.parse(localStorage.getItem("darkroom.history.v1") ?? "[]").length);
  assert.equal(left, 1);

  await page.reload();
  await page.getByTestId("history").getByRole("listitem").first().waitFor();
  assert.equal(await page.getByTestId("history").getByRole("listitem").count(), 1);
  assert.deepEqual(await axeBothThemes(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test("with a pasted Pro key the history lists the key's images from the server, and deletes with the key", async () => {
  const { key } = await createKey(app, "e2e-library");
  const made = await generate(
    app.url,
    { prompt: "made on another device", style: "Cinematic", ratio: "16:9", seed: 7 },
    { headers: { Authorization: `Bearer ${key}` } },
  );
  assert.equal(made.status, 200, made.text);

  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/`);
  await page.getByTestId("use-pro-key").click();
  await page.getByRole("textbox", { name: "Pro key" }).fill(key);
  await page.getByRole("button", { name: "Use key" }).click();
  await page.getByRole("heading", { name: "Your images" }).waitFor();
  const items = page.getByTestId("history").getByRole("listitem");
  await items.first().waitFor();
  assert.equal(await items.count(), 1);
  assert.match(await items.first().innerText(), /made on another device[\s\S]*Cinematic · 16:9 · seed 7/);
  // Kept for this tab only.
  assert.equal(await page.evaluate(() => sessionStorage.getItem("darkroom.pro-key")), key);
  assert.equal(await page.evaluate(() => JSON.stringify(localStorage).includes("dk_live_")), false);

  await items.first().getByTestId("reuse").click();
  assert.equal(await page.getByRole("textbox", { name: "Prompt" }).inputValue(), "made on another device");
  assert.equal(await page.getByTestId("seed").inputValue(), "7");

  await items.first().getByTestId("delete").click();
  await page.getByTestId("announcer").filter({ hasText: "Image deleted." }).waitFor();
  assert.equal(await statusOf(made.json.url), 404);
  await page.getByText("This key has no images yet.").waitFor();

  await page.getByTestId("forget-key").click();
  await page.getByRole("heading", { name: /Session history/ }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem("darkroom.pro-key")), null);
  assert.deepEqual(problems, []);
  await context.close();
});

test("the enhance page keeps a history with expiry and Delete", async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/enhance`);
  await page.locator("#image-file").setInputFiles({
    name: "tiles.png",
    mimeType: "image/png",
    buffer: await pngOf(64, 48),
  });
  await page.getByTestId("enhance").click();
  const items = page.getByTestId("enhance-history").getByRole("listitem");
  await items.first().waitFor();
  const text = await items.first().innerText();
  assert.match(text, /tiles\.png/);
  assert.match(text, /64×48 → 128×96/);
  assert.match(text, /Expires in (29|30) days/);
  const url = await items.first().locator("img").getAttribute("src");
  assert.ok(url);
  assert.equal(await statusOf(url), 200);
  await screenshotAll(page, "enhance-history");

  await items.first().getByTestId("delete").click();
  await page.getByTestId("announcer").filter({ hasText: "Enhanced image deleted." }).waitFor();
  assert.equal(await items.count(), 0);
  assert.equal(await statusOf(url), 404);
  assert.deepEqual(await axeBothThemes(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});
