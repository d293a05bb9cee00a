// Configuration is checked once at start: defaults, operator numbers, and half-configured backends refused.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { ConfigError, parseConfig } from "@/lib/config";

describe("parseConfig", () => {
  it("runs on embedded defaults with no variables at all", () => {
    const c = parseConfig({});
    assert.equal(c.port, 3000);
    assert.equal(c.dataDir, path.resolve(".data"));
    assert.deepEqual(c.limits, {
      freeGenerationsPerDay: 5,
      freeEnhancementsPerDay: 5,
      proRequestsPerDay: 1000,
      statusCallsPerMinute: 60,
      waitlistSignupsPerDay: 20,
      waitlistGlobalSignupsPerDay: 1000,
      freeGlobalGenerationsPerDay: 1000,
      freeGlobalEnhancementsPerDay: 1000,
    });
    assert.equal(c.upload.maxBytes, 10 * 1024 * 1024);
    assert.equal(c.upload.maxInflightBytes, 128 * 1024 * 1024);
    assert.equal(c.onVercel, false);
    assert.equal(c.upload.maxPixels, 25_000_000);
    assert.equal(c.upstash, undefined);
    assert.equal(c.blobToken, undefined);
  });

  it("takes the operator's numbers, where a daily limit of 0 closes that door", () => {
    const c = parseConfig({
      FREE_GENERATIONS_PER_DAY: "7",
      FREE_ENHANCEMENTS_PER_DAY: "0",
      PRO_REQUESTS_PER_DAY: "50000",
      WAITLIST_SIGNUPS_PER_DAY: "0",
      STATUS_CALLS_PER_MINUTE: "1",
      MAX_UPLOAD_BYTES: "1",
    });
    assert.equal(c.limits.freeGenerationsPerDay, 7);
    assert.equal(c.limits.freeEnhancementsPerDay, 0);
    assert.equal(c.limits.proRequestsPerDay, 50000);
    assert.equal(c.limits.waitlistSignupsPerDay, 0);
    assert.equal(c.limits.statusCallsPerMinute, 1);
    assert.equal(c.upload.maxBytes, 1);
  });

  const bad: [string, Record<string, string>, RegExp][] = [
    ["a negative limit", { FREE_GENERATIONS_PER_DAY: "-1" }, /FREE_GENERATIONS_PER_DAY/],
    ["a status guard of 0, which would refuse every status call", { STATUS_CALLS_PER_MINUTE: "0" }, /STATUS_CALLS/],
    ["an upload limit of 0, which would refuse every upload", { MAX_UPLOAD_BYTES: "0" }, /MAX_UPLOAD_BYTES/],
    ["a non-numeric port", { PORT: "http" }, /PORT/],
    [
      "an Upstash URL without its token",
      { UPSTASH_REDIS_REST_URL: "https://x.upstash.io" },
      /UPSTASH_REDIS_REST_TOKEN/,
    ],
    [
      "an Upstash token without its URL",
      { UPSTASH_REDIS_REST_TOKEN: "t", KEY_PEPPER: "p".repeat(32) },
      /UPSTASH_REDIS_REST_URL/,
    ],
    [
      "Upstash without a shared pepper",
      { UPSTASH_REDIS_REST_URL: "https://x.upstash.io", UPSTASH_REDIS_REST_TOKEN: "t" },
      /KEY_PEPPER/,
    ],
    ["a Redis URL without a shared pepper", { REDIS_URL: "redis://127.0.0.1:6379" }, /KEY_PEPPER/],
    [
      "a Redis URL that is not redis:// or rediss://",
      { REDIS_URL: "http://127.0.0.1:6379", KEY_PEPPER: "p".repeat(32) },
      /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/,
    ],
    [
      "both Redis transports at once",
      {
        REDIS_URL: "redis://127.0.0.1:6379",
        UPSTASH_REDIS_REST_URL: "https://x.upstash.io",
        UPSTASH_REDIS_REST_TOKEN: "t",
        KEY_PEPPER: "p".repeat(32),
      },
      /REDIS_URL or UPSTASH_REDIS_REST_URL/,
    ],
    ["a negative shutdown grace", { SHUTDOWN_GRACE_MS: "-1" }, /SHUTDOWN_GRACE_MS/],
    ["a short pepper", { KEY_PEPPER: "short" }, /KEY_PEPPER/],
    ["a CDN base that is not a URL", { PUBLIC_CDN_URL: "cdn.example.com" }, /PUBLIC_CDN_URL/],
    ["an admin token under 32 characters", { ADMIN_TOKEN: "t".repeat(31) }, /ADMIN_TOKEN.*32/],
    ["an SMTP URL without a sender", { SMTP_URL: "smtp://127.0.0.1:2525" }, /MAIL_FROM/],
    ["a sender without an SMTP URL", { MAIL_FROM: "keys@example.com" }, /SMTP_URL/],
    ["an SMTP URL that is not smtp", { SMTP_URL: "http://mail.example.com", MAIL_FROM: "a@b.c" }, /SMTP_URL/],
  ];
  for (const [name, env, message] of bad) {
    it(`refuses ${name}`, () => {
      assert.throws(
        () => parseConfig(env),
        (err: unknown) => err instanceof ConfigError && message.test(err.message),
      );
    });
  }
});

