// Converts a tfjs layers model (the UpscalerJS ESRGAN/RDN family) into an ONNX graph with the Real-ESRGAN I/O contract.
//
// Output contract, shared with operator models so one runner serves both:
//   input "input" float32 NCHW [1,3,H,W], RGB in [0,1]; output "output" float32 NCHW [1,3,sH,sW].
// The models' 0..255 range is folded into the first and last conv weights (no extra Mul nodes).
// Two exact rewrites make ORT fast on CPU (see docs/enhancement.md for the measurements):
//   foldUpsample: UpSampling2D(nearest) + Conv2D → low-res Conv2D + DepthToSpace;
//   splitConcat: Concat → Conv1x1 becomes a sum of per-input 1x1 convs, with a following residual Add
//   folded in as +I. slim's 68-channel concats otherwise knock ORT out of its NCHWc layout.
import { decodeWeights, foldUpsampleKernel, transposeKernel, type WeightsManifest } from "./keras-weights";
import {
  encodeModel,
  type OnnxAttr,
  type OnnxNode,
  type OnnxTensor,
  TensorDataType,
  toFloatTensor,
} from "./onnx-proto";

/** Bumped whenever the emitted graph changes, so cached conversions are redone. */
export const CONVERTER_VERSION = "4";

type KerasConfig = {
  filters?: number;
  kernel_size?: number[];
  strides?: number[];
  dilation_rate?: number[];
  groups?: number;
  data_format?: string;
  padding?: string;
  activation?: string;
  use_bias?: boolean;
  axis?: number;
  size?: number[];
  interpolation?: string;
  batch_input_shape?: (number | null)[];
  max_value?: number | null;
  negative_slope?: number;
  threshold?: number;
  alpha?: number;
};

type KerasLayer = {
  class_name: string;
  name: string;
  config: KerasConfig;
  inbound_nodes: [string, number, number, unknown?][][];
};

type ModelConfig = {
  class_name: string;
  config: { layers: KerasLayer[]; input_layers: [string, ...unknown[]][]; output_layers: [string, ...unknown[]][] };
};

export type LayersModelJson = {
  modelTopology: ModelConfig | { model_config: ModelConfig };
  weightsManifest: WeightsManifest;
};

export type ConvertOptions = {
  foldUpsample?: boolean;
  splitConcat?: boolean;
  /** Max of the model's native input/output range: 255 for the RDN models. */
  inputMax?: number;
  outputMax?: number;
  metadata?: Record<string, string>;
};

export type ConvertInfo = {
  scale: number;
  /** Receptive-field radius in input pixels: tiles with at least this much overlap are exact. */
  receptiveRadius: number;
  /** FLOPs per input pixel of the Keras convs (2·K²·Cin·Cout per output pixel). */
  flopsPerInputPixel: number;
  parameters: number;
};

type TensorState = { onnxName: string; channels: number; scale: number; rf: number };

const readPair = (v: number[] | undefined, fallback: number[]) => v ?? fallback;

/** The value, or an error naming what the model file lacks. */
function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`malformed model: ${what} missing`);
  return value;
}

