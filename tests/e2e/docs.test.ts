// E2E: the docs page, the OpenAPI document validating real responses, and the pages' security headers.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright";
import { z } from "zod";
import { IN_PROCESS_MODES } from "@/lib/catalog/enhance-modes";
import { MODEL_CATALOG } from "@/lib/catalog/models";
import { type App, createKey, startApp } from "../helpers/app";
import { axeBothThemes, launchBrowser, openPage, screenshotAll } from "../helpers/browser";
import { call } from "../helpers/http";

let app: App;
let browser: Browser;

before(async () => {
  [app, browser] = await Promise.all([startApp({ name: "e2e-docs", env: { PUBLIC_CDN_URL: "" } }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await app?.stop();
});

type Json = Record<string, unknown>;

/** A self-contained JSON Schema for one component, so zod can compile it with its references. */
function validatorFor(doc: { components: { schemas: Record<string, Json> } }, id: string) {
  const schemas = JSON.parse(
    JSON.stringify(doc.components.schemas).replaceAll("#/components/schemas/", "#/$defs/"),
  ) as Record<string, Json>;
  assert.ok(schemas[id], `${id} is in the document`);
  return z.fromJSONSchema({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...schemas[id],
    $defs: schemas,
  } as Parameters<typeof z.fromJSONSchema>[0]);
}

test("the docs page lists every endpoint with a curl example and the limits, error and header tables", async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${app.url}/docs`);
  await page.getByRole("heading", { level: 1, name: "API reference" }).waitFor();
  for (const path of ["/api/generate", "/api/enhance", "/api/status", "/api/waitlist"]) {
    const section = page.locator(`section#${path.replace("/api/", "")}`);
    assert.match(
      await section.locator("pre").first().innerText(),
      new RegExp(`^curl .*${app.url}${path}`),
      `curl for ${path}`,
    );
  }
  for (const anchor of ["jobs-get", "jobs-events", "jobs-delete"]) {
    assert.match(await page.locator(`section#${anchor} pre`).first().innerText(), /^curl .*\/api\/jobs\//);
  }
  const imageInput = await page.locator("section#image-input").innerText();
  assert.match(
    imageInput,
    new RegExp(`curl -s ${app.url}/api/generate[\\s\\S]*-F image=@street\\.jpg -F strength=0\\.5`),
  );
  assert.match(imageInput, /-F mask=@door-mask\.png[\s\S]*-F n=4 -F output_format=webp/);
  assert.match(imageInput, /"image_id":"img_…"/);
  assert.equal(await page.getByTestId("image-input-fields").locator("tbody tr").count(), 6);
  const walkThrough = await page.locator("section#async").innerText();
  assert.match(walkThrough, /Prefer: respond-async/);
  assert.match(walkThrough, /new Webhook\(/);
  const generate = await page.locator("section#generate").innerText();
  assert.match(generate, /prompt\s*REQUIRED/i);
  assert.match(generate, /one of 1:1, 16:9, 9:16/);
  const models = await page.getByTestId("models-table").locator("tbody tr").allInnerTexts();
  assert.equal(models.length, MODEL_CATALOG.length);
  for (const [i, m] of MODEL_CATALOG.entries()) {
    for (const text of [m.name, m.family, m.env, ...m.routes])
      assert.ok(models[i].includes(text), `${m.name}: ${text}`);
  }
  const modes = await page.getByTestId("enhance-modes-table").locator("tbody tr").allInnerTexts();
  assert.deepEqual(
    modes.map((row) => row.split(/\s/)[0]),
    IN_PROCESS_MODES.map((m) => m.name),
  );
  assert.match(await page.getByTestId("limits-table").innerText(), /Generations per day\s+5\s+1,000 requests/);
  const errors = await page.getByTestId("errors-table").innerText();
  for (const [code, status] of [
    ["invalid_prompt", 400],
    ["rate_limited", 429],
    ["content_filtered", 422],
    ["generation_failed", 500],
  ]) {
    assert.match(errors, new RegExp(`${code}\\s+${status}`));
  }
  assert.match(await page.getByTestId("headers-table").innerText(), /X-RateLimit-Reset[\s\S]*Unix time in seconds/);
  await screenshotAll(page, "docs");
  assert.deepEqual(await axeBothThemes(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test("/api/openapi.json is OpenAPI 3.1 and its schemas validate real responses", async () => {
  const { page, context } = await openPage(browser);
  await page.goto(`${app.url}/docs`);
  const doc = await page.evaluate(async () => (await fetch("/api/openapi.json")).json());
  assert.equal(doc.openapi, "3.1.0");
  assert.deepEqual(Object.keys(doc.paths).sort(), [
    "/api/account",
    "/api/enhance",
    "/api/generate",
    "/api/images",
    "/api/images/{id}",
    "/api/jobs/{id}",
    "/api/jobs/{id}/events",
    "/api/status",
    "/api/usage",
    "/api/waitlist",
    "/v1/images/edits",
    "/v1/images/generations",
    "/v1/images/variations",
    "/v1/models",
    "/v1/models/{id}",
  ]);
  assert.deepEqual(Object.keys(doc.paths["/api/jobs/{id}"]).sort(), ["delete", "get"]);
  for (const op of [doc.paths["/api/generate"].post, doc.paths["/api/enhance"].post, doc.paths["/api/status"].get]) {
    assert.match(op["x-codeSamples"][0].source, /^curl /);
  }

  const real = await page.evaluate(async () => {
    const headers = { "X-Requested-With": "XMLHttpRequest", "Content-Type": "application/json" };
    const gen = await (
      await fetch("/api/generate", {
        method: "POST",
        headers,
        body: JSON.stringify({ prompt: "a paper boat", ratio: "9:16" }),
      })
    ).json();
    const status = await (await fetch("/api/status", { headers })).json();
    const bad = await (
      await fetch("/api/generate", { method: "POST", headers, body: JSON.stringify({ prompt: "" }) })
    ).json();
    const accepted = await (
      await fetch("/api/generate", {
        method: "POST",
        headers: { ...headers, Prefer: "respond-async" },
        body: JSON.stringify({ prompt: "a paper plane" }),
      })
    ).json();
    let job = await (await fetch(accepted.status_url, { headers })).json();
    for (let i = 0; i < 40 && job.status !== "succeeded"; i++) {
      await new Promise((r) => setTimeout(r, 500));
      job = await (await fetch(accepted.status_url, { headers })).json();
    }
    return { gen, status, bad, accepted, job };
  });
  const generate = validatorFor(doc, "GenerateResponse");
  const status = validatorFor(doc, "StatusResponse");
  const error = validatorFor(doc, "ErrorBody");
  assert.equal(generate.safeParse(real.gen).success, true, JSON.stringify(real.gen));
  assert.equal(status.safeParse(real.status).success, true, JSON.stringify(real.status));
  assert.equal(error.safeParse(real.bad).success, true, JSON.stringify(real.bad));
  assert.equal(validatorFor(doc, "JobAccepted").safeParse(real.accepted).success, true, JSON.stringify(real.accepted));
  assert.equal(validatorFor(doc, "Job").safeParse(real.job).success, true, JSON.stringify(real.job));
  assert.equal(generate.safeParse(real.job.result).success, true, "a job's result is the synchronous body");
  // The Pro self-view, with a key.
  const pro = { Authorization: `Bearer ${(await createKey(app, "docs")).key}` };
  const account = await call(app.url, "/api/account", { headers: pro });
  const usage = await call(app.url, "/api/usage?days=3", { headers: pro });
  assert.equal(validatorFor(doc, "Account").safeParse(account.json).success, true, account.text);
  assert.equal(validatorFor(doc, "Usage").safeParse(usage.json).success, true, usage.text);
  assert.equal(validatorFor(doc, "Usage").safeParse({ ...usage.json, days: [{ date: "x" }] }).success, false);
  // The OpenAI-compatible answers, as documented.
  const v1 = (body: unknown) => ({
    method: "POST",
    headers: { ...pro, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const images = await call(app.url, "/v1/images/generations", v1({ prompt: "a paper boat", response_format: "url" }));
  const models = await call(app.url, "/v1/models", { headers: pro });
  const refused = await call(app.url, "/v1/images/generations", v1({ prompt: "a paper boat", n: 11 }));
  const openaiImages = validatorFor(doc, "OpenAIImagesResponse");
  assert.equal(openaiImages.safeParse(images.json).success, true, images.text);
  assert.equal(validatorFor(doc, "OpenAIModelList").safeParse(models.json).success, true, models.text);
  assert.equal(validatorFor(doc, "OpenAIError").safeParse(refused.json).success, true, refused.text);
  assert.equal(openaiImages.safeParse({ ...images.json, data: "x" }).success, false);
  // The validator is real: it rejects a response missing a documented field or with a wrong type.
  const { url: _url, ...withoutUrl } = real.gen as Json;
  assert.equal(generate.safeParse(withoutUrl).success, false);
  assert.equal(status.safeParse({ ...real.status, remaining: "3" }).success, false);
  // The prompt rule survives into the document even though zod expresses it as a refinement.
  assert.equal(doc.components.schemas.GenerateRequest.properties.prompt.maxLength, 400);
  await context.close();
});

test("pages carry a nonce CSP and security headers; API routes are not touched by the proxy", async () => {
  const { page, context, problems } = await openPage(browser);
  const nonces = new Set<string>();
  for (const path of ["/", "/enhance", "/waitlist", "/docs", "/no-such-page"]) {
    const res = await page.goto(`${app.url}${path}`);
    assert.ok(res);
    const h = res.headers();
    const csp = h["content-security-policy"] ?? "";
    const scriptSrc = csp.split(";").find((d) => d.trim().startsWith("script-src ")) ?? "";
    const nonce = /'nonce-([^']+)'/.exec(scriptSrc)?.[1];
    assert.ok(nonce, `${path}: script nonce in ${csp}`);
    nonces.add(nonce);
    assert.doesNotMatch(scriptSrc, /unsafe-inline/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /img-src 'self' data: blob:/);
    assert.ok(h["referrer-policy"], "Referrer-Policy");
    assert.match(h["permissions-policy"] ?? "", /camera=\(\)/);
    const scripts = await page.locator("script").evaluateAll((els) => els.map((e) => (e as HTMLScriptElement).nonce));
    assert.ok(scripts.length > 0 && scripts.every((n) => n === nonce), `${path}: every script carries the nonce`);
  }
  assert.equal(nonces.size, 5, "a fresh nonce per request");
  assert.equal(await page.getByRole("heading", { name: "Page not found" }).count(), 1);

  const api = await page.request.get(`${app.url}/api/status`, { headers: { "X-Requested-With": "XMLHttpRequest" } });
  assert.equal(api.headers()["content-security-policy"], undefined);
  const spec = await page.request.get(`${app.url}/api/openapi.json`);
  assert.equal(spec.headers()["content-security-policy"], undefined);
  const v1 = await page.request.get(`${app.url}/v1/models`);
  assert.equal(v1.status(), 401);
  assert.equal(v1.headers()["content-security-policy"], undefined, "/v1 is an API: the proxy leaves it alone");
  assert.deepEqual(problems, []);
  await context.close();
});

test("the CSP allows the PUBLIC_CDN_URL origin for images, read at request time", async () => {
  const cdnApp = await startApp({ name: "e2e-cdn", env: { PUBLIC_CDN_URL: "https://images.example.com/darkroom" } });
  try {
    const res = await fetch(`${cdnApp.url}/`);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /img-src 'self' data: blob: https:\/\/images\.example\.com;/);
  } finally {
    await cdnApp.stop();
  }
});
