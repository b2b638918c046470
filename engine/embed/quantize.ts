/**
 * Int8 weight quantization of an fp32 ONNX transformer, done once on this machine, so a local
 * model folder that ships only `onnx/model.onnx` runs at the speed and size of the int8 files the
 * hub publishes (`model_quantized.onnx`).
 *
 * What changes in the graph (everything else is copied byte for byte):
 * - every `MatMul` whose right-hand side is a 2-D fp32 weight becomes a `DynamicQuantizeMatMul`
 *   (ONNX Runtime's com.microsoft operator: activations quantized per call, weights int8 with one
 *   symmetric scale per output column);
 * - a `Gather` from a large fp32 embedding table reads an int8 table instead and is followed by a
 *   `DequantizeLinear` with one scale per hidden unit.
 *
 * The file is edited at the protobuf wire level (ModelProto → GraphProto → NodeProto/TensorProto),
 * so fields this code does not know survive unchanged.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

// --- protobuf wire format ---------------------------------------------------------------------

interface Field {
  /** Field number. */
  no: number;
  /** Wire type: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32. */
  wire: number;
  /** Varint value (wire 0). */
  value: bigint;
  /** Payload bytes (wire 1, 2, 5). */
  bytes: Buffer;
  /** The whole encoded field, tag included, for verbatim copies. */
  raw: Buffer;
}

function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated protobuf varint');
    const b = buf[pos++]!;
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7n;
  }
}

function parseFields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    const [tag, p1] = readVarint(buf, pos);
    pos = p1;
    const no = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    let value = 0n;
    let bytes: Buffer = EMPTY;
    if (wire === 0) {
      [value, pos] = readVarint(buf, pos);
    } else if (wire === 2) {
      const [len, p2] = readVarint(buf, pos);
      bytes = buf.subarray(p2, p2 + Number(len));
      pos = p2 + Number(len);
    } else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      bytes = buf.subarray(pos, pos + n);
      pos += n;
    } else {
      throw new Error(`unsupported protobuf wire type ${wire}`);
    }
    if (pos > buf.length) throw new Error('truncated protobuf field');
    out.push({ no, wire, value, bytes, raw: buf.subarray(start, pos) });
  }
  return out;
}

const EMPTY: Buffer = Buffer.alloc(0);

function varint(v: number | bigint): Buffer {
  let x = BigInt(v);
  if (x < 0n) x += 1n << 64n;
  const bytes: number[] = [];
  do {
    let b = Number(x & 0x7fn);
    x >>= 7n;
    if (x > 0n) b |= 0x80;
    bytes.push(b);
  } while (x > 0n);
  return Buffer.from(bytes);
}

function fieldVarint(no: number, v: number | bigint): Buffer {
  return Buffer.concat([varint(no << 3), varint(v)]);
}

function fieldBytes(no: number, payload: Buffer | string): Buffer {
  const b = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([varint((no << 3) | 2), varint(b.length), b]);
}

const text = (f: Field): string => f.bytes.toString('utf8');

// --- ONNX messages (only the fields this code reads or writes) -------------------------------

const MODEL = { graph: 7, opsetImport: 8 } as const;
const GRAPH = { node: 1, initializer: 5 } as const;
const NODE = { input: 1, output: 2, name: 3, opType: 4, attribute: 5, domain: 7 } as const;
const TENSOR = { dims: 1, dataType: 2, floatData: 4, name: 8, rawData: 9 } as const;
const ATTR = { name: 1, i: 3, type: 20 } as const;
const DTYPE = { float: 1, int8: 3 } as const;
const ATTR_INT = 2;

interface Tensor {
  name: string;
  dims: number[];
  dataType: number;
  /** fp32 values, when the tensor is fp32 and stored in raw_data or float_data. */
  floats: Float32Array | null;
}

function parseTensor(buf: Buffer): Tensor {
  const t: Tensor = { name: '', dims: [], dataType: 0, floats: null };
  let raw: Buffer | null = null;
  const floatData: Buffer[] = [];
  for (const f of parseFields(buf)) {
    if (f.no === TENSOR.name) t.name = text(f);
    else if (f.no === TENSOR.dataType) t.dataType = Number(f.value);
    else if (f.no === TENSOR.dims && f.wire === 0) t.dims.push(Number(f.value));
    else if (f.no === TENSOR.dims && f.wire === 2) {
      let p = 0;
      while (p < f.bytes.length) {
        const [v, p2] = readVarint(f.bytes, p);
        t.dims.push(Number(v));
        p = p2;
      }
    } else if (f.no === TENSOR.rawData) raw = f.bytes;
    else if (f.no === TENSOR.floatData) floatData.push(f.bytes);
  }
  if (t.dataType === DTYPE.float) {
    const src = raw ?? (floatData.length > 0 ? Buffer.concat(floatData) : null);
    if (src) {
      // Copy: the source buffer's offset need not be 4-byte aligned.
      const copy = Buffer.from(src);
      t.floats = new Float32Array(copy.buffer, copy.byteOffset, copy.length / 4);
    }
  }
  return t;
}

