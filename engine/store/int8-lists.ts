/**
 * Unit vectors kept as int8 codes (one scale per row) in WebAssembly memory, list by list, and a
 * SIMD kernel that scores a list's rows against a query: the IVF index's first pass (ivf.ts),
 * whose best candidates are then scored exactly from the float matrix. A row costs `dim` + 16
 * bytes (about a quarter of its float copy) and scores in a few dozen SIMD instructions: ~0.03 µs
 * for 384 dimensions read in order, where a JavaScript dot product of 384 floats took ~1 µs.
 *
 * The module is written here as bytes (no toolchain): one function,
 * `dots(rows, rowBytes, chunks, query, n, out, floor)`, which scores each of `n` rows stored one
 * after another from `rows` as `scale(row) × Σ code(row)·code(query)`, 32 codes a turn (i16x8
 * extension, i32x4.dot_i16x8_s), and writes the (position, score) of those above `floor` to `out`,
 * returning how many: the caller then looks only at rows that could enter its candidates. A row is
 * `[scale f32, 12 bytes padding, codes]`, its codes zero-padded to a multiple of 32.
 */

// ---------------------------------------------------------------- the module, as bytes

function uleb(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0;
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return out;
}
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const name = (s: string): number[] => vec([...Buffer.from(s, 'utf8')].map((b) => [b]));

const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;
// Parameters, then locals.
const ROWS = 0, ROW_BYTES = 1, CHUNKS = 2, QUERY = 3, N = 4, OUT = 5, FLOOR = 6, J = 7, P = 8, QP = 9, C = 10, R = 11, K = 12, S = 13, ACC = 14, V = 15, W = 16;

const get = (i: number): number[] => [0x20, i];
const set = (i: number): number[] => [0x21, i];
const tee = (i: number): number[] => [0x22, i];
const i32 = (v: number): number[] => [0x41, ...uleb(v)]; // small non-negative constants only
const simd = (op: number, ...imm: number[]): number[] => [0xfd, ...uleb(op), ...imm];
const ADD = 0x6a;
const MUL = 0x6c;
const SHL = 0x74;
const GE_U = 0x4f;
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const END = 0x0b;
const br = (d: number): number[] => [0x0c, d];
const brIf = (d: number): number[] => [0x0d, d];
const extendLow = simd(0x87);
const extendHigh = simd(0x88);
const dot = simd(0xba);
const add32x4 = simd(0xae);
const lane = (k: number): number[] => simd(0x1b, k);

const body = [
  ...BLOCK,
  ...LOOP,
  ...get(J), ...get(N), GE_U, ...brIf(1),
  // r = rows + j × rowBytes; p = r + 16
  ...get(ROWS), ...get(J), ...get(ROW_BYTES), MUL, ADD, ...tee(R),
  ...i32(16), ADD, ...set(P),
  ...get(QUERY), ...set(QP),
  ...simd(0x0c, ...new Array<number>(16).fill(0)), ...set(ACC),
  ...i32(0), ...set(C),
  ...BLOCK,
  ...LOOP,
  ...get(C), ...get(CHUNKS), GE_U, ...brIf(1),
  // Two blocks of 16 codes a turn (the second through the loads' offset).
  ...get(P), ...simd(0x00, 4, 0), ...set(V),
  ...get(QP), ...simd(0x00, 4, 0), ...set(W),
  ...get(ACC),
  ...get(V), ...extendLow, ...get(W), ...extendLow, ...dot, ...add32x4,
  ...get(V), ...extendHigh, ...get(W), ...extendHigh, ...dot, ...add32x4,
  ...set(ACC),
  ...get(P), ...simd(0x00, 4, 16), ...set(V),
  ...get(QP), ...simd(0x00, 4, 16), ...set(W),
  ...get(ACC),
  ...get(V), ...extendLow, ...get(W), ...extendLow, ...dot, ...add32x4,
  ...get(V), ...extendHigh, ...get(W), ...extendHigh, ...dot, ...add32x4,
  ...set(ACC),
  ...get(P), ...i32(32), ADD, ...set(P),
  ...get(QP), ...i32(32), ADD, ...set(QP),
  ...get(C), ...i32(1), ADD, ...set(C),
  ...br(0),
  END,
  END,
  // s = f32(Σ lanes) × scale(r)
  ...get(ACC), ...lane(0), ...get(ACC), ...lane(1), ADD, ...get(ACC), ...lane(2), ADD, ...get(ACC), ...lane(3), ADD,
  0xb2, // f32.convert_i32_s
  ...get(R), 0x2a, 2, 0, // f32.load
  0x94, // f32.mul
  ...set(S),
  // if s > floor: out[k] = (j, s); k++
  ...get(S), ...get(FLOOR), 0x5e, // f32.gt
  0x04, 0x40, // if
  ...get(OUT), ...get(K), ...i32(3), SHL, ADD, ...get(J), 0x36, 2, 0, // i32.store
  ...get(OUT), ...get(K), ...i32(3), SHL, ADD, ...get(S), 0x38, 2, 4, // f32.store offset 4
  ...get(K), ...i32(1), ADD, ...set(K),
  END,
  ...get(J), ...i32(1), ADD, ...set(J),
  ...br(0),
  END,
  END,
  ...get(K),
  END,
];

