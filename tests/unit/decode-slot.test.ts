// Edit inputs are decoded inside a bounded slot (issue 33, item 1; contract 1.3 "Decoding is bounded"): while the
// slots and their queue are full, another edit is refused as busy (503, its unit given back by the route) instead
// of decoding beside them; a generation without an input image never waits for a slot.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import sharp from "sharp";
import { QueueFull } from "@/lib/errors";
import { type CheckedOrder, prepareWork } from "@/lib/features/generate/flow";
import type { Services } from "@/lib/services";
import { PixelBudget } from "@/lib/work/pixel-budget";
import { WorkQueue } from "@/lib/work/queue";

function servicesWith(
  decode: WorkQueue,
  pixels = new PixelBudget({ capacity: 256 * 1024 * 1024, maxWaiting: 4, maxWaitMs: 120_000 }),
) {
  return {
    queues: { decode },
    pixels,
    config: { upload: { maxBytes: 10 * 1024 * 1024, maxPixels: 25_000_000 } },
    engines: { sizingFor: () => ({ kind: "fixed" }) },
  } as unknown as Services;
}

async function editOrder(): Promise<CheckedOrder> {
  const image = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#369" } })
    .png()
    .toBuffer();
  return {
    order: {
      input: { prompt: "a boat", model: "alpha-pro", style: "Photorealistic", ratio: "1:1" },
      image,
      strength: 0.6,
      ratioGiven: true,
    },
    hasImage: true,
    records: {} as CheckedOrder["records"],
  } as CheckedOrder;
}

describe("prepareWork's decode slot", () => {
  it("refuses an edit while every decode slot and queue place is taken, and decodes once one frees", async () => {
    const decode = new WorkQueue("decode-test", 1, 0);
    const svc = servicesWith(decode);
    let free!: () => void;
    const holding = decode.run(() => new Promise<void>((resolve) => (free = resolve)));
    await assert.rejects(prepareWork(svc, await editOrder()), QueueFull);
    free();
    await holding;
    const work = await prepareWork(svc, await editOrder());
    assert.deepEqual([work.edit?.input.width, work.edit?.input.height], [1024, 1024]);
    assert.deepEqual(decode.stats, { running: 0, queued: 0 });
  });

  it("lets a generation without an input image through whatever the decode slots hold", async () => {
    const decode = new WorkQueue("decode-test-2", 1, 0);
    let free!: () => void;
    const holding = decode.run(() => new Promise<void>((resolve) => (free = resolve)));
    const order = await editOrder();
    const work = await prepareWork(servicesWith(decode), { ...order, hasImage: false });
    assert.equal(work.edit, undefined);
    free();
    await holding;
  });

  it("takes the edit's pixels from the process's pixel budget: busy while another decode holds it, all back after", async () => {
    const pixels = new PixelBudget({ capacity: 1024 * 1024, maxWaiting: 4, maxWaitMs: 100 });
    const svc = servicesWith(new WorkQueue("decode-test-3", 2, 0), pixels);
    const other = await pixels.take(1024 * 1024);
    await assert.rejects(prepareWork(svc, await editOrder()), QueueFull);
    other.release();
    const work = await prepareWork(svc, await editOrder());
    assert.deepEqual([work.edit?.input.width, work.edit?.input.height], [1024, 1024]);
    assert.deepEqual(pixels.stats, { used: 0, waiting: 0 });
  });
});
