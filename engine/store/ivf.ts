/**
 * An inverted-file (IVF) index over a ResidentView's vectors, for views too large to scan whole
 * for every search: the rows are clustered around `nlist` centroids (spherical k-means), each row
 * sits in the list of its nearest centroid, and a search computes the exact dot product of the
 * query with the rows of the lists whose centroids are nearest the query, until it has seen
 * enough rows. Candidates are scored exactly (the view's own float vectors), so only which rows
 * are looked at is approximate, never a score.
 *
 * Rows added after training go to their nearest list at once; the index is trained again in the
 * background once the rows it covers doubled or halved (ResidentView).
 */
import { INT8_BATCH, Int8Lists, int8ListsAvailable } from './int8-lists.js';
import type { VectorScan } from './vector-scan.js';

/** Rows of one model a view holds before its vector channel goes approximate (below: every row scanned). */
export const IVF_MIN_ROWS = 32_768;

/** Rows per matrix product while training: each product holds the event loop (~15-25 ms at 632 lists × 384 on a busy 2-core machine). */
const ASSIGN_CHUNK = 1024;
/** Sample rows per list that train the centroids. */
const SAMPLE_PER_LIST = 32;
const ITERATIONS = 10;

/**
 * Lists for `n` rows: about 2√n (≈160 rows a list at 100k). On the server bench's corpus at 100k,
 * twice as many lists as √n found as much at half the rows read (recall@10 0.975 reading 4% of
 * the rows, against 0.92 with √n lists).
 */
export function listsFor(n: number): number {
  return Math.max(8, Math.min(4096, Math.round(2 * Math.sqrt(n))));
}

