/**
 * A store's current view held in memory for searching: every current row, its vector (unit
 * length) in one matrix that VectorScan multiplies with the query, and a BM25 inverted index over
 * its terms with exact statistics. Both channels are exact, and a search is a matrix product and
 * a few posting lists instead of two LanceDB queries: ~1 ms of CPU at 10k memories against ~6.
 *
 * LanceStore keeps it in step with every change to its current table (only after LanceDB took the
 * change) and answers current-view searches from it while the view fits its row budget.
 */
import { validAt } from '../bitemporal.js';
import { bm25Idf, bm25Term } from '../text/term-stats.js';
import { queryTerms, terms } from '../text/tokenize.js';
import type { VersionRow } from '../types.js';
import { matchesFilter } from './filter.js';
import { cloneRow } from './memory-store.js';
import type { StoreHit, StoreSearch } from './types.js';
import { rowDot, type VectorScan } from './vector-scan.js';

/** A search of the current view: a StoreSearch without the history and index options. */
export type ResidentQuery = Pick<StoreSearch, 'text' | 'vector' | 'model' | 'filter' | 'validAt' | 'limit'>;

interface Posting {
  slots: number[];
  tfs: number[];
}

/** The `k` best (slot, score) pairs seen, best first. */
class TopK {
  readonly slots: number[] = [];
  readonly scores: number[] = [];
  constructor(private readonly k: number) {}

  admits(score: number): boolean {
    return this.k > 0 && (this.scores.length < this.k || score > this.scores[this.scores.length - 1]!);
  }

  push(slot: number, score: number): void {
    let i = this.scores.length;
    while (i > 0 && this.scores[i - 1]! < score) i--;
    this.slots.splice(i, 0, slot);
    this.scores.splice(i, 0, score);
    if (this.scores.length > this.k) {
      this.slots.pop();
      this.scores.pop();
    }
  }
}

/** `v` scaled to unit length (null for a zero vector: it has no direction to compare). */
function unit(v: Float32Array): Float32Array | null {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  if (n === 0 || !Number.isFinite(n)) return null;
  const s = 1 / Math.sqrt(n);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * s;
  return out;
}

export class ResidentView {
  /** Row per slot (null: a free slot). Rows are kept without their vector, which is in `matrix`. */
  private readonly rows: (VersionRow | null)[] = [];
  /** Model of the vector in each slot's matrix row (null: no usable vector). */
  private readonly models: (string | null)[] = [];
  /** Distinct terms and term count of each slot's row. */
  private readonly docTerms: string[][] = [];
  private readonly lengths: number[] = [];
  private matrix: Float32Array;
  private readonly free: number[] = [];
  private readonly slotOf = new Map<string, number>();
  private readonly slotsOfMemory = new Map<string, number[]>();
  private readonly postings = new Map<string, Posting>();
  private totalLength = 0;
  /** Per-slot text score accumulator, zero between searches. */
  private scratch = new Float64Array(0);

  /** `expectedRows`: rows about to be added (the matrix is sized for them, with room to grow). */
  constructor(
    private readonly dim: number,
    private readonly scan: VectorScan,
    expectedRows = 0,
  ) {
    this.matrix = new Float32Array(Math.max(64, Math.ceil(expectedRows * 1.125)) * dim);
  }

  /** Rows held. */
  get size(): number {
    return this.slotOf.size;
  }