function encodeTensor(name: string, dims: number[], dataType: number, data: Buffer): Buffer {
  return Buffer.concat([
    ...dims.map((d) => fieldVarint(TENSOR.dims, d)),
    fieldVarint(TENSOR.dataType, dataType),
    fieldBytes(TENSOR.name, name),
    fieldBytes(TENSOR.rawData, data),
  ]);
}

interface Node {
  inputs: string[];
  outputs: string[];
  name: string;
  opType: string;
  domain: string;
}

function parseNode(buf: Buffer): Node {
  const n: Node = { inputs: [], outputs: [], name: '', opType: '', domain: '' };
  for (const f of parseFields(buf)) {
    if (f.no === NODE.input) n.inputs.push(text(f));
    else if (f.no === NODE.output) n.outputs.push(text(f));
    else if (f.no === NODE.name) n.name = text(f);
    else if (f.no === NODE.opType) n.opType = text(f);
    else if (f.no === NODE.domain) n.domain = text(f);
  }
  return n;
}

function encodeNode(n: Node, intAttrs: Record<string, number> = {}): Buffer {
  return Buffer.concat([
    ...n.inputs.map((i) => fieldBytes(NODE.input, i)),
    ...n.outputs.map((o) => fieldBytes(NODE.output, o)),
    fieldBytes(NODE.name, n.name),
    fieldBytes(NODE.opType, n.opType),
    ...Object.entries(intAttrs).map(([k, v]) =>
      fieldBytes(NODE.attribute, Buffer.concat([fieldBytes(ATTR.name, k), fieldVarint(ATTR.i, v), fieldVarint(ATTR.type, ATTR_INT)])),
    ),
    ...(n.domain ? [fieldBytes(NODE.domain, n.domain)] : []),
  ]);
}

// --- quantization -----------------------------------------------------------------------------

/** Symmetric int8 with one scale per column of a row-major [rows, cols] matrix. */
export function quantizeColumns(w: Float32Array, rows: number, cols: number): { q: Int8Array; scales: Float32Array } {
  const scales = new Float32Array(cols);
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    for (let c = 0; c < cols; c++) {
      const a = Math.abs(w[base + c]!);
      if (a > scales[c]!) scales[c] = a;
    }
  }
  for (let c = 0; c < cols; c++) scales[c] = scales[c]! > 0 ? scales[c]! / 127 : 1;
  const q = new Int8Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    for (let c = 0; c < cols; c++) {
      const v = Math.round(w[base + c]! / scales[c]!);
      q[base + c] = v > 127 ? 127 : v < -127 ? -127 : v;
    }
  }
  return { q, scales };
}

/** Embedding tables smaller than this stay fp32 (position and token-type tables are tiny). */
const MIN_GATHER_ELEMENTS = 1 << 20;

export interface QuantizeReport {
  matmuls: number;
  gathers: number;
}