/** mulberry32: the same rows always give the same index. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class IvfIndex {
  readonly nlist: number;
  private readonly members: Int32Array[];
  private readonly sizes: Int32Array;
  private listOf = new Int32Array(0);
  private posOf = new Int32Array(0);
  private count = 0;
  /** The rows' int8 codes list by list (null without WebAssembly SIMD: rows are scored from the matrix). */
  private readonly codes: Int8Lists | null;
  /** The centroids' codes, as one list. */
  private readonly centroidCodes: Int8Lists | null;
  /** Hits of `scoreAbove` without WebAssembly (the layout of Int8Lists' output). */
  private readonly hitBuffer = new ArrayBuffer(8 * INT8_BATCH);
  private readonly hitInts = new Int32Array(this.hitBuffer);
  private readonly hitFloats = new Float32Array(this.hitBuffer);

  constructor(
    readonly dim: number,
    /** `nlist × dim`, each of unit length. */
    readonly centroids: Float32Array,
    /** The view's code of the model whose vectors the index holds. */
    readonly modelId: number,
    /** Rows the centroids were trained for. */
    readonly trainedRows: number,
    /** Rows expected in each list (room is made for them, and a quarter more, up front). */
    expected: Int32Array | null = null,
  ) {
    this.nlist = centroids.length / dim;
    const room = (l: number): number => Math.ceil((expected?.[l] ?? 0) * 1.25) + 16;
    this.members = Array.from({ length: this.nlist }, (_, l) => new Int32Array(room(l)));
    this.sizes = new Int32Array(this.nlist);
    if (int8ListsAvailable()) {
      this.codes = new Int8Lists(dim, this.nlist);
      for (let l = 0; l < this.nlist; l++) this.codes.reserve(l, room(l));
      this.centroidCodes = new Int8Lists(dim, 1);
      for (let l = 0; l < this.nlist; l++) this.centroidCodes.push(0, centroids, l * dim);
    } else {
      this.codes = null;
      this.centroidCodes = null;
    }
  }

  /** Rows indexed. */
  get rows(): number {
    return this.count;
  }

  /**
   * The list nearest to a vector (`matrix` row starting at `offset`): from the centroids' int8
   * codes where there are any (a catch-up of 3,000 new rows took a second comparing floats in
   * JavaScript), which may pick a near-tie's list: the row is still found from there.
   */
  nearest(matrix: Float32Array, offset: number): number {
    const codes = this.centroidCodes;
    if (codes) {
      codes.setQuery(matrix.subarray(offset, offset + this.dim));
      let best = 0;
      let bestScore = -Infinity;
      for (let from = 0; from < this.nlist; from += INT8_BATCH) {
        const count = codes.score(0, from, Math.min(INT8_BATCH, this.nlist - from));
        const at = codes.hitRow;
        const score = codes.hitScore;
        for (let h = 0; h < count; h++) {
          if (score[2 * h + 1]! > bestScore) {
            bestScore = score[2 * h + 1]!;
            best = from + at[2 * h]!;
          }
        }
      }
      return best;
    }
    const c = this.centroids;
    const d = this.dim;
    let best = 0;
    let bestScore = -Infinity;
    for (let l = 0, o = 0; l < this.nlist; l++, o += d) {
      let s = 0;
      for (let i = 0; i < d; i++) s += matrix[offset + i]! * c[o + i]!;
      if (s > bestScore) {
        bestScore = s;
        best = l;
      }
    }
    return best;
  }

  /** Put `slot` in list `l` (out of any list it was in); its vector is `matrix` row `slot`. */
  put(slot: number, l: number, matrix: Float32Array): void {
    this.remove(slot);
    if (slot >= this.listOf.length) {
      const n = Math.max(slot + 1, this.listOf.length * 2, 1024);
      const listOf = new Int32Array(n).fill(-1);
      listOf.set(this.listOf);
      const posOf = new Int32Array(n);
      posOf.set(this.posOf);
      this.listOf = listOf;
      this.posOf = posOf;
    }
    let m = this.members[l]!;
    const size = this.sizes[l]!;
    if (size === m.length) {
      const bigger = new Int32Array(m.length * 2);
      bigger.set(m);
      this.members[l] = m = bigger;
    }
    m[size] = slot;
    this.codes?.push(l, matrix, slot * this.dim);
    this.sizes[l] = size + 1;
    this.listOf[slot] = l;
    this.posOf[slot] = size;
    this.count++;
  }

  /** Put `slot` in the list of its nearest centroid (its vector is `matrix` row `slot`). */
  assign(slot: number, matrix: Float32Array): void {
    this.put(slot, this.nearest(matrix, slot * this.dim), matrix);
  }

  remove(slot: number): void {
    const l = slot < this.listOf.length ? this.listOf[slot]! : -1;
    if (l < 0) return;
    const m = this.members[l]!;
    const last = this.sizes[l]! - 1;
    const pos = this.posOf[slot]!;
    const moved = m[last]!;
    m[pos] = moved;
    this.posOf[moved] = pos;
    this.codes?.removeAt(l, pos);
    this.sizes[l] = last;
    this.listOf[slot] = -1;
    this.count--;
  }

  /** Lists by their centroid's similarity to `query` (unit length), most similar first; sets the query `score` compares with. */
  order(query: Float32Array): Int32Array {
    let scores: Float32Array;
    if (this.codes && this.centroidCodes) {
      this.codes.setQuery(query);
      this.centroidCodes.setQuery(query);
      scores = new Float32Array(this.nlist);
      for (let from = 0; from < this.nlist; from += INT8_BATCH) {
        const count = this.centroidCodes.score(0, from, Math.min(INT8_BATCH, this.nlist - from));
        const at = this.centroidCodes.hitRow;
        const score = this.centroidCodes.hitScore;
        for (let h = 0; h < count; h++) scores[from + at[2 * h]!] = score[2 * h + 1]!;
      }
    } else {
      scores = new Float32Array(this.nlist);
      for (let l = 0, o = 0; l < this.nlist; l++, o += this.dim) {
        let s = 0;
        for (let i = 0; i < this.dim; i++) s += query[i]! * this.centroids[o + i]!;
        scores[l] = s;
      }
    }
    return Int32Array.from({ length: this.nlist }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  }

  /** The slots of list `l` (the first `size(l)` entries). */
  list(l: number): Int32Array {
    return this.members[l]!;
  }

  size(l: number): number {
    return this.sizes[l]!;
  }

  /**
   * Entries `from .. from + n` (n ≤ INT8_BATCH) of list `l` more similar to the query of the last
   * `order` call than `floor` (proportional to the dot product: approximately from the int8
   * codes, or, without WebAssembly, exactly from `matrix`): returns how many; the i-th is entry
   * `from + hitRow[2i]` with similarity `hitScore[2i + 1]`, until the next call.
   */
  scoreAbove(l: number, from: number, n: number, floor: number, matrix: Float32Array, query: Float32Array): number {
    if (this.codes) return this.codes.score(l, from, n, floor);
    const m = this.members[l]!;
    const d = this.dim;
    let count = 0;
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let i = 0, o = m[from + j]! * d; i < d; i++) s += matrix[o + i]! * query[i]!;
      if (s <= floor) continue;
      this.hitInts[2 * count] = j;
      this.hitFloats[2 * count + 1] = s;
      count++;
    }
    return count;
  }

  get hitRow(): Int32Array {
    return this.codes ? this.codes.hitRow : this.hitInts;
  }

  get hitScore(): Float32Array {
    return this.codes ? this.codes.hitScore : this.hitFloats;
  }
}

/** What training reads from the view; `matrix()` is asked again at every step (the view may grow meanwhile). */
export interface IvfSource {
  dim: number;
  scan: VectorScan;
  modelId: number;
  /** The slots to index, each holding a unit vector of the model when training began. */
  slots: Int32Array;
  matrix(): Float32Array;
}

