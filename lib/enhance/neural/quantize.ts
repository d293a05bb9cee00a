// Static int8 quantization of a converted super-resolution graph into QDQ form: QuantizeLinear/DequantizeLinear
// around every Conv, Add and Concat, which ONNX Runtime's CPU provider fuses into QLinearConv, QLinearAdd and
// QLinearConcat. Weights are int8 per output channel (symmetric), biases int32 at input scale × weight scale,
// activations uint8 per tensor with ranges measured on calibration photos (calibrate.ts). The convolutions that
// make the output pixels stay fp32 (FP32_OUTPUT_CONVS).
// Worker-side code (loaded by tsx outside Next's bundle), so relative imports only.
import { type OnnxModel, type OnnxNode, type OnnxTensor, TensorDataType, toFloatTensor } from "./onnx-proto";

export type Range = { min: number; max: number };
export type QuantizeOptions = {
  /**
   * Bits of the int8 weights: 8, or 7 on x86 CPUs without VNNI, whose u8×s8 instruction (vpmaddubsw) saturates
   * 16-bit pair sums with full-range weights (ONNX Runtime's reduce_range).
   */
  weightBits: 7 | 8;
  /**
   * int8 (the fast kernels), or uint8 with zero point 128: the same weights and the same exact integer sums, so the
   * same output, but through ONNX Runtime's u8u8 kernels, which never saturate and are no faster than fp32. It
   * shows on any CPU what a VNNI CPU computes with 8-bit int8 weights.
   */
  weightType?: "int8" | "uint8";
};

const u8 = (name: string, dims: number[], data: Uint8Array): OnnxTensor => ({
  name,
  dims,
  dataType: TensorDataType.UINT8,
  raw: data,
});
const i8 = (name: string, dims: number[], data: Int8Array): OnnxTensor => ({
  name,
  dims,
  dataType: TensorDataType.INT8,
  raw: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
});
const i32 = (name: string, dims: number[], data: Int32Array): OnnxTensor => ({
  name,
  dims,
  dataType: TensorDataType.INT32,
  raw: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
});

/** Ops that read only the positions of their input, not its values: their output keeps the input's parameters. */
const LAYOUT_OPS = new Set(["DepthToSpace"]);

function need<K, V>(map: Map<K, V>, key: K): V {
  const v = map.get(key);
  if (v === undefined) throw new Error(`internal: ${String(key)} missing`);
  return v;
}

function producers(model: OnnxModel) {
  const map = new Map<string, OnnxNode>();
  for (const n of model.nodes) for (const o of n.outputs) map.set(o, n);
  return map;
}

function consumersOf(model: OnnxModel) {
  const map = new Map<string, OnnxNode[]>();
  for (const n of model.nodes) for (const i of n.inputs) map.set(i, [...(map.get(i) ?? []), n]);
  return map;
}

/**
 * How many convolutions, counted back from the output, stay fp32: the last two make the output pixels (a 3×3 conv
 * to scale² × 3 channels, then the one before the depth-to-space), so in int8 every pixel is rounded through an
 * 8-bit map of itself. Measured on the held-out photos (enhanced output at strength 1, 8-bit weights): with 0, fast
 * 2× lost 0.12 dB and quality 2× 0.17 dB against fp32, over the 0.1 dB bar; with 2, 0.05 dB each, for about 3 % of
 * the int8 run time at 2× (6 % at 4×, where the two are larger).
 */
export const FP32_OUTPUT_CONVS = 2;

/** The names of the FP32_OUTPUT_CONVS convolutions nearest the output, following each one's first input back. */
export function fp32Convs(model: OnnxModel): Set<string> {
  const prod = producers(model);
  const found = new Set<string>();
  let p = prod.get(model.outputs[0].name);
  while (p && found.size < FP32_OUTPUT_CONVS) {
    if (p.opType === "Conv") found.add(p.name);
    p = prod.get(p.inputs[0]);
  }
  return found;
}

/**
 * Whether `reader` takes `t` rounded to 8 bits (through its DequantizeLinear). Every reader does, so that each Q/DQ
 * pair fuses into the int8 op that makes `t`, except that readers other than int8 convolutions take the outputs of
 * the fp32 convolutions (seen through a Relu) as they are: the pixels are never rounded to 8 bits twice (no banding).
 */
function readsRounded(reader: OnnxNode, t: string, prod: Map<string, OnnxNode>, fp32: Set<string>): boolean {
  if (reader.opType === "Conv" && !fp32.has(reader.name)) return true;
  let p = prod.get(t);
  if (p?.opType === "Relu") p = prod.get(p.inputs[0]);
  return !(p?.opType === "Conv" && fp32.has(p.name));
}