/** Quantize an fp32 ONNX model (the file's bytes) and return the new file's bytes. */
export function quantizeOnnx(model: Buffer): { bytes: Buffer; report: QuantizeReport } {
  const top = parseFields(model);
  const graphField = top.find((f) => f.no === MODEL.graph);
  if (!graphField) throw new Error('not an ONNX model: no graph');
  const graphFields = parseFields(graphField.bytes);

  // Each initializer is parsed once; the field remembers its name for the copy below.
  const initializers = new Map<string, Tensor>();
  const initializerName = new Map<Field, string>();
  for (const f of graphFields) {
    if (f.no !== GRAPH.initializer) continue;
    const t = parseTensor(f.bytes);
    initializers.set(t.name, t);
    initializerName.set(f, t.name);
  }
  const nodes = graphFields.filter((f) => f.no === GRAPH.node).map((f) => ({ field: f, node: parseNode(f.bytes) }));
  const uses = new Map<string, number>();
  for (const { node } of nodes) for (const i of node.inputs) uses.set(i, (uses.get(i) ?? 0) + 1);

  const replaced = new Set<string>();
  const extraInits: Buffer[] = [];
  const report: QuantizeReport = { matmuls: 0, gathers: 0 };
  const newNodes: Buffer[] = [];

  for (const { field, node } of nodes) {
    const domainless = node.domain === '' || node.domain === 'ai.onnx';
    const weightName = node.opType === 'MatMul' ? node.inputs[1] : node.opType === 'Gather' ? node.inputs[0] : undefined;
    const w = weightName !== undefined ? initializers.get(weightName) : undefined;
    const eligible =
      domainless && w?.floats && w.dims.length === 2 && uses.get(weightName!) === 1 && (node.opType === 'MatMul' || w.floats.length >= MIN_GATHER_ELEMENTS);
    if (!eligible || !w?.floats) {
      newNodes.push(fieldBytes(GRAPH.node, field.bytes));
      continue;
    }
    const [rows, cols] = w.dims as [number, number];
    const { q, scales } = quantizeColumns(w.floats, rows, cols);
    const qName = `${w.name}_quantized`;
    const sName = `${w.name}_scale`;
    extraInits.push(
      fieldBytes(GRAPH.initializer, encodeTensor(qName, [rows, cols], DTYPE.int8, Buffer.from(q.buffer, q.byteOffset, q.byteLength))),
      fieldBytes(GRAPH.initializer, encodeTensor(sName, [cols], DTYPE.float, Buffer.from(scales.buffer, scales.byteOffset, scales.byteLength))),
    );
    replaced.add(w.name);
    if (node.opType === 'MatMul') {
      report.matmuls++;
      newNodes.push(
        fieldBytes(
          GRAPH.node,
          encodeNode({ inputs: [node.inputs[0]!, qName, sName], outputs: node.outputs, name: `${node.name}_quant`, opType: 'DynamicQuantizeMatMul', domain: 'com.microsoft' }),
        ),
      );
    } else {
      report.gathers++;
      const zName = `${w.name}_zero_point`;
      extraInits.push(fieldBytes(GRAPH.initializer, encodeTensor(zName, [cols], DTYPE.int8, Buffer.alloc(cols))));
      const gathered = `${node.outputs[0]}_quantized`;
      newNodes.push(
        fieldBytes(GRAPH.node, encodeNode({ ...node, inputs: [qName, ...node.inputs.slice(1)], outputs: [gathered], name: `${node.name}_quant` })),
        fieldBytes(
          GRAPH.node,
          encodeNode({ inputs: [gathered, sName, zName], outputs: node.outputs, name: `${node.name}_dequant`, opType: 'DequantizeLinear', domain: '' }, { axis: -1 }),
        ),
      );
    }
  }

  const graphOut: Buffer[] = [];
  let nodesWritten = false;
  for (const f of graphFields) {
    if (f.no === GRAPH.node) {
      if (!nodesWritten) graphOut.push(...newNodes);
      nodesWritten = true;
      continue;
    }
    if (replaced.has(initializerName.get(f) ?? '')) continue;
    graphOut.push(f.raw);
  }
  graphOut.push(...extraInits);

  const out: Buffer[] = [];
  const hasMsOpset = top.some((f) => f.no === MODEL.opsetImport && parseFields(f.bytes).some((g) => g.no === 1 && text(g) === 'com.microsoft'));
  for (const f of top) {
    if (f.no === MODEL.graph) out.push(fieldBytes(MODEL.graph, Buffer.concat(graphOut)));
    else out.push(f.raw);
  }
  if (!hasMsOpset && report.matmuls > 0) out.push(fieldBytes(MODEL.opsetImport, Buffer.concat([fieldBytes(1, 'com.microsoft'), fieldVarint(2, 1)])));
  return { bytes: Buffer.concat(out), report };
}

// --- quantized copies of local model folders --------------------------------------------------

/**
 * A folder in `cacheRoot` that holds the model of `modelDir` with an int8 `onnx/model_quantized.onnx`
 * made from its fp32 `onnx/model.onnx`; made once and reused while the source file is unchanged.
 * Returns the new folder's path (named like the source folder, inside a folder keyed by the source).
 * The other files are copied first and the graph is renamed into place last, so a folder whose
 * graph exists is complete, even when two processes make it at once.
 */
export async function quantizedModelFolder(modelDir: string, cacheRoot: string): Promise<string> {
  const source = path.join(modelDir, 'onnx', 'model.onnx');
  const st = await fs.promises.stat(source);
  const key = createHash('sha256').update(`${path.resolve(modelDir)}\n${st.size}\n${st.mtimeMs}`).digest('hex').slice(0, 12);
  const dest = path.join(cacheRoot, `${path.basename(modelDir)}-${key}`, path.basename(modelDir));
  const target = path.join(dest, 'onnx', 'model_quantized.onnx');
  if (fs.existsSync(target)) return dest;

  await fs.promises.mkdir(path.join(dest, 'onnx'), { recursive: true });
  for (const entry of await fs.promises.readdir(modelDir, { withFileTypes: true })) {
    if (entry.isFile()) await fs.promises.copyFile(path.join(modelDir, entry.name), path.join(dest, entry.name));
  }
  const { bytes } = quantizeOnnx(await fs.promises.readFile(source));
  const tmp = `${target}.${process.pid}.tmp`;
  await fs.promises.writeFile(tmp, bytes);
  await fs.promises.rename(tmp, target);
  return dest;
}
