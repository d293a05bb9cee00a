// Launches a real Chromium for e2e tests, plus shared page checks: screenshots, axe, CSP violations, overflow.
import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright";
import { ROOT } from "./app";

export const SCREENSHOT_DIR = path.join(ROOT, "tests", "screenshots");

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

function executablePath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  if (fs.existsSync("/usr/bin/chromium")) return "/usr/bin/chromium";
  return undefined; // Playwright's own browser
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: executablePath(), args: ARGS, headless: true });
}

/**
 * How long a page waits for what it expects: an enhancement or a generation shown on the page can take a minute
 * when CI runs several suites on two cores. Speed is the bench's to judge, not the tests'.
 */
export const PAGE_WAIT_MS = 90_000;

export type Tracked = { page: Page; context: BrowserContext; problems: string[] };

/** A page that records CSP violations, page errors and failed same-origin requests, so tests can assert none happened. */
export async function openPage(
  browser: Browser,
  opts: { width?: number; height?: number; colorScheme?: "light" | "dark" } = {},
): Promise<Tracked> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 },
    colorScheme: opts.colorScheme ?? "light",
    acceptDownloads: true,
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  context.setDefaultTimeout(PAGE_WAIT_MS);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (msg) => {
    const text = msg.text();
    if (/Content.Security.Policy|Refused to/i.test(text)) problems.push(`csp: ${text}`);
  });
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  return { page, context, problems };
}

/** Saves the current page at 375 and 1280 px wide in both themes; returns the written paths. */
export async function screenshotAll(
  page: Page,
  name: string,
  ready?: (page: Page) => Promise<void>,
): Promise<string[]> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const original = page.viewportSize();
  const written: string[] = [];
  for (const width of [375, 1280]) {
    for (const colorScheme of ["light", "dark"] as const) {
      await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
      await page.emulateMedia({ colorScheme });
      await ready?.(page);
      await page.evaluate(async () => {
        window.scrollTo(0, 0);
        await document.fonts.ready;
      });
      const file = path.join(SCREENSHOT_DIR, `${name}-${width}-${colorScheme}.png`);
      await page.screenshot({ path: file, fullPage: true, animations: "disabled" });
      written.push(file);
    }
  }
  if (original) await page.setViewportSize(original);
  await page.emulateMedia({ colorScheme: "light" });
  return written;
}

/** Serious and critical axe violations, formatted for an assertion message. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} → ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 5)
          .join(", ")}`,
    );
}

/** Axe in both themes, since contrast differs between them. */
export async function axeBothThemes(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.waitForTimeout(200); // let any colour transition settle before measuring contrast
    found.push(...(await seriousAxeViolations(page)).map((v) => `[${colorScheme}] ${v}`));
  }
  await page.emulateMedia({ colorScheme: "light" });
  return found;
}

/** True when the page scrolls sideways, the classic mobile layout bug. */
export async function hasHorizontalOverflow(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);
}