describe("the Redis backend", () => {
  it("takes REDIS_URL (redis:// or rediss://) as its TCP transport, with no token", () => {
    const pepper = "p".repeat(32);
    assert.deepEqual(
      parseConfig({ REDIS_URL: "rediss://user:pw@redis.example.com:6380/2", KEY_PEPPER: pepper }).upstash,
      {
        url: "rediss://user:pw@redis.example.com:6380/2",
        token: "",
        timeoutMs: 1500,
      },
    );
    const slow = { UPSTASH_REDIS_REST_URL: "https://r.example.com", UPSTASH_REDIS_REST_TOKEN: "t", KEY_PEPPER: pepper };
    assert.equal(parseConfig({ ...slow, REDIS_TIMEOUT_MS: "8000" }).upstash?.timeoutMs, 8000);
    assert.throws(() => parseConfig({ ...slow, REDIS_TIMEOUT_MS: "10" }), ConfigError);
    assert.equal(parseConfig({}).upstash, undefined);
    assert.equal(parseConfig({}).shutdownGraceMs, 30_000);
  });
});

describe("operators' console", () => {
  it("is off without ADMIN_TOKEN, and on with a long enough one", () => {
    assert.equal(parseConfig({}).admin, undefined);
    assert.equal(parseConfig({ ADMIN_TOKEN: "   " }).admin, undefined);
    assert.deepEqual(parseConfig({ ADMIN_TOKEN: "t".repeat(32) }).admin, { token: "t".repeat(32) });
  });

  it("mails invitations only with both SMTP_URL and MAIL_FROM; keeps 90 days of usage unless told otherwise", () => {
    assert.equal(parseConfig({}).mail, undefined);
    const c = parseConfig({ SMTP_URL: "smtps://u:p@mail.example.com", MAIL_FROM: "Darkroom <keys@example.com>" });
    assert.deepEqual(c.mail, { smtpUrl: "smtps://u:p@mail.example.com", from: "Darkroom <keys@example.com>" });
    assert.equal(c.usageHistoryDays, 90);
    assert.equal(parseConfig({ USAGE_HISTORY_DAYS: "0" }).usageHistoryDays, 0);
  });
});

describe("platform detection", () => {
  it("trusts the Vercel platform only when Vercel's run-time variables are both set", () => {
    assert.equal(parseConfig({ VERCEL: "1", KEY_PEPPER: "p".repeat(32) }).onVercel, false);
    assert.equal(parseConfig({ VERCEL: "1", VERCEL_URL: "x.vercel.app", KEY_PEPPER: "p".repeat(32) }).onVercel, true);
  });
});

describe("parseConfig: S3 storage", () => {
  it("is off without S3_BUCKET, and reads the AWS SDK's standard variables with it", () => {
    assert.equal(parseConfig({ AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" }).s3, undefined);
    assert.deepEqual(
      parseConfig({
        S3_BUCKET: "images",
        S3_PREFIX: "darkroom",
        S3_FORCE_PATH_STYLE: "true",
        AWS_ENDPOINT_URL: "http://127.0.0.1:9000",
        AWS_ACCESS_KEY_ID: "key",
        AWS_SECRET_ACCESS_KEY: "secret",
        PUBLIC_CDN_URL: "https://img.example.com/",
      }).s3,
      {
        bucket: "images",
        region: "us-east-1",
        endpoint: "http://127.0.0.1:9000",
        forcePathStyle: true,
        prefix: "darkroom/",
        credentials: { accessKeyId: "key", secretAccessKey: "secret" },
        checksums: "WHEN_REQUIRED",
        publicBase: "https://img.example.com",
      },
    );
    const s3 = parseConfig({
      S3_BUCKET: "images",
      AWS_REGION: "eu-central-1",
      AWS_ENDPOINT_URL: "http://ignored.example",
      AWS_ENDPOINT_URL_S3: "https://s3.example.com",
      AWS_REQUEST_CHECKSUM_CALCULATION: "when_supported",
    }).s3;
    assert.equal(s3?.endpoint, "https://s3.example.com");
    assert.equal(s3?.region, "eu-central-1");
    assert.equal(s3?.checksums, "WHEN_SUPPORTED");
    assert.equal(s3?.credentials, undefined, "no keys: the SDK's own chain (profiles, instance roles)");
    assert.equal(s3?.forcePathStyle, false);
  });

  for (const [env, variable] of [
    [{ S3_BUCKET: "images", BLOB_READ_WRITE_TOKEN: "t" }, "S3_BUCKET"],
    [{ S3_BUCKET: "images", AWS_ACCESS_KEY_ID: "key" }, "AWS_SECRET_ACCESS_KEY"],
    [{ S3_BUCKET: "images", AWS_SECRET_ACCESS_KEY: "s" }, "AWS_ACCESS_KEY_ID"],
    [{ S3_BUCKET: "no/slash" }, "S3_BUCKET"],
    [{ S3_BUCKET: "images", S3_PREFIX: "/abs" }, "S3_PREFIX"],
    [{ S3_BUCKET: "images", S3_FORCE_PATH_STYLE: "yes" }, "S3_FORCE_PATH_STYLE"],
    [{ S3_BUCKET: "images", AWS_ENDPOINT_URL_S3: "ftp://x" }, "AWS_ENDPOINT_URL_S3"],
    [{ S3_BUCKET: "images", AWS_REQUEST_CHECKSUM_CALCULATION: "NEVER" }, "AWS_REQUEST_CHECKSUM_CALCULATION"],
  ] as const) {
    it(`refuses to start on ${JSON.stringify(env)}, naming ${variable}`, () => {
      assert.throws(
        () => parseConfig(env),
        (err: unknown) => err instanceof ConfigError && err.message.includes(variable),
      );
    });
  }
});
