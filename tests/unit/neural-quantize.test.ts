// The int8 quantizer's two choices, on the real converted graphs: which convolutions stay fp32 (the ones that make the
// output pixels) and how far each activation's calibrated range reaches (a percentile, not min-max).
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { ENHANCE_PACKAGES } from "@/lib/catalog/enhance-modes";
import { buildFloatGraph, CALIBRATION_PERCENTILE, percentileRange } from "@/lib/enhance/neural/calibrate";
import { FP32_OUTPUT_CONVS, quantizedTensors, quantizeModel, type Range } from "@/lib/enhance/neural/quantize";
import { ENHANCE_SCALES } from "@/lib/schemas/enhance-rules";

const ROOT = path.resolve(__dirname, "../..");

describe("int8 quantizer", () => {
  for (const pkg of ENHANCE_PACKAGES)
    for (const scale of ENHANCE_SCALES)
      it(`${pkg} x${scale}: the ${FP32_OUTPUT_CONVS} convolutions before the output stay fp32, every other one is int8`, () => {
        const model = buildFloatGraph(ROOT, pkg, scale);
        const ranges = new Map<string, Range>(quantizedTensors(model).map((t) => [t, { min: -1, max: 1 }]));
        const q = quantizeModel(model, ranges, { weightBits: 8 });
        const convs = q.nodes.filter((n) => n.opType === "Conv");
        const int8 = convs.filter((n) => n.inputs[1].endsWith("__dq"));
        const fp32 = convs.filter((n) => !n.inputs[1].endsWith("__dq"));
        assert.equal(convs.length, model.nodes.filter((n) => n.opType === "Conv").length);
        assert.equal(fp32.length, FP32_OUTPUT_CONVS);
        const last = convs.slice(-FP32_OUTPUT_CONVS);
        assert.deepEqual(
          fp32.map((n) => n.name),
          last.map((n) => n.name),
        );
        // Each int8 conv reads a rounded input; the fp32 ones' outputs reach the image without an 8-bit step.
        for (const n of int8) assert.ok(n.inputs[0].endsWith("__dq"), `${n.name} reads ${n.inputs[0]}`);
        const quantizeOps = new Set(q.nodes.filter((n) => n.opType === "QuantizeLinear").map((n) => n.inputs[0]));
        for (const n of fp32) assert.ok(!quantizeOps.has(n.outputs[0]), `${n.outputs[0]} is rounded to 8 bits`);
        assert.equal(q.nodes.at(-1)?.opType, "DepthToSpace");
        assert.ok(!quantizeOps.has(q.outputs[0].name));
      });

  it(`a range keeps ${CALIBRATION_PERCENTILE} % of the values: a few outliers are clipped, a spread histogram is kept whole`, () => {
    // 10⁶ values in [0, 1) and 3 outliers near 8, on a histogram over [0, 8].
    const bins = 4096;
    const counts = new Float64Array(bins);
    for (let b = 0; b < bins / 8; b++) counts[b] = 1e6 / (bins / 8);
    counts[bins - 1] = 3;
    const clipped = percentileRange(counts, 0, 8);
    assert.equal(clipped.min, 0);
    assert.ok(clipped.max >= 1 && clipped.max <= 1 + 8 / bins, `max ${clipped.max}`);

    // Values spread over [-2, 6]: nothing worth clipping, the range stays within one bin of both ends.
    const flat = new Float64Array(bins).fill(1000);
    const whole = percentileRange(flat, -2, 6);
    assert.ok(whole.min <= -2 + 8 / bins && whole.max >= 6 - 8 / bins, JSON.stringify(whole));
  });
});
