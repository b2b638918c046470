/**
 * Exact similarity of one query against every row of an in-memory matrix, as one matrix product
 * run by ONNX Runtime (already loaded for the embedding model): its SIMD kernels take ~0.5 ms for
 * 10k × 384 on one core, where a JavaScript loop takes ~2.4 ms and a LanceDB vector query ~3.5 ms
 * of CPU (most of it handing work between threads).
 *
 * The model is one MatMul node, written here as ONNX protobuf bytes: `scores[n×1] = m[n×d] · q[d×1]`.
 */
import type * as OrtModule from 'onnxruntime-node';
import { removeOnnxDebugLog } from '../onnx-litter.js';

type Ort = typeof OrtModule;
type Session = OrtModule.InferenceSession;

let ortModule: Promise<Ort> | null = null;
/**
 * Loaded on first use (hosts that never scan a matrix do not load the runtime for it), and through
 * `import` as transformers.js loads it: one module instance per process whatever the path to
 * node_modules. Two instances in one process each initialise the native runtime, and Node aborts
 * on the second (`napi_add_env_cleanup_hook` assertion in onnxruntime-node's InitOrt).
 */
function ort(): Promise<Ort> {
  ortModule ??= import('onnxruntime-node') as Promise<Ort>;
  return ortModule;
}

// ---------------------------------------------------------------- protobuf, just enough for one graph

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  do {
    let b = v & 0x7f;
    v = Math.floor(v / 128);
    if (v > 0) b |= 0x80;
    out.push(b);
  } while (v > 0);
  return out;
}
const tag = (field: number, wire: 0 | 2): number[] => varint(field * 8 + wire);
const int = (field: number, v: number): number[] => [...tag(field, 0), ...varint(v)];
const bytes = (field: number, b: number[]): number[] => [...tag(field, 2), ...varint(b.length), ...b];
const str = (field: number, s: string): number[] => bytes(field, [...Buffer.from(s, 'utf8')]);

const FLOAT = 1;
/** ValueInfoProto of a float tensor; a string dimension is symbolic (any size). */
function floatTensor(field: number, name: string, dims: (number | string)[]): number[] {
  const shape = dims.flatMap((d) => bytes(1, typeof d === 'string' ? str(2, d) : int(1, d)));
  const tensorType = [...int(1, FLOAT), ...bytes(2, shape)];
  return bytes(field, [...str(1, name), ...bytes(2, bytes(1, tensorType))]);
}

/**
 * ModelProto (IR 8, opset 13) of `s = MatMul(m, q)` for vectors of `dim`: `q` is one query
 * (`[dim, 1]`) or several side by side (`[dim, k]`, the IVF index's k-means).
 */
export function matmulModel(dim: number): Uint8Array {
  const node = [...str(1, 'm'), ...str(1, 'q'), ...str(2, 's'), ...str(3, 'scan'), ...str(4, 'MatMul')];
  const graph = [...bytes(1, node), ...str(2, 'vector-scan'), ...floatTensor(11, 'm', ['n', dim]), ...floatTensor(11, 'q', [dim, 'k']), ...floatTensor(12, 's', ['n', 'k'])];
  return Uint8Array.from([...int(1, 8), ...bytes(8, [...str(1, ''), ...int(2, 13)]), ...bytes(7, graph)]);
}

// ---------------------------------------------------------------- the scanner

/**
 * Below this many multiply-adds a JavaScript loop answers sooner than a call into the runtime
 * (~0.1 ms), and a small store never loads the runtime at all.
 */
export const JS_SCAN_MAX_PRODUCTS = 1 << 18;

/** `scores[r] = matrix row r · query` for the first `rows` rows, in plain JavaScript. */
export function scanInJs(matrix: Float32Array, rows: number, query: Float32Array): Float32Array {
  const out = new Float32Array(rows);
  for (let r = 0; r < rows; r++) out[r] = rowDot(matrix, r, query);
  return out;
}

