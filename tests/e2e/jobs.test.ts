// E2E: the studio and the enhance page run their work as async jobs: the place in line, the stage and a progress
// bar, Cancel with what it did to the quota, a reload that picks the job up again, and polling where streams fail.
// Generations go to the loopback BFL fake, whose "Pending" answers keep a job running as long as a test needs.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import type { Browser, Page } from "playwright";
import { type Fakes, startAllFakes } from "../fakes";
import { type App, startApp } from "../helpers/app";
import { axeBothThemes, hasHorizontalOverflow, launchBrowser, openPage, screenshotAll } from "../helpers/browser";
import { BROWSER, call, generate, multipart, type Reply } from "../helpers/http";
import { pngOf } from "../helpers/images";

let app: App;
let browser: Browser;
let fakes: Fakes;

const ASYNC = { Prefer: "respond-async" };
let octet = 10;
/** Other visitors, each with a quota of their own, to fill the line the browser's job waits in. */
const nextIp = () => `127.0.13.${octet++}`;

before(async () => {
  fakes = await startAllFakes();
  [app, browser] = await Promise.all([
    startApp({
      name: "e2e-jobs",
      // One generation and one enhancement at a time, so others' work makes the browser's wait in line.
      env: { ...fakes.env, GENERATE_CONCURRENCY: "1", ENHANCE_CONCURRENCY: "1", GENERATION_TIMEOUT_MS: "60000" },
    }),
    launchBrowser(),
  ]);
});
after(async () => {
  await browser?.close();
  await app?.stop();
  await fakes?.closeAll();
});
beforeEach(() => fakes.resetAll());

const jobCall = (url: string, from: string, method = "GET") => call(url, "", { method, headers: BROWSER, from });

async function untilJob(url: string, from: string, done: (r: Reply) => boolean, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await jobCall(url, from);
    if (done(r)) return r;
    if (Date.now() > deadline) throw new Error(`timed out waiting on ${url}: ${r.text}`);
    // Job reads have a guard of 120 a minute per caller.
    await new Promise((res) => setTimeout(res, 300));
  }
}

/** Someone else's generation, accepted as a job; resolves once it holds its place (running, or in line). */
async function othersGeneration(from: string, state: (r: Reply) => boolean) {
  const accepted = await generate(app.url, { prompt: `someone else's picture ${from}` }, { from, headers: ASYNC });
  assert.equal(accepted.status, 202, accepted.text);
  await untilJob(accepted.json.status_url, from, state);
  return { url: accepted.json.status_url as string, cancel: () => jobCall(accepted.json.status_url, from, "DELETE") };
}

const isRunning = (r: Reply) => r.json.status === "running";
const inLine = (n: number) => (r: Reply) => r.json.progress?.queue_position === n;

/** Records every distinct state the page's progress display shows, so short-lived states are not missed. */
async function recordJobStates(
  page: Page,
): Promise<() => Promise<{ phase: string; label: string; now: string | null }[]>> {
  // A string, not a function: tsx would wrap named inner functions in a helper the page does not have.
  await page.addInitScript(`
    const seen = [];
    window.__jobStates = seen;
    const record = () => {
      const el = document.querySelector('[data-testid="job-progress"]');
      if (!el) return;
      const state = JSON.stringify({
        phase: el.getAttribute("data-phase"),
        label: el.querySelector('[data-testid="job-label"]')?.textContent ?? "",
        now: el.querySelector('[role="progressbar"]')?.getAttribute("aria-valuenow") ?? null,
      });
      if (seen.at(-1) !== state) seen.push(state);
    };
    new MutationObserver(record).observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
  `);
  return async () =>
    (await page.evaluate(() => (window as unknown as { __jobStates: string[] }).__jobStates)).map((s) => JSON.parse(s));
}

async function meterText(page: Page): Promise<string> {
  return page.getByTestId("usage-meter").innerText();
}

/** The progress bar agrees with what it shows: a value only when the job reports a fraction. */
async function assertBarMatches(page: Page) {
  const progress = page.getByTestId("job-progress");
  const bar = progress.getByRole("progressbar");
  assert.equal(await bar.count(), 1);
  assert.match((await bar.getAttribute("aria-label")) ?? "", /progress$/);
  const percent = await progress.getAttribute("data-percent");
  assert.equal(await bar.getAttribute("aria-valuenow"), percent === "" ? null : percent);
}

