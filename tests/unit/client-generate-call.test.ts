// The studio's generate request (JSON for text, multipart for edits) and the answer's images as history items.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type GenerateAnswer, type GenerateForm, generateBody, historyItemsOf } from "../../lib/client/generate-call";
import { extensionOf, formatFields } from "../../lib/client/output-format";

const base: GenerateForm = {
  prompt: "a red door",
  model: "alpha-schnell",
  style: "Photorealistic",
  ratio: "16:9",
  n: 1,
  format: "png",
  edit: null,
};

describe("generateBody", () => {
  it("sends text to image as the 1.1 JSON body when n and the format are the defaults", () => {
    const { body, headers } = generateBody({ ...base, seed: 7 });
    assert.equal(headers["Content-Type"], "application/json");
    assert.deepEqual(JSON.parse(body as string), {
      prompt: "a red door",
      model: "alpha-schnell",
      style: "Photorealistic",
      ratio: "16:9",
      seed: 7,
    });
  });

  it("adds n as a number and the format when they are chosen", () => {
    const { body } = generateBody({ ...base, n: 4, format: "webp" });
    const json = JSON.parse(body as string);
    assert.equal(json.n, 4);
    assert.equal(json.output_format, "webp");
  });

  it("sends an edit as multipart: the fields as text, the image, the mask, the strength, and no ratio", async () => {
    const image = new File([new Uint8Array([1, 2, 3])], "photo.png", { type: "image/png" });
    const mask = new Blob([new Uint8Array([4, 5])], { type: "image/png" });
    const { body, headers } = generateBody({ ...base, n: 4, format: "webp", edit: { image, mask, strength: 0.6 } });
    assert.deepEqual(headers, {}, "the browser sets the multipart boundary itself");
    assert.ok(body instanceof FormData);
    assert.equal(body.get("prompt"), "a red door");
    assert.equal(body.get("n"), "4");
    assert.equal(body.get("output_format"), "webp");
    assert.equal(body.get("strength"), "0.6");
    assert.equal(body.get("ratio"), null, "the result keeps the image's shape");
    const sentImage = body.get("image") as File;
    assert.equal(sentImage.name, "photo.png");
    assert.deepEqual([...new Uint8Array(await sentImage.arrayBuffer())], [1, 2, 3]);
    const sentMask = body.get("mask") as File;
    assert.equal(sentMask.name, "mask.png");
    assert.equal(sentMask.size, 2);
  });

  it("leaves the mask out when none was painted: the whole image is changed", () => {
    const image = new File([new Uint8Array([1])], "photo.jpg", { type: "image/jpeg" });
    const { body } = generateBody({ ...base, edit: { image, mask: null, strength: 0.3 } });
    assert.ok(body instanceof FormData);
    assert.equal(body.get("mask"), null);
    assert.equal(body.get("n"), null);
    assert.equal(body.get("strength"), "0.3");
  });
});

describe("historyItemsOf", () => {
  const answer: GenerateAnswer = {
    url: "http://x/cdn/a.webp",
    id: "a",
    seed: 1,
    width: 640,
    height: 480,
    expires_at: null,
    delete_token: "tok-a",
    model: "alpha-schnell",
    style: "Photorealistic",
    ratio: "1:1",
    engine: "preview",
    ai: false,
    remaining: 1,
  };

  it("makes one item per image in images[], each with its own id, seed and delete token", () => {
    const images = ["a", "b"].map((id, i) => ({
      url: `http://x/cdn/${id}.webp`,
      id,
      seed: i + 1,
      width: 640,
      height: 480,
      expires_at: null,
      delete_token: `tok-${id}`,
    }));
    const items = historyItemsOf({ ...answer, images }, { prompt: "p", edit: { strength: 0.6, masked: true } });
    assert.deepEqual(
      items.map((i) => [i.id, i.seed, i.deleteToken, i.ai, i.edit?.masked]),
      [
        ["a", 1, "tok-a", false, true],
        ["b", 2, "tok-b", false, true],
      ],
    );
  });

  it("reads a 1.1 answer without images[] as one image", () => {
    const items = historyItemsOf(answer, { prompt: "p", edit: null });
    assert.equal(items.length, 1);
    assert.equal(items[0].deleteToken, "tok-a");
    assert.equal(items[0].edit, undefined);
  });
});

describe("output formats", () => {
  it("names downloads after the URL's extension, and leaves PNG out of the request", () => {
    assert.equal(extensionOf("http://h/cdn/img_1.webp"), "webp");
    assert.equal(extensionOf("http://h/cdn/img_1.jpeg?x=1"), "jpg");
    assert.equal(extensionOf("http://h/cdn/img_1"), "png");
    assert.deepEqual(formatFields("png"), {});
    assert.deepEqual(formatFields("avif"), { output_format: "avif" });
  });
});
