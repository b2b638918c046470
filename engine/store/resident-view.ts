/**
 * A store's current view held in memory for searching: every current row, its vector (unit
 * length) in one matrix that VectorScan multiplies with the query, and a BM25 inverted index over
 * its terms with exact statistics. Both channels are exact, and a search is a matrix product and
 * a few posting lists instead of two LanceDB queries: ~1 ms of CPU at 10k memories against ~6.
 *
 * LanceStore keeps it in step with every change to its current table (only after LanceDB took the
 * change) and answers current-view searches from it while the view fits its row budget.
 *
 * Past `approximateFrom` rows of one model (IVF_MIN_ROWS, 32k, by default) the vector channel goes
 * approximate, as LanceStore's own index does past 5,000 rows: an IVF index (ivf.ts), trained in
 * the background, picks the rows to score (exactly) instead of the whole matrix. Smaller views
 * stay exact, and `exact` searches scan every row.
 */
import { queryTerms } from '../text/tokenize.js';
import type { MemoryFilter, VersionRow } from '../types.js';
import { matchesFilter } from './filter.js';
import { IVF_MIN_ROWS, trainIvf, type IvfIndex } from './ivf.js';
import { IVF_SCAN_SHARE, ivfTop } from './ivf-search.js';
import { codeFor, compileFilter, F, FILTER_FIELDS, matchesCodes, type CompiledFilter } from './resident-filter.js';
import { JsonRows } from './resident-rows.js';
import type { StoreHit, StoreSearch } from './types.js';
import { grown } from './slot-arena.js';
import { StringTable } from './string-table.js';
import { TermIndex } from './term-index.js';
import { TopK } from './top-k.js';
import { rowDot, type VectorScan } from './vector-scan.js';

/** A search of the current view: a StoreSearch without the history options. */
export type ResidentQuery = Pick<StoreSearch, 'text' | 'vector' | 'model' | 'filter' | 'validAt' | 'limit'> & { exact?: boolean | undefined };

export interface ResidentViewOptions {
  /** Rows of one model from which the vector channel searches through an IVF index. @default IVF_MIN_ROWS */
  approximateFrom?: number;
  /** Share of the model's rows an approximate search scores (see IVF_SCAN_SHARE). @default IVF_SCAN_SHARE */
  scanShare?: number;
}