test("a generation shows its place in line, then its stage, then the image", async () => {
  const { page, context, problems } = await openPage(browser);
  const states = await recordJobStates(page);
  const sent: { prefer?: string; xrw?: string }[] = [];
  const eventReads: (string | undefined)[] = [];
  page.on("request", (r) => {
    if (r.url().endsWith("/api/generate"))
      sent.push({ prefer: r.headers().prefer, xrw: r.headers()["x-requested-with"] });
    if (r.url().endsWith("/events")) eventReads.push(r.headers()["x-requested-with"]);
  });
  // One job runs and two wait: the browser's will be third in line.
  fakes.bfl.mode = "hang";
  const running = await othersGeneration(nextIp(), isRunning);
  const second = await othersGeneration(nextIp(), inLine(1));
  const third = await othersGeneration(nextIp(), inLine(2));

  await page.goto(`${app.url}/`);
  await page
    .getByTestId("usage-meter")
    .filter({ hasText: /^5 of 5 free generations/ })
    .waitFor();
  await page.getByRole("textbox", { name: "Prompt" }).fill("a lighthouse in a storm");
  await page.getByRole("radio", { name: /alpha-pro/ }).check();
  await page.getByTestId("generate").click();

  const label = page.getByTestId("job-label");
  await label.filter({ hasText: "Waiting — 3rd in line" }).waitFor();
  assert.deepEqual(sent, [{ prefer: "respond-async", xrw: "XMLHttpRequest" }]);
  assert.ok(eventReads.length >= 1 && eventReads.every((h) => h === "XMLHttpRequest"), String(eventReads));
  // The unit is taken when the job is accepted.
  assert.match(await meterText(page), /^4 of 5 free generations/);
  await assertBarMatches(page);
  assert.equal(await page.getByTestId("cancel-job").isEnabled(), true);
  assert.match(await page.getByTestId("generate").innerText(), /Generating… \d/);
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    assert.equal(await hasHorizontalOverflow(page), false, `no sideways scroll at ${width} px`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await screenshotAll(page, "studio-job-waiting");
  assert.deepEqual(await axeBothThemes(page), []);

  // The line moves up as the others go.
  await second.cancel();
  await label.filter({ hasText: "Waiting — 2nd in line" }).waitFor();
  await page.getByTestId("announcer").filter({ hasText: "Waiting — 2nd in line" }).waitFor();

  // The browser's job runs for a few seconds of "Pending" polls.
  fakes.bfl.mode = "ok";
  fakes.bfl.pendingPolls = 12;
  await third.cancel();
  await running.cancel();
  const progress = page.getByTestId("job-progress");
  await progress.and(page.locator('[data-phase="running"]')).waitFor();
  await label.filter({ hasText: "Generating your image" }).waitFor();
  await assertBarMatches(page);
  await screenshotAll(page, "studio-job-running");
  assert.deepEqual(await axeBothThemes(page), []);

  const image = page.getByTestId("result-image");
  await image.waitFor();
  await page.getByTestId("announcer").filter({ hasText: "Image ready" }).waitFor();
  assert.match(await page.getByTestId("result").innerText(), /a lighthouse in a storm[\s\S]*alpha-pro/);
  assert.equal(await page.getByTestId("history").getByRole("listitem").count(), 1);
  assert.match(await meterText(page), /^4 of 5 free generations/);
  assert.equal(
    await page.evaluate(() => sessionStorage.getItem("darkroom.jobs.v1")),
    null,
    "the finished job is forgotten",
  );
  const seen = await states();
  const labels = seen.map((s) => s.label);
  for (const expected of ["Waiting — 3rd in line", "Waiting — 2nd in line", "Generating your image"]) {
    assert.ok(labels.includes(expected), `${expected} in ${JSON.stringify(seen)}`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test("Cancel: a running job keeps its unit, a waiting one gives it back, and the page says which", async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/`);
  const meter = page.getByTestId("usage-meter");
  await meter.filter({ hasText: /^4 of 5 free generations/ }).waitFor();
  const prompt = page.getByRole("textbox", { name: "Prompt" });
  const label = page.getByTestId("job-label");
  const notice = page.getByTestId("cancel-notice");

  fakes.bfl.mode = "hang";
  await prompt.fill("a ship that never arrives");
  await page.getByTestId("generate").click();
  await page.getByTestId("job-progress").and(page.locator('[data-phase="running"]')).waitFor();
  await meter.filter({ hasText: /^3 of 5 free generations/ }).waitFor();
  const pollsBefore = fakes.bfl.polls;
  await page.getByTestId("cancel-job").click();
  await notice.waitFor();
  assert.equal(await notice.getAttribute("data-started"), "true");
  assert.match(
    await notice.innerText(),
    /Cancelled while running[\s\S]*still counts as one free generation today — it was not given back/,
  );
  await page.getByTestId("announcer").filter({ hasText: "Cancelled while running" }).waitFor();
  assert.equal(await page.getByTestId("job-progress").count(), 0);
  assert.equal(await page.getByTestId("result-empty").count(), 1);
  await page.waitForTimeout(1500);
  assert.ok(fakes.bfl.polls <= pollsBefore + 3, "the provider is no longer polled");
  assert.match(await meterText(page), /^3 of 5 free generations/, "a running job keeps its unit");
  const status = await call(app.url, "/api/status", { headers: BROWSER });
  assert.equal(status.json.remaining, 3);

  // Someone else's job runs, so the browser's waits; cancelled while waiting, its unit comes back.
  const blocker = await othersGeneration(nextIp(), isRunning);
  await prompt.fill("a ship that waits");
  await page.getByTestId("generate").click();
  await label.filter({ hasText: "Waiting — 1st in line" }).waitFor();
  await meter.filter({ hasText: /^2 of 5 free generations/ }).waitFor();
  await page.getByTestId("cancel-job").click();
  await notice.filter({ hasText: "Cancelled before it started" }).waitFor();
  assert.equal(await notice.getAttribute("data-started"), "false");
  assert.match(await notice.innerText(), /still waiting in line, so your free generation was given back/);
  await meter.filter({ hasText: /^3 of 5 free generations/ }).waitFor();
  await screenshotAll(page, "studio-job-cancelled");
  assert.deepEqual(await axeBothThemes(page), []);
  await blocker.cancel();

  // A new generation clears the notice.
  fakes.bfl.mode = "ok";
  await page.getByTestId("generate").click();
  await page.getByTestId("result-image").waitFor();
  assert.equal(await notice.count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test("a reload picks the running job up again and shows the finished image", async () => {
  const { page, context, problems } = await openPage(browser);
  const generateCalls: string[] = [];
  const jobReads: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname === "/api/generate") generateCalls.push(r.method());
    if (url.pathname.startsWith("/api/jobs/")) jobReads.push(`${r.method()} ${url.pathname}`);
  });
  await page.goto(`${app.url}/`);
  await page.getByTestId("usage-meter").waitFor();
  fakes.bfl.pendingPolls = 16;
  await page.getByRole("textbox", { name: "Prompt" }).fill("a harbour at night, after the reload");
  await page.getByRole("radio", { name: "Cinematic" }).check();
  await page.getByRole("radio", { name: /16:9/ }).check();
  await page.getByTestId("generate").click();
  await page.getByTestId("job-progress").and(page.locator('[data-phase="running"]')).waitFor();
  const remembered = await page.evaluate(() => JSON.parse(sessionStorage.getItem("darkroom.jobs.v1") ?? "{}"));
  const id = remembered.studio?.id as string;
  assert.match(id, /^job_[a-f0-9]{32}$/);
  assert.equal(remembered.studio.meta.prompt, "a harbour at night, after the reload");

  jobReads.length = 0;
  await page.reload();
  // Reattached: the job is read, then followed; the form shows what is being made.
  await page.getByTestId("job-progress").waitFor();
  assert.equal(
    await page.getByRole("textbox", { name: "Prompt" }).inputValue(),
    "a harbour at night, after the reload",
  );
  assert.equal(await page.getByRole("radio", { name: /16:9/ }).isChecked(), true);
  assert.equal(await page.getByTestId("cancel-job").isEnabled(), true);
  await page.getByTestId("result-image").waitFor();
  assert.deepEqual(jobReads.slice(0, 2), [`GET /api/jobs/${id}`, `GET /api/jobs/${id}/events`]);
  assert.deepEqual(generateCalls, ["POST"], "the reload sent nothing new");
  assert.match(await page.getByTestId("result").innerText(), /after the reload[\s\S]*Cinematic[\s·]+16:9/);
  assert.match(await page.getByTestId("history").innerText(), /after the reload/);
  assert.equal(await page.evaluate(() => sessionStorage.getItem("darkroom.jobs.v1")), null);

  // A reload after the end shows no job at all.
  await page.reload();
  await page.getByTestId("result-image").waitFor();
  assert.equal(await page.getByTestId("job-progress").count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test("where the events stream cannot be read, the page polls the job instead", async () => {
  const { page, context, problems } = await openPage(browser);
  let streams = 0;
  const polls: (string | undefined)[] = [];
  await page.route("**/api/jobs/*/events", (route) => {
    streams++;
    return route.abort("connectionreset");
  });
  page.on("request", (r) => {
    if (/\/api\/jobs\/job_[a-f0-9]+$/.test(r.url())) polls.push(r.headers()["x-requested-with"]);
  });
  await page.goto(`${app.url}/`);
  await page.getByTestId("usage-meter").waitFor();
  fakes.bfl.pendingPolls = 10;
  await page.getByRole("textbox", { name: "Prompt" }).fill("a kite seen through a proxy");
  await page.getByTestId("generate").click();
  await page.getByTestId("result-image").waitFor({ timeout: 120_000 });
  assert.equal(streams, 3, "three failed streams, then polling");
  assert.ok(polls.length >= 2 && polls.every((h) => h === "XMLHttpRequest"), String(polls));
  assert.deepEqual(problems, []);
  await context.close();
});

/** Someone else's large enhancement, holding the only enhancement slot until it is cancelled. */
async function holdEnhanceSlot() {
  const from = nextIp();
  const big = await multipart({
    image: { data: await pngOf(1600, 1200), type: "image/png", name: "big.png" },
    scale: "2",
    // The slower network, so it outlasts the test's look at the line on any machine.
    model: "quality",
  });
  const accepted = await call(app.url, "/api/enhance", {
    method: "POST",
    headers: { ...BROWSER, ...ASYNC, "Content-Type": big.contentType },
    body: big.body,
    from,
  });
  assert.equal(accepted.status, 202, accepted.text);
  await untilJob(accepted.json.status_url, from, isRunning);
  return { release: () => jobCall(accepted.json.status_url, from, "DELETE") };
}

async function startEnhance(page: Page, width: number, height: number) {
  await page.goto(`${app.url}/enhance`);
  await page.getByTestId("usage-meter").waitFor();
  await page
    .locator("#image-file")
    .setInputFiles({ name: "harbour.png", mimeType: "image/png", buffer: await pngOf(width, height) });
  await page.getByTestId("upload-preview").waitFor();
  await page.getByTestId("enhance").click();
}

test("an enhancement shows its place in line and its progress, then the before and after", async () => {
  const { page, context, problems } = await openPage(browser);
  const states = await recordJobStates(page);
  const slot = await holdEnhanceSlot();
  await startEnhance(page, 640, 480);
  await page.getByTestId("job-label").filter({ hasText: "Waiting — 1st in line" }).waitFor();
  await page
    .getByTestId("usage-meter")
    .filter({ hasText: /^4 of 5 free enhancements/ })
    .waitFor();
  await assertBarMatches(page);
  assert.equal(await page.getByTestId("enhance").isDisabled(), true);
  await screenshotAll(page, "enhance-job-waiting");
  assert.deepEqual(await axeBothThemes(page), []);

  await slot.release();
  await page.getByTestId("compare").waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId("enhanced-size").innerText(), "1280 × 960");
  await page.getByTestId("announcer").filter({ hasText: "Enhanced from 640x480 to 1280x960" }).waitFor();
  assert.match(await meterText(page), /^4 of 5 free enhancements/);
  const labels = (await states()).map((s) => s.label);
  assert.ok(labels.includes("Waiting — 1st in line"), JSON.stringify(labels));
  assert.deepEqual(problems, []);
  await context.close();
});

test("an enhancement followed across a reload ends with the enhanced image", async () => {
  const { page, context, problems } = await openPage(browser);
  const slot = await holdEnhanceSlot();
  await startEnhance(page, 320, 240);
  await page.getByTestId("job-label").filter({ hasText: "Waiting — 1st in line" }).waitFor();
  await page.reload();
  await page.getByTestId("job-label").filter({ hasText: "Waiting — 1st in line" }).waitFor();
  await page.getByTestId("preview-empty").filter({ hasText: "Still enhancing your photo" }).waitFor();
  await slot.release();
  await page.getByTestId("enhanced-image").waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId("enhanced-size").innerText(), "640 × 480");
  assert.match(await page.locator("figure").innerText(), /original isn't kept across a page reload/);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download").click()]);
  assert.equal(download.suggestedFilename(), "harbour-enhanced-2x.png");
  assert.equal(await page.evaluate(() => sessionStorage.getItem("darkroom.jobs.v1")), null);
  assert.deepEqual(await axeBothThemes(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});