/** The module's bytes (exported for tests). */
export function int8DotsModule(): Uint8Array {
  const type = vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [I32], [F32]]), ...vec([[I32]])]]);
  const code = [...vec([[6, I32], [1, F32], [3, V128]]), ...body];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, type),
    ...section(3, vec([[0]])),
    ...section(5, vec([[0x00, 1]])),
    ...section(7, vec([[...name('dots'), 0x00, 0], [...name('m'), 0x02, 0]])),
    ...section(10, vec([[...uleb(code.length), ...code]])),
  ]);
}

type Dots = (rows: number, rowBytes: number, chunks: number, query: number, n: number, out: number, floor: number) => number;

/** The little of the WebAssembly API used here (this project's TypeScript libs do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface Wasm {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly?: Wasm }).WebAssembly;

let compiled: object | null | undefined;

/** The compiled module, or null where WebAssembly SIMD is not available. */
function module(): object | null {
  if (compiled === undefined) {
    try {
      const bytes = int8DotsModule();
      compiled = wasm?.validate(bytes) ? new wasm.Module(bytes) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

export function int8ListsAvailable(): boolean {
  return module() !== null;
}

/** Rows scored per call of the kernel. */
const BATCH = 4096;
const PAGE = 65536;

interface Region {
  /** First row (in rows from the start of the code area). */
  start: number;
  capacity: number;
  size: number;
}

/**
 * `lists` lists of int8 rows, each contiguous (so a list is scored reading memory in order). A
 * list that outgrows its region moves to a bigger one at the end; once the regions left behind
 * take half the area, every list is packed again.
 */
export class Int8Lists {
  private readonly memory: WasmMemory;
  private readonly dots: Dots;
  private readonly chunks: number;
  private readonly rowBytes: number;
  private readonly queryAt = 16;
  private readonly outAt: number;
  private readonly codesAt: number;
  private readonly regions: Region[];
  /** Rows allocated in the code area (regions, and what moved lists left behind). */
  private top = 0;
  private abandoned = 0;
  private bytes!: Int8Array;
  private floats!: Float32Array;
  private ints!: Int32Array;

  constructor(
    readonly dim: number,
    lists: number,
  ) {
    const m = module();
    if (!m || !wasm) throw new Error('WebAssembly SIMD is not available');
    this.chunks = Math.ceil(dim / 32);
    this.rowBytes = 16 + this.chunks * 32;
    this.outAt = this.queryAt + this.chunks * 32;
    this.codesAt = this.outAt + 8 * BATCH;
    const instance = new wasm.Instance(m, {});
    this.memory = instance.exports.m as WasmMemory;
    this.dots = instance.exports.dots as Dots;
    this.views();
    this.regions = Array.from({ length: lists }, () => ({ start: 0, capacity: 0, size: 0 }));
  }

  private views(): void {
    this.bytes = new Int8Array(this.memory.buffer);
    this.floats = new Float32Array(this.memory.buffer);
    this.ints = new Int32Array(this.memory.buffer);
  }

  private room(rows: number): void {
    const need = this.codesAt + rows * this.rowBytes;
    if (need > this.memory.buffer.byteLength) {
      const grow = Math.max(need - this.memory.buffer.byteLength, this.memory.buffer.byteLength >> 2);
      this.memory.grow(Math.ceil(grow / PAGE));
      this.views();
    }
  }

  /** Give list `l` room for `capacity` rows (at least its size). */
  reserve(l: number, capacity: number): void {
    const r = this.regions[l]!;
    if (capacity <= r.capacity) return;
    this.room(this.top + capacity);
    const at = (row: number): number => this.codesAt + row * this.rowBytes;
    this.bytes.copyWithin(at(this.top), at(r.start), at(r.start + r.size));
    this.abandoned += r.capacity;
    r.start = this.top;
    r.capacity = capacity;
    this.top += capacity;
    if (this.abandoned * 2 > this.top && this.top > 4096) this.pack();
  }

  /** Move every list down into one run, each with a quarter of its size free. */
  private pack(): void {
    const at = (row: number): number => this.codesAt + row * this.rowBytes;
    const copy = this.bytes.slice(at(0), at(this.top));
    const capacityOf = (r: Region): number => r.size + Math.max(8, r.size >> 2);
    this.room(this.regions.reduce((n, r) => n + capacityOf(r), 0));
    let next = 0;
    for (const r of this.regions) {
      const capacity = capacityOf(r);
      this.bytes.set(copy.subarray(r.start * this.rowBytes, (r.start + r.size) * this.rowBytes), at(next));
      r.start = next;
      r.capacity = capacity;
      next += capacity;
    }
    this.top = next;
    this.abandoned = 0;
  }

  size(l: number): number {
    return this.regions[l]!.size;
  }

  /** Append to list `l` the codes of `matrix[offset .. offset + dim)` (a unit vector); returns its position. */
  push(l: number, matrix: Float32Array, offset: number): number {
    const r = this.regions[l]!;
    if (r.size === r.capacity) this.reserve(l, Math.max(16, r.capacity * 2));
    const at = this.codesAt + (r.start + r.size) * this.rowBytes;
    let max = 0;
    for (let i = 0; i < this.dim; i++) max = Math.max(max, Math.abs(matrix[offset + i]!));
    this.floats[at >> 2] = max / 127;
    const k = max > 0 ? 127 / max : 0;
    for (let i = 0; i < this.dim; i++) this.bytes[at + 16 + i] = Math.round(matrix[offset + i]! * k);
    return r.size++;
  }

  /** Remove position `pos` of list `l`: the list's last row takes its place. */
  removeAt(l: number, pos: number): void {
    const r = this.regions[l]!;
    const last = r.size - 1;
    if (pos !== last) {
      const at = (row: number): number => this.codesAt + (r.start + row) * this.rowBytes;
      this.bytes.copyWithin(at(pos), at(last), at(last) + this.rowBytes);
    }
    r.size = last;
  }

  /** The query the next `score` calls compare with (a unit vector). */
  setQuery(query: Float32Array): void {
    let max = 0;
    for (let i = 0; i < this.dim; i++) max = Math.max(max, Math.abs(query[i]!));
    const k = max > 0 ? 127 / max : 0;
    for (let i = 0; i < this.dim; i++) this.bytes[this.queryAt + i] = Math.round(query[i]! * k);
  }

  /**
   * Approximate similarity (proportional to the dot product) of the query with rows
   * `from .. from + n` of list `l` (n ≤ 4096): the rows scoring above `floor` are written to
   * `hitRow` (their position in the list less `from`) and `hitScore` at 2·i, i < the count
   * returned; valid until the next call.
   */
  score(l: number, from: number, n: number, floor = -Infinity): number {
    const r = this.regions[l]!;
    return this.dots(this.codesAt + (r.start + from) * this.rowBytes, this.rowBytes, this.chunks, this.queryAt, n, this.outAt, floor);
  }

  /** Rows above the floor of the last `score`: position at `hitRow[2·i]`, score at `hitScore[2·i + 1]`. */
  get hitRow(): Int32Array {
    return this.ints.subarray(this.outAt >> 2);
  }

  get hitScore(): Float32Array {
    return this.floats.subarray(this.outAt >> 2);
  }
}

/** Rows `score` takes at once. */
export const INT8_BATCH = BATCH;
