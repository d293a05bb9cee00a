// A loopback OTLP/HTTP trace receiver: accepts POST /v1/traces (http/protobuf, the default protocol, or http/json)
// and decodes ExportTraceServiceRequest per opentelemetry-proto (collector/trace/v1, trace/v1, common/v1).
import http from "node:http";
import type net from "node:net";
import zlib from "node:zlib";

export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** Status code: 0 unset, 1 ok, 2 error. */
  status: number;
  service: string;
};

export type OtlpReceiver = {
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the exports received, e.g. "application/x-protobuf". */
  contentTypes: string[];
  close(): Promise<void>;
};

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = zlib.gunzipSync(body);
      const type = String(req.headers["content-type"] ?? "");
      contentTypes.push(type);
      try {
        spans.push(...(type.includes("json") ? decodeJson(JSON.parse(body.toString("utf8"))) : decodeProtobuf(body)));
      } catch {
        res.writeHead(400).end();
        return;
      }
      // An empty ExportTraceServiceResponse means full success, in either encoding.
      if (type.includes("json")) res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
      else res.writeHead(200, { "Content-Type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Field = { no: number; wire: number; value: bigint | Buffer };

/** The fields of one protobuf message, in order (wire types 0 varint, 1 fixed64, 2 bytes, 5 fixed32). */
function fieldsOf(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[pos++];
      if (b === undefined) throw new Error("truncated varint");
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (pos < buf.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, wire, value: varint() });
    else if (wire === 1) {
      out.push({ no, wire, value: buf.readBigUInt64LE(pos) });
      pos += 8;
    } else if (wire === 2) {
      const len = Number(varint());
      out.push({ no, wire, value: buf.subarray(pos, pos + len) });
      pos += len;
    } else if (wire === 5) {
      out.push({ no, wire, value: BigInt(buf.readUInt32LE(pos)) });
      pos += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

const all = (fields: Field[], no: number) => fields.filter((f) => f.no === no).map((f) => f.value);
const bytesOf = (fields: Field[], no: number) => (all(fields, no)[0] as Buffer | undefined) ?? Buffer.alloc(0);

function anyValue(buf: Buffer): string | number | boolean {
  const f = fieldsOf(buf)[0];
  if (!f) return "";
  if (f.no === 1) return (f.value as Buffer).toString("utf8");
  if (f.no === 2) return f.value === 1n;
  if (f.no === 3) return Number(BigInt.asIntN(64, f.value as bigint));
  if (f.no === 4) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(f.value as bigint);
    return b.readDoubleLE(0);
  }
  return "";
}

function attributesOf(kvs: (bigint | Buffer)[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of kvs) {
    const f = fieldsOf(kv as Buffer);
    out[bytesOf(f, 1).toString("utf8")] = anyValue(bytesOf(f, 2));
  }
  return out;
}

function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of all(fieldsOf(body), 1)) {
    const rsFields = fieldsOf(rs as Buffer);
    const resource = attributesOf(all(fieldsOf(bytesOf(rsFields, 1)), 1));
    for (const ss of all(rsFields, 2)) {
      for (const raw of all(fieldsOf(ss as Buffer), 2)) {
        const s = fieldsOf(raw as Buffer);
        const status = fieldsOf(bytesOf(s, 15));
        spans.push({
          traceId: bytesOf(s, 1).toString("hex"),
          spanId: bytesOf(s, 2).toString("hex"),
          parentSpanId: bytesOf(s, 4).toString("hex"),
          name: bytesOf(s, 5).toString("utf8"),
          kind: Number(all(s, 6)[0] ?? 0n),
          attributes: attributesOf(all(s, 9)),
          status: Number(all(status, 3)[0] ?? 0n),
          service: String(resource["service.name"] ?? ""),
        });
      }
    }
  }
  return spans;
}

type JsonKv = { key: string; value: Record<string, unknown> };
type JsonSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: JsonKv[];
  status?: { code?: number };
};

/** OTLP/JSON: ids are hex strings, enums integers, 64-bit integers may be strings. */
function decodeJson(body: {
  resourceSpans?: { resource?: { attributes?: JsonKv[] }; scopeSpans?: { spans?: JsonSpan[] }[] }[];
}): ReceivedSpan[] {
  const attrs = (kvs: JsonKv[] = []) =>
    Object.fromEntries(
      kvs.map((kv) => {
        const v = kv.value;
        const value = v.stringValue ?? v.boolValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.doubleValue);
        return [kv.key, value as string | number | boolean];
      }),
    );
  return (body.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? "",
        name: s.name,
        kind: s.kind ?? 0,
        attributes: attrs(s.attributes),
        status: s.status?.code ?? 0,
        service: String(attrs(rs.resource?.attributes)["service.name"] ?? ""),
      })),
    ),
  );
}