export function convertLayersModel(
  json: LayersModelJson,
  shards: Buffer[],
  opts: ConvertOptions = {},
): { onnx: Buffer; info: ConvertInfo } {
  const foldUpsample = opts.foldUpsample ?? true;
  const splitConcat = opts.splitConcat ?? true;
  const inputMax = opts.inputMax ?? 255;
  const outputMax = opts.outputMax ?? 255;

  const topo = json.modelTopology;
  const model = "model_config" in topo ? topo.model_config : topo;
  if (model.class_name !== "Functional" && model.class_name !== "Model")
    throw new Error(`unsupported model class ${model.class_name}`);
  const layers = model.config.layers;
  if (model.config.input_layers.length !== 1 || model.config.output_layers.length !== 1)
    throw new Error("expected one input and one output");
  const inputName = model.config.input_layers[0][0];
  const outputName = model.config.output_layers[0][0];

  const weights = decodeWeights(json.weightsManifest, shards);
  const weight = (name: string) => {
    const w = weights.get(name);
    if (!w) throw new Error(`weight ${name} missing`);
    return w;
  };
  const byName = new Map(layers.map((l) => [l.name, l]));
  const layerOf = (name: string) => defined(byName.get(name), `layer ${name}`);
  const inboundOf = (l: KerasLayer): string[] => {
    if (l.inbound_nodes.length === 0) return [];
    if (l.inbound_nodes.length > 1) throw new Error(`layer ${l.name} is shared`);
    return l.inbound_nodes[0].map((x) => x[0]);
  };
  const consumers = new Map<string, string[]>();
  for (const l of layers) for (const i of inboundOf(l)) consumers.set(i, [...(consumers.get(i) ?? []), l.name]);

  const nodes: OnnxNode[] = [];
  const inits: OnnxTensor[] = [];
  const state = new Map<string, TensorState>();
  let flops = 0;
  let parameters = 0;
  const fusedUpsample = new Set<string>();
  const virtualConcats = new Map<string, TensorState[]>();
  const foldedAdds = new Map<string, string>();

  const outputLayer = layerOf(outputName);
  const inputConsumers = consumers.get(inputName) ?? [];
  const foldInput = inputConsumers.length > 0 && inputConsumers.every((c) => layerOf(c).class_name === "Conv2D");
  const foldOutput =
    outputLayer.class_name === "Conv2D" && ["linear", "relu"].includes(outputLayer.config.activation ?? "linear");

  const emitActivation = (act: string, x: string, name: string): string => {
    const op = { linear: "", relu: "Relu", sigmoid: "Sigmoid", tanh: "Tanh" }[act];
    if (op === undefined) throw new Error(`unsupported activation ${act}`);
    if (op === "") return x;
    nodes.push({ name, opType: op, inputs: [x], outputs: [name] });
    return name;
  };
  const convAttrs = (k: number[], pads: number[]): OnnxAttr[] => [
    { name: "kernel_shape", type: "ints", value: k },
    { name: "pads", type: "ints", value: pads },
    { name: "strides", type: "ints", value: [1, 1] },
  ];

  /** Conv2D(1x1) over a virtual concat: a sum of per-part 1x1 convs, plus a folded residual Add. */
  const emitSplitConv = (layer: KerasLayer, parts: TensorState[]) => {
    const c = layer.config;
    const name = layer.name;
    const act = c.activation ?? "linear";
    const cin = parts.reduce((a, p) => a + p.channels, 0);
    const cout = defined(c.filters, `${name}: filters`);
    const kernel = transposeKernel(weight(`${name}/kernel`), 1, 1, cin, cout);
    const bias = c.use_bias ? Float32Array.from(weight(`${name}/bias`)) : new Float32Array(cout);
    parameters += kernel.length + (c.use_bias ? cout : 0);
    flops += 2 * cin * cout * parts[0].scale ** 2;
    const outMul = name === outputName && foldOutput ? 1 / outputMax : 1;
    // Residual fold: the only consumer is Add(this, X) with X one of the concat's parts.
    const cons = consumers.get(name) ?? [];
    let residualPart = -1;
    let addLayer: KerasLayer | undefined;
    if (cons.length === 1 && act === "linear" && name !== outputName && outMul === 1) {
      const a = layerOf(cons[0]);
      const aIns = a.class_name === "Add" ? inboundOf(a) : [];
      if (aIns.length === 2 && a.name !== outputName) {
        const other = state.get(aIns[0] === name ? aIns[1] : aIns[0]);
        residualPart = parts.findIndex((p) => other && p.onnxName === other.onnxName && p.channels === cout);
        if (residualPart >= 0) addLayer = a;
      }
    }
    let acc = "";
    let off = 0;
    parts.forEach((p, i) => {
      const w = new Float32Array(cout * p.channels);
      for (let co = 0; co < cout; co++)
        for (let ci = 0; ci < p.channels; ci++) w[co * p.channels + ci] = kernel[co * cin + off + ci] * outMul;
      if (i === residualPart) for (let co = 0; co < cout; co++) w[co * p.channels + co] += 1;
      off += p.channels;
      inits.push(toFloatTensor(`${name}__W${i}`, [cout, p.channels, 1, 1], w));
      const inputs = [p.onnxName, `${name}__W${i}`];
      if (i === 0) {
        inits.push(
          toFloatTensor(
            `${name}__B`,
            [cout],
            bias.map((v) => v * outMul),
          ),
        );
        inputs.push(`${name}__B`);
      }
      const convOut = `${name}__part${i}`;
      nodes.push({
        name: `${name}__conv${i}`,
        opType: "Conv",
        inputs,
        outputs: [convOut],
        attrs: convAttrs([1, 1], [0, 0, 0, 0]),
      });
      if (i === 0) acc = convOut;
      else {
        const sumOut = i === parts.length - 1 && act === "linear" ? name : `${name}__sum${i}`;
        // Add(conv, acc): ORT's NCHWc transformer fuses this into the conv as its Sum input.
        nodes.push({ name: `${name}__add${i}`, opType: "Add", inputs: [convOut, acc], outputs: [sumOut] });
        acc = sumOut;
      }
    });
    if (parts.length === 1 && act === "linear") {
      defined(
        nodes.find((n) => n.outputs.includes(acc)),
        `${name}: producer of ${acc}`,
      ).outputs = [name];
      acc = name;
    }
    const out = emitActivation(act, acc, name);
    state.set(name, { onnxName: out, channels: cout, scale: parts[0].scale, rf: Math.max(...parts.map((p) => p.rf)) });
    if (addLayer) foldedAdds.set(addLayer.name, name);
  };

  const emitConv = (layer: KerasLayer) => {
    const c = layer.config;
    const name = layer.name;
    const act = c.activation ?? "linear";
    const [kh, kw] = defined(c.kernel_size, `${name}: kernel_size`);
    const [sh, sw] = readPair(c.strides, [1, 1]);
    const [dh, dw] = readPair(c.dilation_rate, [1, 1]);
    if ((c.groups ?? 1) !== 1) throw new Error("grouped conv not supported");
    if (sh !== 1 || sw !== 1) throw new Error("strided conv not supported by the tiling contract");
    if (c.data_format && c.data_format !== "channels_last") throw new Error("expected channels_last");
    const cout = defined(c.filters, `${name}: filters`);
    const inName = inboundOf(layer)[0];
    const upsample = fusedUpsample.has(inName) ? layerOf(inName) : undefined;
    const srcName = upsample ? inboundOf(upsample)[0] : inName;
    const src = defined(state.get(srcName), `${name}: input ${srcName}`);
    const cin = src.channels;
    let kernel = transposeKernel(weight(`${name}/kernel`), kh, kw, cin, cout);
    let bias = c.use_bias ? Float32Array.from(weight(`${name}/bias`)) : new Float32Array(cout);
    parameters += kernel.length + (c.use_bias ? cout : 0);
    const upsampleBy = upsample ? defined(upsample.config.size, `${upsample.name}: size`)[0] : 1;
    const convScale = src.scale * upsampleBy;
    flops += 2 * kh * kw * cin * cout * convScale ** 2;
    if (src.onnxName === "input" && foldInput) kernel = kernel.map((v) => v * inputMax);
    if (name === outputName && foldOutput) {
      kernel = kernel.map((v) => v / outputMax);
      bias = bias.map((v) => v / outputMax);
    }
    let convOut = upsample ? `${name}__lr` : act === "linear" ? name : `${name}__conv`;
    let next: Omit<TensorState, "onnxName">;
    if (upsample) {
      const s = upsampleBy;
      if (kh !== kw || kh % 2 !== 1 || dh !== 1 || dw !== 1 || c.padding !== "same")
        throw new Error("internal: fold preconditions");
      const f = foldUpsampleKernel(kernel, bias, kh, cin, cout, s);
      inits.push(
        toFloatTensor(`${name}__W`, [f.cout, cin, f.k, f.k], f.kernel),
        toFloatTensor(`${name}__B`, [f.cout], f.bias),
      );
      nodes.push({
        name: `${name}__lrconv`,
        opType: "Conv",
        inputs: [src.onnxName, `${name}__W`, `${name}__B`],
        outputs: [convOut],
        attrs: convAttrs([f.k, f.k], [f.radius, f.radius, f.radius, f.radius]),
      });
      const d2s = act === "linear" ? name : `${name}__d2s`;
      nodes.push({
        name: `${name}__depth_to_space`,
        opType: "DepthToSpace",
        inputs: [convOut],
        outputs: [d2s],
        attrs: [
          { name: "blocksize", type: "int", value: s },
          { name: "mode", type: "string", value: "DCR" },
        ],
      });
      convOut = d2s;
      next = { channels: cout, scale: src.scale * s, rf: src.rf + f.radius / src.scale };
    } else {
      inits.push(toFloatTensor(`${name}__W`, [cout, cin, kh, kw], kernel), toFloatTensor(`${name}__B`, [cout], bias));
      let pads = [0, 0, 0, 0];
      if (c.padding === "same") {
        const ph = dh * (kh - 1);
        const pw = dw * (kw - 1);
        pads = [ph >> 1, pw >> 1, ph - (ph >> 1), pw - (pw >> 1)];
      } else if (c.padding !== "valid") throw new Error(`unsupported padding ${c.padding}`);
      const attrs: OnnxAttr[] = [...convAttrs([kh, kw], pads), { name: "dilations", type: "ints", value: [dh, dw] }];
      nodes.push({
        name: `${name}__conv_node`,
        opType: "Conv",
        inputs: [src.onnxName, `${name}__W`, `${name}__B`],
        outputs: [convOut],
        attrs,
      });
      next = { channels: cout, scale: src.scale, rf: src.rf + (dh * (kh - 1)) / 2 / src.scale };
    }
    state.set(name, { ...next, onnxName: emitActivation(act, convOut, name) });
  };

  const canSplitConcat = (name: string) => {
    const cons = consumers.get(name) ?? [];
    return (
      splitConcat &&
      name !== outputName &&
      cons.length > 0 &&
      cons.every((cn) => {
        const l = layerOf(cn);
        return (
          l.class_name === "Conv2D" &&
          l.config.kernel_size?.every((k) => k === 1) === true &&
          (l.config.groups ?? 1) === 1
        );
      })
    );
  };

  const canFoldUpsample = (name: string) => {
    const cons = consumers.get(name) ?? [];
    const next = cons.length === 1 ? layerOf(cons[0]) : undefined;
    const k = next?.config.kernel_size;
    return (
      foldUpsample &&
      name !== outputName &&
      next?.class_name === "Conv2D" &&
      next.config.padding === "same" &&
      !!k &&
      k[0] === k[1] &&
      k[0] % 2 === 1 &&
      readPair(next.config.dilation_rate, [1, 1]).every((v) => v === 1)
    );
  };

  for (const layer of layers) {
    const c = layer.config;
    const name = layer.name;
    const inbound = inboundOf(layer);
    for (const n of inbound)
      if (!state.has(n) && !fusedUpsample.has(n) && !virtualConcats.has(n))
        throw new Error(`layer ${name}: input ${n} not yet defined`);
    // Only a Conv2D may read a folded upsample or a split concat (it looks them up itself); every other layer's
    // inputs are real tensors.
    const ins =
      layer.class_name === "Conv2D" ? [] : inbound.map((n) => defined(state.get(n), `layer ${name}: input ${n}`));
    switch (layer.class_name) {
      case "InputLayer": {
        if ((c.batch_input_shape?.[3] ?? 3) !== 3) throw new Error("expected 3 input channels");
        if (!foldInput && inputMax !== 1) {
          inits.push(toFloatTensor(`${name}__scale`, [], new Float32Array([inputMax])));
          nodes.push({
            name: `${name}__scale_in`,
            opType: "Mul",
            inputs: ["input", `${name}__scale`],
            outputs: [name],
          });
          state.set(name, { onnxName: name, channels: 3, scale: 1, rf: 0 });
        } else state.set(name, { onnxName: "input", channels: 3, scale: 1, rf: 0 });
        break;
      }
      case "Conv2D": {
        const concat = virtualConcats.get(inboundOf(layer)[0]);
        if (concat) emitSplitConv(layer, concat);
        else emitConv(layer);
        break;
      }
      case "Activation":
        state.set(name, { ...ins[0], onnxName: emitActivation(c.activation ?? "linear", ins[0].onnxName, name) });
        break;
      case "ReLU":
        if (c.max_value != null || (c.negative_slope ?? 0) !== 0 || (c.threshold ?? 0) !== 0)
          throw new Error("ReLU variant unsupported");
        state.set(name, { ...ins[0], onnxName: emitActivation("relu", ins[0].onnxName, name) });
        break;
      case "LeakyReLU":
        nodes.push({
          name,
          opType: "LeakyRelu",
          inputs: [ins[0].onnxName],
          outputs: [name],
          attrs: [{ name: "alpha", type: "float", value: c.alpha ?? 0.3 }],
        });
        state.set(name, { ...ins[0], onnxName: name });
        break;
      case "Concatenate": {
        if (c.axis !== -1 && c.axis !== 3) throw new Error(`concat axis ${c.axis} unsupported`);
        if (canSplitConcat(name)) {
          virtualConcats.set(name, ins);
          break;
        }
        nodes.push({
          name,
          opType: "Concat",
          inputs: ins.map((s) => s.onnxName),
          outputs: [name],
          attrs: [{ name: "axis", type: "int", value: 1 }],
        });
        state.set(name, {
          onnxName: name,
          channels: ins.reduce((a, s) => a + s.channels, 0),
          scale: ins[0].scale,
          rf: Math.max(...ins.map((s) => s.rf)),
        });
        break;
      }
      case "Add": {
        const folded = foldedAdds.get(name);
        if (folded) {
          state.set(name, { ...defined(state.get(folded), `${name}: folded input ${folded}`) });
          break;
        }
        let acc = ins[0].onnxName;
        for (let i = 1; i < ins.length; i++) {
          const out = i === ins.length - 1 ? name : `${name}__${i}`;
          nodes.push({ name: `${name}__add${i}`, opType: "Add", inputs: [acc, ins[i].onnxName], outputs: [out] });
          acc = out;
        }
        state.set(name, { ...ins[0], onnxName: name, rf: Math.max(...ins.map((s) => s.rf)) });
        break;
      }
      case "UpSampling2D": {
        const [s1, s2] = defined(c.size, `${name}: size`);
        if (s1 !== s2) throw new Error("non-square upsampling unsupported");
        if ((c.interpolation ?? "nearest") !== "nearest") throw new Error("only nearest upsampling supported");
        if (canFoldUpsample(name)) {
          fusedUpsample.add(name);
          break;
        }
        inits.push(toFloatTensor(`${name}__scales`, [4], new Float32Array([1, 1, s1, s2])));
        nodes.push({
          name,
          opType: "Resize",
          inputs: [ins[0].onnxName, "", `${name}__scales`],
          outputs: [name],
          attrs: [
            { name: "mode", type: "string", value: "nearest" },
            { name: "coordinate_transformation_mode", type: "string", value: "asymmetric" },
            { name: "nearest_mode", type: "string", value: "floor" },
          ],
        });
        state.set(name, { ...ins[0], onnxName: name, scale: ins[0].scale * s1 });
        break;
      }
      default:
        throw new Error(`unsupported layer class ${layer.class_name} (${name})`);
    }
  }

  const out = defined(state.get(outputName), `output ${outputName}`);
  if (out.channels !== 3) throw new Error(`expected 3 output channels, got ${out.channels}`);
  if (!foldOutput && outputMax !== 1) {
    inits.push(toFloatTensor("output__scale", [], new Float32Array([1 / outputMax])));
    nodes.push({
      name: "output__scale_out",
      opType: "Mul",
      inputs: [out.onnxName, "output__scale"],
      outputs: ["output"],
    });
  } else {
    const producer = nodes.find((n) => n.outputs.includes(out.onnxName));
    if (!producer) throw new Error("output is the graph input");
    producer.outputs = producer.outputs.map((o) => (o === out.onnxName ? "output" : o));
  }

  const info: ConvertInfo = {
    scale: out.scale,
    receptiveRadius: Math.ceil(out.rf - 1e-9),
    flopsPerInputPixel: flops,
    parameters,
  };
  const metadata: [string, string][] = [
    ["scale", String(info.scale)],
    ["receptive_radius", String(info.receptiveRadius)],
    ["input_range", "0,1"],
    ["layout", "NCHW"],
    ["flops_per_input_pixel", String(flops)],
    ["converter_version", CONVERTER_VERSION],
    ...Object.entries(opts.metadata ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ];
  const onnx = encodeModel({
    irVersion: 8,
    opset: 17,
    producerName: "darkroom-convert-esrgan",
    producerVersion: CONVERTER_VERSION,
    graphName: "sr",
    nodes,
    initializers: inits,
    inputs: [{ name: "input", elemType: TensorDataType.FLOAT, shape: [1, 3, "height", "width"] }],
    outputs: [
      {
        name: "output",
        elemType: TensorDataType.FLOAT,
        shape: [1, 3, `height_x${info.scale}`, `width_x${info.scale}`],
      },
    ],
    metadata,
  });
  return { onnx, info };
}
