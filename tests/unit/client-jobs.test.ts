// The browser's job helpers: the SSE parser the pages read event streams with, and the words for progress and cancel.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeCancel, describeJob, ordinal } from "../../lib/client/job-copy";
import { SseParser } from "../../lib/client/sse";

describe("SseParser", () => {
  it("parses the events stream the server sends, comments and all", () => {
    const p = new SseParser();
    const text =
      'event: progress\ndata: {"status":"queued"}\n\n: keep-alive\n\nevent: succeeded\ndata: {"url":"x"}\n\n';
    assert.deepEqual(p.push(text), [
      { event: "progress", data: '{"status":"queued"}' },
      { event: "succeeded", data: '{"url":"x"}' },
    ]);
  });

  it("joins events split across chunks anywhere, including inside a CRLF", () => {
    const text = "\uFEFFevent: progress\r\ndata: a\r\ndata: b\r\n\r\nid: 7\rdata:c\r\rdata: tail";
    for (let cut = 0; cut <= text.length; cut++) {
      const p = new SseParser();
      const got = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut))];
      assert.deepEqual(
        got,
        [
          { event: "progress", data: "a\nb" },
          { event: "message", data: "c", id: "7" },
        ],
        `cut at ${cut}`,
      );
    }
  });

  it("byte by byte, with one leading space stripped and fields without a colon", () => {
    const p = new SseParser();
    const got = [..."event:failed\ndata:  two spaces\ndata\n\nevent: ignored\n\n"].flatMap((c) => p.push(c));
    assert.deepEqual(got, [{ event: "failed", data: " two spaces\n" }]);
  });
});

describe("job copy", () => {
  it("says places in line as ordinals", () => {
    const cases: [number, string][] = [
      [1, "1st"],
      [2, "2nd"],
      [3, "3rd"],
      [4, "4th"],
      [11, "11th"],
      [12, "12th"],
      [13, "13th"],
      [21, "21st"],
      [22, "22nd"],
      [23, "23rd"],
      [101, "101st"],
      [111, "111th"],
      [112, "112th"],
    ];
    for (const [n, s] of cases) assert.equal(ordinal(n), s);
  });

  it("describes waiting, the engine's stage, and a bar only when there is a fraction", () => {
    const progress = (p: Partial<{ fraction: number | null; queue_position: number | null; stage: string }>) => ({
      fraction: null,
      queue_position: null,
      stage: "running",
      ...p,
    });
    assert.deepEqual(describeJob("generate", "queued", progress({ queue_position: 3, stage: "waiting" })), {
      label: "Waiting — 3rd in line",
      detail: null,
      percent: null,
    });
    assert.equal(describeJob("generate", "queued", null).label, "Waiting in line");
    assert.deepEqual(describeJob("generate", "running", progress({})), {
      label: "Generating your image",
      detail: null,
      percent: null,
    });
    assert.deepEqual(describeJob("generate", "running", progress({ stage: "bfl: pending", fraction: 0.4 })), {
      label: "Generating your image",
      detail: "bfl: pending",
      percent: 40,
    });
    assert.deepEqual(describeJob("enhance", "running", progress({ stage: "decoding", fraction: 0 })), {
      label: "Reading your image",
      detail: null,
      percent: 0,
    });
    assert.equal(describeJob("enhance", "running", progress({ fraction: 1.7 })).percent, 100);
  });

  it("says plainly whether a cancel gave the unit back", () => {
    assert.match(describeCancel("generate", false).detail, /free generation was given back/);
    assert.match(
      describeCancel("enhance", true).detail,
      /still counts as one free enhancement today — it was not given back/,
    );
  });
});
