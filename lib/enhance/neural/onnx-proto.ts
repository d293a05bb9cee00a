// Writes the ONNX protobuf subset the converter emits, deterministically, so no protobuf dependency is needed.
// Field numbers follow onnx/onnx.proto (proto2); fields go out in a fixed order, with no timestamps or maps.

// ---- wire-level encoder -----------------------------------------------------

class Writer {
  private chunks: Buffer[] = [];
  private size = 0;

  private push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
  }

  varint(v: number | bigint): this {
    let n = BigInt(v);
    if (n < 0n) n = BigInt.asUintN(64, n); // two's complement, 10 bytes
    const out: number[] = [];
    do {
      let byte = Number(n & 0x7fn);
      n >>= 7n;
      if (n !== 0n) byte |= 0x80;
      out.push(byte);
    } while (n !== 0n);
    this.push(Buffer.from(out));
    return this;
  }

  tag(field: number, wire: 0 | 1 | 2 | 5): this {
    return this.varint((field << 3) | wire);
  }

  int(field: number, v: number | bigint): this {
    return this.tag(field, 0).varint(v);
  }

  float(field: number, v: number): this {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v, 0);
    this.tag(field, 5);
    this.push(b);
    return this;
  }

  bytes(field: number, b: Uint8Array): this {
    this.tag(field, 2).varint(b.length);
    this.push(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, Buffer.from(s, "utf8"));
  }

  message(field: number, m: Writer): this {
    return this.bytes(field, m.finish());
  }

  finish(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}

// ---- ONNX object model (only what we need) ----------------------------------

export const TensorDataType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7 } as const;

export interface OnnxTensor {
  name: string;
  dims: number[];
  dataType: number;
  raw: Uint8Array; // little-endian raw_data
}

export type OnnxAttr =
  | { name: string; type: "int"; value: number }
  | { name: string; type: "ints"; value: number[] }
  | { name: string; type: "float"; value: number }
  | { name: string; type: "floats"; value: number[] }
  | { name: string; type: "string"; value: string };

export interface OnnxNode {
  name: string;
  opType: string;
  inputs: string[];
  outputs: string[];
  attrs?: OnnxAttr[];
  domain?: string;
}

export interface OnnxValueInfo {
  name: string;
  elemType: number;
  shape: (number | string)[]; // number = fixed dim, string = symbolic dim
}

export interface OnnxModel {
  irVersion: number;
  opset: number;
  producerName: string;
  producerVersion: string;
  docString?: string;
  graphName: string;
  nodes: OnnxNode[];
  initializers: OnnxTensor[];
  inputs: OnnxValueInfo[];
  outputs: OnnxValueInfo[];
  metadata: [string, string][];
}

function encodeTensor(t: OnnxTensor): Writer {
  const w = new Writer();
  for (const d of t.dims) w.int(1, d); // dims
  w.int(2, t.dataType); // data_type
  w.string(8, t.name); // name
  w.bytes(9, t.raw); // raw_data
  return w;
}

function encodeAttr(a: OnnxAttr): Writer {
  const w = new Writer();
  w.string(1, a.name);
  switch (a.type) {
    case "float":
      w.float(2, a.value);
      w.int(20, 1);
      break;
    case "int":
      w.int(3, a.value);
      w.int(20, 2);
      break;
    case "string":
      w.bytes(4, Buffer.from(a.value, "utf8"));
      w.int(20, 3);
      break;
    case "floats":
      for (const f of a.value) w.float(7, f);
      w.int(20, 6);
      break;
    case "ints":
      for (const i of a.value) w.int(8, i);
      w.int(20, 7);
      break;
  }
  return w;
}

function encodeNode(n: OnnxNode): Writer {
  const w = new Writer();
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  w.string(3, n.name);
  w.string(4, n.opType);
  for (const a of n.attrs ?? []) w.message(5, encodeAttr(a));
  if (n.domain) w.string(7, n.domain);
  return w;
}

function encodeValueInfo(v: OnnxValueInfo): Writer {
  const shape = new Writer();
  for (const d of v.shape) {
    const dim = new Writer();
    if (typeof d === "number") dim.int(1, d);
    else dim.string(2, d);
    shape.message(1, dim);
  }
  const tensorType = new Writer().int(1, v.elemType).message(2, shape);
  const type = new Writer().message(1, tensorType);
  return new Writer().string(1, v.name).message(2, type);
}

export function encodeModel(m: OnnxModel): Buffer {
  const g = new Writer();
  for (const n of m.nodes) g.message(1, encodeNode(n));
  g.string(2, m.graphName);
  for (const t of m.initializers) g.message(5, encodeTensor(t));
  for (const i of m.inputs) g.message(11, encodeValueInfo(i));
  for (const o of m.outputs) g.message(12, encodeValueInfo(o));

  const w = new Writer();
  w.int(1, m.irVersion);
  w.string(2, m.producerName);
  w.string(3, m.producerVersion);
  if (m.docString) w.string(6, m.docString);
  w.message(7, g);
  w.message(8, new Writer().string(1, "").int(2, m.opset)); // opset_import (default domain)
  for (const [k, v] of m.metadata) w.message(14, new Writer().string(1, k).string(2, v));
  return w.finish();
}

export function toFloatTensor(name: string, dims: number[], data: Float32Array): OnnxTensor {
  const raw = new Uint8Array(data.length * 4);
  const dv = new DataView(raw.buffer);
  for (let i = 0; i < data.length; i++) dv.setFloat32(i * 4, data[i], true);
  return { name, dims, dataType: TensorDataType.FLOAT, raw };
}