  /** Hold these current rows (a row already held under its version_id is replaced). */
  add(rows: readonly VersionRow[]): void {
    for (const r of rows) {
      const old = this.slotOf.get(r.version_id);
      if (old !== undefined) this.removeSlot(old);
      const slot = this.free.pop() ?? this.newSlot();
      this.rows[slot] = { ...r, vector: null };
      this.setVectorAt(slot, r.vector, r.embed_model);
      this.slotOf.set(r.version_id, slot);
      const mine = this.slotsOfMemory.get(r.memory_id);
      if (mine) mine.push(slot);
      else this.slotsOfMemory.set(r.memory_id, [slot]);
      const ts = terms(r.content);
      const tf = new Map<string, number>();
      for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, n] of tf) {
        const p = this.postings.get(t);
        if (p) {
          p.slots.push(slot);
          p.tfs.push(n);
        } else this.postings.set(t, { slots: [slot], tfs: [n] });
      }
      this.docTerms[slot] = [...tf.keys()];
      this.lengths[slot] = ts.length;
      this.totalLength += ts.length;
    }
  }

  /** Drop every row of these memories. */
  removeMemories(memoryIds: Iterable<string>): void {
    for (const id of memoryIds) {
      const slots = this.slotsOfMemory.get(id);
      if (!slots) continue;
      for (const s of [...slots]) this.removeSlot(s);
    }
  }

  /** A held row got a (new) vector. */
  setVector(versionId: string, vector: Float32Array, model: string): void {
    const slot = this.slotOf.get(versionId);
    if (slot === undefined) return;
    this.setVectorAt(slot, vector, model);
    this.rows[slot] = { ...this.rows[slot]!, embed_model: model };
  }

  /** Both channels over the rows valid at `validAt` that match the filter: the `limit` best of each. */
  async search(q: ResidentQuery): Promise<StoreHit[]> {
    const query = q.vector && q.model && q.vector.length === this.dim ? unit(q.vector) : null;
    // The one await comes first: everything after it reads one state of the view.
    const scores = query ? await this.scan.scores(this.matrix, this.rows.length, query) : null;
    const passes = new Map<number, boolean>();
    const ok = (slot: number): boolean => {
      let v = passes.get(slot);
      if (v === undefined) {
        const row = this.rows[slot];
        v = row !== null && row !== undefined && validAt(row, q.validAt) && matchesFilter(row, q.filter);
        passes.set(slot, v);
      }
      return v;
    };
    const hits = new Map<string, StoreHit>();
    if (query && scores) {
      const top = new TopK(q.limit);
      const n = Math.min(scores.length, this.rows.length);
      for (let s = 0; s < n; s++) {
        if (this.models[s] !== q.model || !top.admits(scores[s]!) || !ok(s)) continue;
        top.push(s, scores[s]!);
      }
      for (const s of top.slots) {
        // Scored again here: a slot written while the scan ran may hold another vector now.
        const row = this.rows[s]!;
        hits.set(row.version_id, { row: cloneRow(row), vectorScore: rowDot(this.matrix, s, query), textScore: null });
      }
    }
    if (q.text) {
      for (const [s, score] of this.textTop(queryTerms(q.text), q.limit, ok)) {
        const row = this.rows[s]!;
        const hit = hits.get(row.version_id);
        if (hit) hit.textScore = score;
        else hits.set(row.version_id, { row: cloneRow(row), vectorScore: null, textScore: score });
      }
    }
    return [...hits.values()];
  }

  /** BM25 over the held rows (the statistics of exactly these rows): the `limit` best accepted by `ok`. */
  private textTop(qTerms: readonly string[], limit: number, ok: (slot: number) => boolean): [number, number][] {
    const docs = this.size;
    if (docs === 0 || qTerms.length === 0) return [];
    const avg = this.totalLength / docs || 1;
    if (this.scratch.length < this.rows.length) this.scratch = new Float64Array(Math.max(this.rows.length, this.scratch.length * 2));
    const acc = this.scratch;
    const touched: number[] = [];
    for (const t of qTerms) {
      const p = this.postings.get(t);
      if (!p) continue;
      const idf = bm25Idf(docs, p.slots.length);
      for (let i = 0; i < p.slots.length; i++) {
        const s = p.slots[i]!;
        const before = acc[s]!;
        if (before === 0) touched.push(s);
        acc[s] = before + bm25Term(idf, p.tfs[i]!, this.lengths[s]!, avg);
      }
    }
    const top = new TopK(limit);
    for (const s of touched) {
      const score = acc[s]!;
      acc[s] = 0;
      if (score > 0 && top.admits(score) && ok(s)) top.push(s, score);
    }
    return top.slots.map((s, i) => [s, top.scores[i]!]);
  }

  private newSlot(): number {
    const slot = this.rows.length;
    this.rows.push(null);
    this.models.push(null);
    this.docTerms.push([]);
    this.lengths.push(0);
    if ((slot + 1) * this.dim > this.matrix.length) {
      // A scan in flight keeps the old matrix (its tensor holds it).
      const bigger = new Float32Array(Math.ceil((this.matrix.length * 1.5) / this.dim) * this.dim);
      bigger.set(this.matrix);
      this.matrix = bigger;
    }
    return slot;
  }

  private setVectorAt(slot: number, vector: Float32Array | null, model: string | null): void {
    const u = vector && model && vector.length === this.dim ? unit(vector) : null;
    if (u) this.matrix.set(u, slot * this.dim);
    else this.matrix.fill(0, slot * this.dim, (slot + 1) * this.dim);
    this.models[slot] = u ? model : null;
  }

  private removeSlot(slot: number): void {
    const row = this.rows[slot];
    if (!row) return;
    for (const t of this.docTerms[slot]!) {
      const p = this.postings.get(t)!;
      const i = p.slots.indexOf(slot);
      const last = p.slots.length - 1;
      p.slots[i] = p.slots[last]!;
      p.tfs[i] = p.tfs[last]!;
      p.slots.pop();
      p.tfs.pop();
      if (p.slots.length === 0) this.postings.delete(t);
    }
    this.totalLength -= this.lengths[slot]!;
    this.docTerms[slot] = [];
    this.lengths[slot] = 0;
    this.rows[slot] = null;
    this.setVectorAt(slot, null, null);
    this.slotOf.delete(row.version_id);
    const mine = this.slotsOfMemory.get(row.memory_id)!;
    mine.splice(mine.indexOf(slot), 1);
    if (mine.length === 0) this.slotsOfMemory.delete(row.memory_id);
    this.free.push(slot);
  }
}

/**
 * Rows a store holds in memory by default. At 384 dimensions a row is ~3.2 KB of heap and matrix;
 * the daemon at 10k memories idles at ~250 MB, under its 300 MB target at 20k.
 */
export const DEFAULT_RESIDENT_ROWS = 20_000;

/**
 * Rows the resident views of one process may hold in total: the daemon has one store, the server
 * shares one budget among its projects (first come, first served; a project that does not fit is
 * searched through its LanceDB indexes).
 */
export class ResidentBudget {
  private used = 0;

  constructor(readonly maxRows: number) {}

  get usedRows(): number {
    return this.used;
  }

  /** Take `rows` from the budget; false (and nothing taken) when they do not fit. */
  reserve(rows: number): boolean {
    if (this.used + rows > this.maxRows) return false;
    this.used += rows;
    return true;
  }

  release(rows: number): void {
    this.used = Math.max(0, this.used - rows);
  }
}