/**
 * Train centroids on a sample of the rows (spherical k-means, the products through the scan's
 * ONNX Runtime session) and put every row in its nearest list. Asynchronous: each matrix product
 * is one turn of the event loop, so searches keep being answered meanwhile. Rows that change while
 * it runs may be listed under their old vector; the caller puts those right (ResidentView).
 */
export async function trainIvf(src: IvfSource): Promise<IvfIndex> {
  const { dim, scan, slots } = src;
  const n = slots.length;
  const nlist = Math.min(listsFor(n), n);
  const rand = prng(n * 2654435761 + nlist);
  // A sample of distinct rows; its first nlist rows seed the centroids.
  const order = Int32Array.from(slots);
  const sampleSize = Math.min(n, nlist * SAMPLE_PER_LIST);
  for (let i = 0; i < sampleSize; i++) {
    const j = i + Math.floor(rand() * (n - i));
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  const sample = new Float32Array(sampleSize * dim);
  let m = src.matrix();
  for (let i = 0; i < sampleSize; i++) sample.set(m.subarray(order[i]! * dim, (order[i]! + 1) * dim), i * dim);
  const centroids = sample.slice(0, nlist * dim);
  const columns = new Float32Array(dim * nlist);
  const transpose = (): void => {
    for (let l = 0; l < nlist; l++) for (let i = 0; i < dim; i++) columns[i * nlist + l] = centroids[l * dim + i]!;
  };
  const nearestOf = (scores: Float32Array, rows: number, out: Int32Array, best?: Float32Array): void => {
    for (let r = 0; r < rows; r++) {
      let b = 0;
      let bs = -Infinity;
      for (let l = 0, o = r * nlist; l < nlist; l++) {
        if (scores[o + l]! > bs) {
          bs = scores[o + l]!;
          b = l;
        }
      }
      out[r] = b;
      if (best) best[r] = bs;
    }
  };
  const assigned = new Int32Array(sampleSize).fill(-1);
  const next = new Int32Array(sampleSize);
  const bestScore = new Float32Array(sampleSize);
  for (let it = 0; it < ITERATIONS; it++) {
    transpose();
    // A chunk of the sample per product: each is one turn of the event loop (tens of ms).
    for (let start = 0; start < sampleSize; start += ASSIGN_CHUNK) {
      const rows = Math.min(ASSIGN_CHUNK, sampleSize - start);
      const scores = await scan.product(sample.subarray(start * dim, (start + rows) * dim), rows, columns, nlist);
      nearestOf(scores, rows, next.subarray(start, start + rows), bestScore.subarray(start, start + rows));
    }
    let moved = 0;
    for (let r = 0; r < sampleSize; r++) if (next[r] !== assigned[r]) moved++;
    assigned.set(next);
    if (moved <= sampleSize / 200) break; // under 0.5% of the sample moved: settled
    const sums = new Float64Array(nlist * dim);
    const counts = new Int32Array(nlist);
    for (let r = 0; r < sampleSize; r++) {
      const l = assigned[r]!;
      counts[l]!++;
      for (let i = 0, o = r * dim, c = l * dim; i < dim; i++) sums[c + i]! += sample[o + i]!;
    }
    // An empty list takes the sample row its centroid serves worst (once each).
    const worst = Array.from({ length: sampleSize }, (_, r) => r).sort((a, b) => bestScore[a]! - bestScore[b]!);
    let w = 0;
    for (let l = 0; l < nlist; l++) {
      let norm = 0;
      for (let i = 0; i < dim; i++) norm += sums[l * dim + i]! ** 2;
      if (counts[l] === 0 || norm === 0) {
        const r = worst[w++ % sampleSize]!;
        centroids.set(sample.subarray(r * dim, (r + 1) * dim), l * dim);
        continue;
      }
      const s = 1 / Math.sqrt(norm);
      for (let i = 0; i < dim; i++) centroids[l * dim + i] = sums[l * dim + i]! * s;
    }
  }
  transpose();
  // Every row's list first, then the index filled list by list in one go (each list's codes
  // written once, in place).
  const listOf = new Int32Array(n);
  const chunk = new Float32Array(Math.min(ASSIGN_CHUNK, n) * dim);
  for (let start = 0; start < n; start += ASSIGN_CHUNK) {
    const rows = Math.min(ASSIGN_CHUNK, n - start);
    m = src.matrix();
    for (let r = 0; r < rows; r++) chunk.set(m.subarray(slots[start + r]! * dim, (slots[start + r]! + 1) * dim), r * dim);
    nearestOf(await scan.product(chunk, rows, columns, nlist), rows, listOf.subarray(start, start + rows));
  }
  const counts = new Int32Array(nlist);
  for (let i = 0; i < n; i++) counts[listOf[i]!]!++;
  const index = new IvfIndex(dim, centroids, src.modelId, n, counts);
  m = src.matrix();
  const byList = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => listOf[a]! - listOf[b]! || a - b);
  for (const i of byList) index.put(slots[i]!, listOf[i]!, m);
  return index;
}
