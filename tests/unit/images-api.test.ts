// The image library's HTTP helpers: the list query and its opaque cursor, the id in the path, and the JSON shape.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeCursor, imageJsonOf, parseImageListQuery, readImageId } from "@/lib/features/images/answer";
import { type ImageRecord, positionOf } from "@/lib/images/store";
import { ApiError } from "@/lib/schemas/api-error";
import { imageSchema } from "@/lib/schemas/images";

const DAY_MS = 86_400_000;
const req = (path: string) => new Request(`http://localhost${path}`);

describe("GET /api/images query", () => {
  it("defaults to 20, caps at 100 and refuses what is not a positive integer", () => {
    assert.deepEqual(parseImageListQuery(req("/api/images")), { limit: 20 });
    assert.deepEqual(parseImageListQuery(req("/api/images?limit=7")), { limit: 7 });
    assert.deepEqual(parseImageListQuery(req("/api/images?limit=100")), { limit: 100 });
    assert.deepEqual(parseImageListQuery(req("/api/images?limit=5000")), { limit: 100 });
    for (const bad of ["0", "-1", "abc", "2.5", "", "1e3"]) {
      assert.throws(
        () => parseImageListQuery(req(`/api/images?limit=${bad}`)),
        (e: unknown) => e instanceof ApiError && e.code === "invalid_request",
        bad,
      );
    }
  });

  it("takes back the cursors it gives out, and nothing else", () => {
    const position = positionOf({ createdAt: 1_700_000_000_000, id: "darkroom/abc-XYZ.png" });
    const cursor = encodeCursor(position);
    assert.match(cursor, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(parseImageListQuery(req(`/api/images?limit=2&cursor=${cursor}`)), { limit: 2, after: position });
    for (const bad of ["nope!", encodeCursor("not a position"), "%00"]) {
      assert.throws(
        () => parseImageListQuery(req(`/api/images?cursor=${bad}`)),
        (e: unknown) => e instanceof ApiError && e.code === "invalid_request",
      );
    }
  });
});

describe("image ids in the path", () => {
  it("reads local ids and Blob pathnames, raw or percent-encoded", () => {
    const hex = "0123456789abcdef0123456789abcdef";
    assert.equal(readImageId(req(`/api/images/${hex}`)), hex);
    assert.equal(readImageId(req(`/api/images/darkroom/${hex}-AbC.png`)), `darkroom/${hex}-AbC.png`);
    assert.equal(readImageId(req(`/api/images/darkroom%2F${hex}-AbC.png`)), `darkroom/${hex}-AbC.png`);
    assert.equal(readImageId(req("/api/images/%E0%A4%A")), null);
    assert.equal(readImageId(req("/api/images/")), null);
  });
});

describe("image JSON", () => {
  const base = {
    id: "0123456789abcdef0123456789abcdef",
    owner: "key_a",
    url: "http://localhost/cdn/0123456789abcdef0123456789abcdef.png",
    bytes: 1234,
    createdAt: Date.UTC(2030, 0, 1),
    deleteTokenHash: "h",
  };

  it("shows a generation's request fields and its effective expiry", () => {
    const record: ImageRecord = {
      ...base,
      kind: "generate",
      params: { prompt: "a cat", model: "beta-3", style: "Anime", ratio: "16:9", seed: 42 },
      width: 1536,
      height: 864,
      expiresAt: base.createdAt + 30 * DAY_MS,
    };
    const json = imageJsonOf(record, 30);
    assert.deepEqual(json, {
      id: base.id,
      kind: "generate",
      url: base.url,
      width: 1536,
      height: 864,
      bytes: 1234,
      created_at: "2030-01-01T00:00:00.000Z",
      expires_at: "2030-01-31T00:00:00.000Z",
      model: "beta-3",
      prompt: "a cat",
      style: "Anime",
      ratio: "16:9",
      seed: 42,
    });
    assert.equal(imageSchema.safeParse(json).success, true);
    assert.equal(imageJsonOf(record, 1).expires_at, "2030-01-02T00:00:00.000Z", "retention shortened since");
    assert.equal(imageJsonOf({ ...record, expiresAt: null }, 0).expires_at, null);
  });

  it("shows an enhancement's strength, scale and sizes", () => {
    const json = imageJsonOf(
      {
        ...base,
        kind: "enhance",
        params: { strength: 0.7, scale: 2, model: "fast", originalWidth: 640, originalHeight: 480 },
        width: 1280,
        height: 960,
        expiresAt: null,
      },
      0,
    );
    assert.equal(json.kind, "enhance");
    assert.equal(json.strength, 0.7);
    assert.equal(json.scale, 2);
    assert.equal(json.model, "fast");
    assert.equal(json.original_size, "640x480");
    assert.equal(json.enhanced_size, "1280x960");
    assert.equal(json.prompt, undefined);
    assert.equal(imageSchema.safeParse(json).success, true);
  });
});