/** Row `row` of a row-major matrix (`query.length` wide) · query, in double precision. */
export function rowDot(matrix: Float32Array, row: number, query: Float32Array): number {
  const o = row * query.length;
  let d = 0;
  for (let i = 0; i < query.length; i++) d += matrix[o + i]! * query[i]!;
  return d;
}

/** Runtime sessions opened by scans and not yet released, over the whole process. */
let liveSessions = 0;

/** How many scans hold a runtime session now (each holds one from its first large scan until `close`). */
export function liveScanSessions(): number {
  return liveSessions;
}

export class VectorScan {
  private session: Promise<Session> | null = null;
  /** Why the runtime could not be used (then every scan runs in JavaScript). */
  private unavailable: string | null = null;

  constructor(
    readonly dim: number,
    private readonly onUnavailable: (reason: string) => void = () => {},
  ) {}

  private open(): Promise<Session> {
    this.session ??= ort().then((o) => o.InferenceSession.create(matmulModel(this.dim), {
      // One thread: a search is small, and concurrent searches are the parallelism.
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      enableCpuMemArena: false,
      extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
    })).then((s) => {
      liveSessions++;
      removeOnnxDebugLog();
      return s;
    });
    return this.session;
  }

  /**
   * Dot product of `query` with each of the first `rows` rows of `matrix` (row-major, `dim` wide).
   * The matrix is read when the runtime runs (one macrotask later), not when this is called.
   */
  async scores(matrix: Float32Array, rows: number, query: Float32Array): Promise<Float32Array> {
    if (query.length !== this.dim) throw new Error(`query has ${query.length} dimensions, the scan ${this.dim}`);
    if (rows * this.dim <= JS_SCAN_MAX_PRODUCTS || this.unavailable !== null) return scanInJs(matrix, rows, query);
    let session: Session;
    try {
      session = await this.open();
    } catch (err) {
      this.unavailable = err instanceof Error ? err.message : String(err);
      this.onUnavailable(this.unavailable);
      return scanInJs(matrix, rows, query);
    }
    const { Tensor } = await ort();
    const out = await session.run({ m: new Tensor('float32', matrix.subarray(0, rows * this.dim), [rows, this.dim]), q: new Tensor('float32', query, [this.dim, 1]) });
    return out.s!.data as Float32Array;
  }

  /**
   * `out[r × k + j] = matrix row r · column j of `columns`` for the first `rows` rows: `columns`
   * is `dim × k`, row-major (k vectors side by side). For the IVF index's training and assignment.
   */
  async product(matrix: Float32Array, rows: number, columns: Float32Array, k: number): Promise<Float32Array> {
    if (columns.length !== this.dim * k) throw new Error(`columns hold ${columns.length} values, not ${this.dim} × ${k}`);
    if (rows * this.dim * k > JS_SCAN_MAX_PRODUCTS && this.unavailable === null) {
      try {
        const session = await this.open();
        const { Tensor } = await ort();
        const out = await session.run({ m: new Tensor('float32', matrix.subarray(0, rows * this.dim), [rows, this.dim]), q: new Tensor('float32', columns, [this.dim, k]) });
        return out.s!.data as Float32Array;
      } catch (err) {
        this.unavailable = err instanceof Error ? err.message : String(err);
        this.onUnavailable(this.unavailable);
      }
    }
    const out = new Float32Array(rows * k);
    for (let r = 0; r < rows; r++) {
      const o = r * this.dim;
      for (let j = 0; j < k; j++) {
        let d = 0;
        for (let i = 0; i < this.dim; i++) d += matrix[o + i]! * columns[i * k + j]!;
        out[r * k + j] = d;
      }
    }
    return out;
  }

  async close(): Promise<void> {
    const s = this.session;
    this.session = null;
    const opened = s ? await s.catch(() => null) : null;
    if (!opened) return;
    liveSessions--;
    await opened.release();
  }
}