/** ResidentView.slotMeta for `slots` free slots. */
function freeMeta(slots: number): Float64Array {
  const meta = new Float64Array(3 * slots);
  for (let s = 0; s < slots; s++) {
    meta[3 * s] = Infinity;
    meta[3 * s + 1] = -Infinity;
  }
  return meta;
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
  /**
   * Every per-row string lives off the JavaScript heap, in typed arrays: the row without its vector
   * (in `matrix`) as UTF-8 JSON, parsed only for a hit or an unusual filter; its version and memory
   * ids and its terms as ids of string tables. A major collection marks objects, and at 100k rows
   * the strings and map entries these replace were ~1 million of them: 40–60 ms of marking that
   * stalled a busy server replica every few seconds (BENCHMARKS.md, "Server backends").
   */
  private readonly rows = new JsonRows();
  /** Slots in use or free (the matrix rows a scan covers). */
  private slotCount = 0;
  private readonly versions = new StringTable();
  /** Per slot: the id in `versions` of its row's version_id (-1: a free slot). */
  private versionOf = new Int32Array(64).fill(-1);
  /** Per id of `versions`: the slot holding that version (-1: none). */
  private slotOfVersion = new Int32Array(64).fill(-1);
  private readonly memories = new StringTable();
  /** Per slot: the id in `memories` of its row's memory_id. */
  private memoryOf = new Int32Array(64).fill(-1);
  /** Per id of `memories`: the first slot of a row of that memory; the others follow through `nextOfMemory`. */
  private firstOfMemory = new Int32Array(64).fill(-1);
  /** Per slot: the next slot holding a row of the same memory (-1: the last). */
  private nextOfMemory = new Int32Array(64).fill(-1);
  /** Per slot: the row's seq (vector ties go to the later write). */
  private seqs = new Float64Array(64);
  /** Per slot, FILTER_FIELDS' values as codes of `dict` (NULL_CODE for null). */
  private fieldCodes = new Int32Array(64 * F);
  /** Codes of the filter fields' values. Only grows: its size is the distinct values ever held. */
  private readonly dict = new Map<string, number>();
  /** Code of the model of the vector in each slot's matrix row (-1: no usable vector). */
  private modelIds = new Int32Array(64).fill(-1);
  private readonly modelCodes = new Map<string, number>();
  /** Rows with a usable vector, per model code. */
  private readonly modelRows: number[] = [];
  /** BM25 over the rows' content. */
  private readonly text = new TermIndex();
  /**
   * Per slot, side by side: valid_from, valid_to (null: Infinity) and 1 when the row is personal.
   * A free slot is valid at no time (Infinity, -Infinity).
   */
  private slotMeta = freeMeta(64);
  private matrix: Float32Array;
  private readonly free: number[] = [];
  private readonly approximateFrom: number;
  private readonly scanShare: number;
  /** The IVF index of the vector channel (null: every row is scanned). */
  private ivf: IvfIndex | null = null;
  /** An index being trained; the slots changed meanwhile, put right when it is swapped in. */
  private training: Promise<void> | null = null;
  private changedWhileTraining: Set<number> | null = null;

  /** `expectedRows`: rows about to be added (the matrix is sized for them, with room to grow). */
  constructor(
    private readonly dim: number,
    private readonly scan: VectorScan,
    expectedRows = 0,
    opts: ResidentViewOptions = {},
  ) {
    this.matrix = new Float32Array(Math.max(64, Math.ceil(expectedRows * 1.125)) * dim);
    this.approximateFrom = opts.approximateFrom ?? IVF_MIN_ROWS;
    this.scanShare = opts.scanShare ?? IVF_SCAN_SHARE;
  }

  /** Rows held. */
  get size(): number {
    return this.versions.size;
  }

  /**
   * Hold these current rows (a row already held under its version_id is replaced). `train`
   * false: a load that adds more right after (it calls trainIfDue at its end), so the index is not
   * trained for part of the rows and then again.
   */
  add(rows: readonly VersionRow[], train = true): void {
    for (const r of rows) {
      const held = this.versions.id(r.version_id);
      if (held >= 0 && this.slotOfVersion[held]! >= 0) this.removeSlot(this.slotOfVersion[held]!);
      const slot = this.free.pop() ?? this.newSlot();
      this.rows.set(slot, { ...r, vector: null });
      const vid = this.versions.add(r.version_id);
      this.slotOfVersion = grown(this.slotOfVersion, vid + 1, -1);
      this.slotOfVersion[vid] = slot;
      this.versionOf[slot] = vid;
      const mid = this.memories.add(r.memory_id);
      this.firstOfMemory = grown(this.firstOfMemory, mid + 1, -1);
      this.memoryOf[slot] = mid;
      this.nextOfMemory[slot] = this.firstOfMemory[mid]!;
      this.firstOfMemory[mid] = slot;
      this.seqs[slot] = r.seq;
      for (let f = 0; f < F; f++) this.fieldCodes[slot * F + f] = codeFor(this.dict, r[FILTER_FIELDS[f]!]);
      this.slotMeta[3 * slot] = r.valid_from;
      this.slotMeta[3 * slot + 1] = r.valid_to ?? Infinity;
      this.slotMeta[3 * slot + 2] = r.space === 'personal' ? 1 : 0;
      this.setVectorAt(slot, r.vector, r.embed_model);
      this.text.add(slot, r.content);
    }
    if (train) this.maybeTrain();
  }

  /** Train the vector index now if the view's size calls for one (after adds with `train` false). */
  trainIfDue(): void {
    this.maybeTrain();
  }

  /** Whether the vector channel searches through an IVF index now (for tests and diagnostics). */
  get approximate(): boolean {
    return this.ivf !== null;
  }

  /** Resolves once no index is being trained (tests). */
  async indexed(): Promise<void> {
    while (this.training) await this.training;
  }

  /**
   * Train an index for the model most rows have, once they reach `approximateFrom`; again once the
   * rows of its model doubled or halved since (a stale index still finds rows, less well).
   */
  private maybeTrain(): void {
    if (this.training) return;
    let mid = -1;
    for (let m = 0; m < this.modelRows.length; m++) if (mid < 0 || this.modelRows[m]! > this.modelRows[mid]!) mid = m;
    const rows = mid < 0 ? 0 : this.modelRows[mid]!;
    if (rows < this.approximateFrom) {
      this.ivf = null;
      return;
    }
    const ivf = this.ivf;
    if (ivf && ivf.modelId === mid && rows < ivf.trainedRows * 2 && rows * 2 > ivf.trainedRows) return;
    const slots = new Int32Array(rows);
    let n = 0;
    for (let s = 0; s < this.slotCount && n < rows; s++) if (this.modelIds[s] === mid) slots[n++] = s;
    this.changedWhileTraining = new Set();
    const run = trainIvf({ dim: this.dim, scan: this.scan, modelId: mid, slots: slots.subarray(0, n), matrix: () => this.matrix })
      .then((index) => {
        for (const s of this.changedWhileTraining!) {
          index.remove(s);
          if (this.modelIds[s] === mid) index.assign(s, this.matrix);
        }
        this.ivf = index;
      })
      .catch(() => {
        // Searches go on scanning every row; the next change tries again.
      })
      .finally(() => {
        this.changedWhileTraining = null;
        if (this.training === run) this.training = null;
      });
    this.training = run;
  }

  /** Drop every row of these memories. */
  removeMemories(memoryIds: Iterable<string>): void {
    for (const id of memoryIds) {
      const mid = this.memories.id(id);
      if (mid < 0) continue;
      const slots: number[] = [];
      for (let s = this.firstOfMemory[mid]!; s >= 0; s = this.nextOfMemory[s]!) slots.push(s);
      for (const s of slots) this.removeSlot(s);
    }
    this.maybeTrain();
  }

  /** A held row got a (new) vector. */
  setVector(versionId: string, vector: Float32Array, model: string): void {
    const vid = this.versions.id(versionId);
    const slot = vid >= 0 ? this.slotOfVersion[vid]! : -1;
    if (slot < 0) return;
    this.setVectorAt(slot, vector, model);
    this.rows.set(slot, { ...this.rows.get(slot), embed_model: model });
    this.maybeTrain();
  }

  /** Both channels over the rows valid at `validAt` that match the filter: the `limit` best of each. */
  async search(q: ResidentQuery): Promise<StoreHit[]> {
    const mid = q.model ? (this.modelCodes.get(q.model) ?? -1) : -1;
    const query = q.vector && mid >= 0 && q.vector.length === this.dim ? unit(q.vector) : null;
    const ivf = query && !q.exact && this.ivf?.modelId === mid ? this.ivf : null;
    // The valid time from one typed array (a free slot is valid at no time), then the filter on
    // the slot's codes: candidates are asked about by the hundred, and a row is parsed only for a
    // filter the codes do not hold.
    const t = q.validAt;
    let compiled = this.compileFilter(q.filter);
    const ok = (slot: number): boolean => {
      const meta = this.slotMeta;
      if (!(meta[3 * slot]! <= t && t < meta[3 * slot + 1]!)) return false;
      return compiled ? matchesCodes(slot, compiled, this.fieldCodes, this.memoryOf, meta) : matchesFilter(this.rows.get(slot), q.filter);
    };
    const hits = new Map<number, StoreHit>(); // by slot
    if (query) {
      const bySeq = (slot: number): number => this.seqs[slot]!;
      let top = ivf ? ivfTop(ivf, this.matrix, query, { limit: q.limit, rows: this.modelRows[mid] ?? 0, scanShare: this.scanShare }, ok, bySeq) : null;
      if (!top) {
        // Every row scored (no index, or one a filter makes useless): the scan is the search's one
        // await, and everything after it reads one state of the view.
        const all = await this.scan.scores(this.matrix, this.slotCount, query);
        // Compiled again: memory ids of the string table freed meanwhile may name other memories now.
        compiled = this.compileFilter(q.filter);
        top = new TopK(q.limit, bySeq);
        const n = Math.min(all.length, this.slotCount);
        for (let s = 0; s < n; s++) {
          if (this.modelIds[s] !== mid || !top.admits(all[s]!, s) || !ok(s)) continue;
          top.push(s, all[s]!);
        }
      }
      for (const s of top.slots) {
        // Scored again here: a slot written while the scan ran may hold another vector now.
        hits.set(s, { row: this.rows.get(s), vectorScore: rowDot(this.matrix, s, query), textScore: null });
      }
    }
    if (q.text) {
      for (const [s, score] of this.text.top(queryTerms(q.text), this.size, this.slotCount, q.limit, ok)) {
        const hit = hits.get(s);
        if (hit) hit.textScore = score;
        else hits.set(s, { row: this.rows.get(s), vectorScore: null, textScore: score });
      }
    }
    return [...hits.values()];
  }

  private newSlot(): number {
    const slot = this.slotCount++;
    this.versionOf = grown(this.versionOf, slot + 1, -1);
    this.memoryOf = grown(this.memoryOf, slot + 1, -1);
    this.nextOfMemory = grown(this.nextOfMemory, slot + 1, -1);
    this.modelIds = grown(this.modelIds, slot + 1, -1);
    if (slot >= this.seqs.length) {
      const n = this.seqs.length * 2;
      const meta = freeMeta(n);
      meta.set(this.slotMeta);
      this.slotMeta = meta;
      const seqs = new Float64Array(n);
      seqs.set(this.seqs);
      this.seqs = seqs;
      const codes = new Int32Array(n * F);
      codes.set(this.fieldCodes);
      this.fieldCodes = codes;
    }
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
    const before = this.modelIds[slot]!;
    if (before >= 0) this.modelRows[before]!--;
    let mid = -1;
    if (u) {
      mid = this.modelCodes.get(model!) ?? -1;
      if (mid < 0) {
        mid = this.modelRows.length;
        this.modelCodes.set(model!, mid);
        this.modelRows.push(0);
      }
      this.modelRows[mid]!++;
    }
    this.modelIds[slot] = mid;
    this.changedWhileTraining?.add(slot);
    const ivf = this.ivf;
    if (ivf) {
      if (mid === ivf.modelId) ivf.assign(slot, this.matrix);
      else ivf.remove(slot);
    }
  }

  private removeSlot(slot: number): void {
    const vid = this.versionOf[slot]!;
    if (vid < 0) return;
    this.text.remove(slot);
    this.rows.clear(slot);
    this.slotMeta[3 * slot] = Infinity;
    this.slotMeta[3 * slot + 1] = -Infinity;
    this.setVectorAt(slot, null, null);
    this.versions.remove(vid);
    this.slotOfVersion[vid] = -1;
    this.versionOf[slot] = -1;
    const mid = this.memoryOf[slot]!;
    if (this.firstOfMemory[mid] === slot) this.firstOfMemory[mid] = this.nextOfMemory[slot]!;
    else {
      let s = this.firstOfMemory[mid]!;
      while (this.nextOfMemory[s] !== slot) s = this.nextOfMemory[s]!;
      this.nextOfMemory[s] = this.nextOfMemory[slot]!;
    }
    if (this.firstOfMemory[mid] === -1) this.memories.remove(mid);
    this.memoryOf[slot] = -1;
    this.nextOfMemory[slot] = -1;
    this.free.push(slot);
  }

  /** The search's filter as code comparisons (null: checked on each candidate's parsed row). */
  private compileFilter(f: MemoryFilter): CompiledFilter | null {
    return compileFilter(f, this.dict, (id) => this.memories.id(id));
  }
}
