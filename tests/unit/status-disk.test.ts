// Free space on DATA_DIR for /api/status, and the image library's two variables.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { ConfigError, parseConfig } from "@/lib/config";
import { createDiskChecker, readFreeMb } from "@/lib/status/disk";

const checkDisk = createDiskChecker();

describe("free disk space", () => {
  it("reads the free space of the disk holding a folder, even one not created yet", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "darkroom-disk-"));
    const free = await readFreeMb(dir);
    assert.ok(free !== null && free > 0);
    const missing = await readFreeMb(path.join(dir, "not", "yet"));
    assert.ok(missing !== null && Math.abs(missing - free) < 64, `${missing} vs ${free}`);
    fs.rmSync(dir, { recursive: true });
  });

  it("is low below the minimum, and off at 0", async () => {
    const dir = os.tmpdir();
    const free = (await readFreeMb(dir)) ?? 0;
    const checked = await checkDisk(dir, 1);
    // Other processes write to the same disk meanwhile: the two readings agree to within a few MB, not exactly.
    assert.ok(checked && Math.abs(checked.freeMb - Math.floor(free)) < 64, `${checked?.freeMb} vs ${free}`);
    assert.deepEqual({ ...checked, freeMb: 0 }, { freeMb: 0, minFreeMb: 1, low: false });
    const huge = await checkDisk(dir, 1_000_000_000);
    assert.equal(huge?.low, true);
    assert.equal(await checkDisk(dir, 0), null);
  });
});

describe("image library configuration", () => {
  it("reads IMAGE_RETENTION_DAYS (decimals, 0 = forever), MIN_FREE_DISK_MB and CRON_SECRET", () => {
    assert.deepEqual(parseConfig({}).images, { retentionDays: 30, minFreeDiskMb: 512, cronSecret: undefined });
    assert.equal(parseConfig({ IMAGE_RETENTION_DAYS: "0.00001" }).images.retentionDays, 0.00001);
    assert.equal(parseConfig({ IMAGE_RETENTION_DAYS: "0" }).images.retentionDays, 0);
    assert.equal(parseConfig({ IMAGE_RETENTION_DAYS: " " }).images.retentionDays, 30, "blank is the default");
    assert.equal(parseConfig({ MIN_FREE_DISK_MB: "0" }).images.minFreeDiskMb, 0);
    for (const bad of ["-1", "abc", "1e9"]) {
      assert.throws(() => parseConfig({ IMAGE_RETENTION_DAYS: bad }), ConfigError, bad);
    }
    assert.throws(() => parseConfig({ MIN_FREE_DISK_MB: "lots" }), /MIN_FREE_DISK_MB/);
    assert.equal(parseConfig({ CRON_SECRET: "s".repeat(16) }).images.cronSecret, "s".repeat(16));
    assert.throws(() => parseConfig({ CRON_SECRET: "short" }), /CRON_SECRET/);
  });
});
