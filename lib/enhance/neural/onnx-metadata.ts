// Reads ModelProto.metadata_props (field 14) from ONNX bytes without a protobuf library or a session.

function readVarint(b: Uint8Array, pos: number): [number, number] {
  let result = 0;
  let mul = 1;
  for (;;) {
    const byte = b[pos++];
    if (byte === undefined) throw new Error("truncated ONNX file");
    result += (byte & 0x7f) * mul;
    if (!(byte & 0x80)) return [result, pos];
    mul *= 128;
  }
}

export function readOnnxMetadata(buf: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  const dec = new TextDecoder();
  let pos = 0;
  while (pos < buf.length) {
    let key: number;
    [key, pos] = readVarint(buf, pos);
    const wire = key & 7;
    if (wire === 0) [, pos] = readVarint(buf, pos);
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      let len: number;
      [len, pos] = readVarint(buf, pos);
      if (Math.floor(key / 8) === 14) {
        const entry = buf.subarray(pos, pos + len);
        let p = 0;
        let k = "";
        let v = "";
        while (p < entry.length) {
          let t: number;
          let l: number;
          [t, p] = readVarint(entry, p);
          [l, p] = readVarint(entry, p);
          const s = dec.decode(entry.subarray(p, p + l));
          p += l;
          if (t >> 3 === 1) k = s;
          else if (t >> 3 === 2) v = s;
        }
        out[k] = v;
      }
      pos += len;
    } else throw new Error(`not an ONNX file (protobuf wire type ${wire})`);
  }
  return out;
}