/**
 * The float tensors that get a Q/DQ pair: the graph input and every node output that some reader takes rounded,
 * except a tensor read only by Relu (the Relu's output is quantized, and ORT drops a Relu before a zero-point-0
 * QuantizeLinear).
 */
export function quantizedTensors(model: OnnxModel): string[] {
  const prod = producers(model);
  const cons = consumersOf(model);
  const fp32 = fp32Convs(model);
  const names = [...model.inputs.map((i) => i.name), ...model.nodes.flatMap((n) => n.outputs)];
  return names.filter((t) => {
    const readers = cons.get(t) ?? [];
    if (readers.length === 0 || readers.every((r) => r.opType === "Relu")) return false;
    return readers.some((r) => readsRounded(r, t, prod, fp32));
  });
}

/** The graph with `tensors` as extra outputs, so one run records every activation the quantizer needs. */
export function withTensorOutputs(model: OnnxModel, tensors: string[]): OnnxModel {
  const present = new Set(model.outputs.map((o) => o.name));
  const extra = tensors
    .filter((t) => !present.has(t) && !model.inputs.some((i) => i.name === t))
    .map((name, i) => ({ name, elemType: TensorDataType.FLOAT, shape: [`n${i}`, `c${i}`, `h${i}`, `w${i}`] }));
  return { ...model, outputs: [...model.outputs, ...extra] };
}

/** uint8 parameters covering [min, max] ∪ {0}, so that 0 (padding, ReLU) is exact. */
export function activationParams(r: Range): { scale: number; zeroPoint: number } {
  const min = Math.min(0, r.min);
  const max = Math.max(0, r.max);
  const scale = max > min ? (max - min) / 255 : 1;
  return { scale, zeroPoint: Math.min(255, Math.max(0, Math.round(-min / scale))) };
}

/** Symmetric per-output-channel int8 weights for an OIHW kernel. */
export function quantizeWeights(w: Float32Array, cout: number, bits: 7 | 8) {
  const qmax = bits === 8 ? 127 : 63;
  const per = w.length / cout;
  const scales = new Float32Array(cout);
  const q = new Int8Array(w.length);
  for (let c = 0; c < cout; c++) {
    let amax = 0;
    for (let i = c * per; i < (c + 1) * per; i++) amax = Math.max(amax, Math.abs(w[i]));
    const s = amax > 0 ? amax / qmax : 1;
    scales[c] = s;
    for (let i = c * per; i < (c + 1) * per; i++) q[i] = Math.max(-qmax, Math.min(qmax, Math.round(w[i] / s)));
  }
  return { q, scales };
}

function floatsOf(t: OnnxTensor): Float32Array {
  if (t.dataType !== TensorDataType.FLOAT) throw new Error(`${t.name}: expected float32`);
  const copy = Uint8Array.from(t.raw);
  return new Float32Array(copy.buffer);
}

type QParams = { scale: number; zeroPoint: number };

/** Each quantized tensor's uint8 parameters: the input's exact 1/255, a layout op's input's, else its calibrated range. */
function tensorParams(model: OnnxModel, tensors: string[], ranges: Map<string, Range>): Map<string, QParams> {
  const params = new Map<string, QParams>();
  const prod = producers(model);
  const inputNames = new Set(model.inputs.map((i) => i.name));
  for (const t of tensors) {
    const p = prod.get(t);
    if (inputNames.has(t)) params.set(t, { scale: 1 / 255, zeroPoint: 0 });
    else if (p && LAYOUT_OPS.has(p.opType) && params.has(p.inputs[0])) params.set(t, need(params, p.inputs[0]));
    else {
      const r = ranges.get(t);
      if (!r) throw new Error(`no calibration range for ${t}`);
      params.set(t, activationParams(r));
    }
  }
  return params;
}

/** What the rewrite adds beside the rewritten nodes: initializers, the weights' DQ nodes, the float inits replaced. */
type Additions = { inits: OnnxTensor[]; qdq: OnnxNode[]; used: Set<string> };

const dqName = (t: string) => `${t}__dq`;

/** Q then DQ right after the tensor's producer; readers take the DQ output. */
function qdqPair(t: string, p: QParams, add: Additions): OnnxNode[] {
  const s = `${t}__qs`;
  const z = `${t}__qz`;
  add.inits.push(toFloatTensor(s, [], new Float32Array([p.scale])), u8(z, [], new Uint8Array([p.zeroPoint])));
  return [
    { name: `${t}__quantize`, opType: "QuantizeLinear", inputs: [t, s, z], outputs: [`${t}__q`] },
    { name: `${t}__dequantize`, opType: "DequantizeLinear", inputs: [`${t}__q`, s, z], outputs: [dqName(t)] },
  ];
}

/** A per-output-channel DequantizeLinear of an initializer, whose output the conv reads instead of the float one. */
function dequantizeInit(name: string, add: Additions): string {
  add.qdq.push({
    name: `${name}__dequantize`,
    opType: "DequantizeLinear",
    inputs: [name, `${name}__s`, `${name}__z`],
    outputs: [dqName(name)],
    attrs: [{ name: "axis", type: "int", value: 0 }],
  });
  return dqName(name);
}

/**
 * A convolution's weights as int8 per output channel (or uint8 around 128) and its bias as int32 at input scale ×
 * weight scale, each through a DequantizeLinear: the rewritten conv's inputs.
 */
function quantizeConv(
  n: OnnxNode,
  inputs: string[],
  inits: Map<string, OnnxTensor>,
  inputScale: number,
  opts: QuantizeOptions,
  add: Additions,
): string[] {
  const w = inits.get(n.inputs[1]);
  if (!w) throw new Error(`${n.name}: weight initializer missing`);
  const cout = w.dims[0];
  const { q, scales } = quantizeWeights(floatsOf(w), cout, opts.weightBits);
  const wq = `${w.name}__i8`;
  if (opts.weightType === "uint8")
    add.inits.push(
      u8(
        wq,
        w.dims,
        Uint8Array.from(q, (v) => v + 128),
      ),
      toFloatTensor(`${wq}__s`, [cout], scales),
      u8(`${wq}__z`, [cout], new Uint8Array(cout).fill(128)),
    );
  else
    add.inits.push(
      i8(wq, w.dims, q),
      toFloatTensor(`${wq}__s`, [cout], scales),
      i8(`${wq}__z`, [cout], new Int8Array(cout)),
    );
  add.used.add(w.name);
  const out = [...inputs];
  out[1] = dequantizeInit(wq, add);
  const bName = n.inputs[2];
  if (bName) {
    const b = floatsOf(need(inits, bName));
    const bs = scales.map((s) => s * inputScale);
    const bq = Int32Array.from(b, (v, c) => Math.round(v / bs[c]));
    const bi = `${bName}__i32`;
    add.inits.push(
      i32(bi, [cout], bq),
      toFloatTensor(`${bi}__s`, [cout], bs),
      i32(`${bi}__z`, [cout], new Int32Array(cout)),
    );
    add.used.add(bName);
    out[2] = dequantizeInit(bi, add);
  }
  return out;
}

/**
 * The QDQ graph. `ranges` holds the calibrated [min, max] of every tensor quantizedTensors() names, except the
 * graph input, which is RGB in [0, 1] from 8-bit pixels: scale 1/255 represents it exactly.
 */
export function quantizeModel(model: OnnxModel, ranges: Map<string, Range>, opts: QuantizeOptions): OnnxModel {
  const inits = new Map(model.initializers.map((t) => [t.name, t]));
  const tensors = quantizedTensors(model);
  const params = tensorParams(model, tensors, ranges);
  const prod = producers(model);
  const add: Additions = { inits: [], qdq: [], used: new Set() };
  const quantized = new Set(tensors);
  const fp32 = fp32Convs(model);
  const nodes: OnnxNode[] = [];
  for (const t of model.inputs.map((i) => i.name))
    if (quantized.has(t)) nodes.push(...qdqPair(t, need(params, t), add));
  for (const n of model.nodes) {
    let inputs = n.inputs.map((i) => (quantized.has(i) && readsRounded(n, i, prod, fp32) ? dqName(i) : i));
    if (n.opType === "Conv" && !fp32.has(n.name) && quantized.has(n.inputs[0]))
      inputs = quantizeConv(n, inputs, inits, need(params, n.inputs[0]).scale, opts, add);
    nodes.push({ ...n, inputs });
    for (const o of n.outputs) if (quantized.has(o)) nodes.push(...qdqPair(o, need(params, o), add));
  }
  return {
    ...model,
    nodes: [...add.qdq, ...nodes],
    initializers: [...model.initializers.filter((t) => !add.used.has(t.name)), ...add.inits],
    metadata: [...model.metadata, ["precision", "int8"], ["weight_bits", String(opts.weightBits)]],
  };
}
