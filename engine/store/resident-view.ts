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
import { INT8_BATCH } from './int8-lists.js';
import { IVF_MIN_ROWS, trainIvf, type IvfIndex } from './ivf.js';
import type { StoreHit, StoreSearch } from './types.js';
import { grown, SlotArena } from './slot-arena.js';
import { StringTable } from './string-table.js';
import { TermIndex } from './term-index.js';
import { MinHeap, TopK } from './top-k.js';
import { rowDot, type VectorScan } from './vector-scan.js';

/** A search of the current view: a StoreSearch without the history options. */
export type ResidentQuery = Pick<StoreSearch, 'text' | 'vector' | 'model' | 'filter' | 'validAt' | 'limit'> & { exact?: boolean | undefined };

export interface ResidentViewOptions {
  /** Rows of one model from which the vector channel searches through an IVF index. @default IVF_MIN_ROWS */
  approximateFrom?: number;
  /** Share of the model's rows an approximate search scores (see IVF_SCAN_SHARE). @default IVF_SCAN_SHARE */
  scanShare?: number;
}

/**
 * An approximate search reads lists until the rows it read (counted at the share of them its
 * filter lets through) reach this share of the rows of the model, and at least IVF_MIN_SCAN.
 * Measured on the server bench's corpus at 100k rows (templated texts, so many near ties) with
 * 2√n lists: recall@10 against the exact scan 0.975 at 4%, 0.98 at 5% (recall@20 0.97), 0.985 at 6%.
 */
export const IVF_SCAN_SHARE = 0.05;
export const IVF_MIN_SCAN = 1024;
/** Past this share of the rows read (a filter few rows pass), the whole matrix is scanned instead. */
const IVF_MAX_SCAN_SHARE = 0.3;
/** Candidates (× the search's limit, at least IVF_RERANK_MIN) scored exactly after the int8 pass. */
export const IVF_RERANK = 4;
const IVF_RERANK_MIN = 64;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

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

/** The row fields a filter compares for equality, held per slot as dictionary codes (`FILTER_FIELDS.length` per slot). */
const FILTER_FIELDS = ['user_id', 'agent_id', 'app_id', 'run_id', 'owner_id', 'space', 'repo', 'dir', 'category'] as const;
const F = FILTER_FIELDS.length;
const OWNER = FILTER_FIELDS.indexOf('owner_id');
/** The code of a null field. */
const NULL_CODE = -1;
/** The code of a value no row holds (matches nothing). */
const ABSENT_CODE = -2;
/** Filter keys `compileFilter` answers from the codes; any other one is checked on the parsed row. */
const CODED_KEYS: ReadonlySet<string> = new Set([...FILTER_FIELDS, 'personal_owner', 'memory_ids', 'any_of']);

/** A filter as code comparisons: per field, the codes it allows (null: any). */
interface CompiledFilter {
  fields: { at: number; codes: ReadonlySet<number> | number }[];
  personalOwner: number | null;
  /** Ids of `memories` (a memory the view does not hold cannot match). */
  memoryIds: ReadonlySet<number> | null;
  /** Alternatives, one of which must pass (the daemon's recall: project, personal, session). */
  anyOf: CompiledFilter[] | null;
}

export class ResidentView {
  /**
   * Every per-row string lives off the JavaScript heap, in typed arrays: the row without its vector
   * (in `matrix`) as UTF-8 JSON, parsed only for a hit or an unusual filter; its version and memory
   * ids and its terms as ids of string tables. A major collection marks objects, and at 100k rows
   * the strings and map entries these replace were ~1 million of them: 40–60 ms of marking that
   * stalled a busy server replica every few seconds (BENCHMARKS.md, "Server backends").
   */
  private readonly rows = new SlotArena((n) => new Uint8Array(n));
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
  /** Scratch for a row's UTF-8 JSON on its way into `rows`. */
  private textBytes = new Uint8Array(4096);
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
      this.setRow(slot, { ...r, vector: null });
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
      for (let f = 0; f < F; f++) this.fieldCodes[slot * F + f] = this.codeFor(r[FILTER_FIELDS[f]!]);
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
    this.setRow(slot, { ...this.rowAt(slot), embed_model: model });
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
      return compiled ? this.matchesCodes(slot, compiled) : matchesFilter(this.rowAt(slot), q.filter);
    };
    const hits = new Map<number, StoreHit>(); // by slot
    if (query) {
      const bySeq = (slot: number): number => this.seqs[slot]!;
      let top = ivf ? this.ivfTop(ivf, mid, query, q.limit, ok, bySeq) : null;
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
        hits.set(s, { row: this.rowAt(s), vectorScore: rowDot(this.matrix, s, query), textScore: null });
      }
    }
    if (q.text) {
      for (const [s, score] of this.text.top(queryTerms(q.text), this.size, this.slotCount, q.limit, ok)) {
        const hit = hits.get(s);
        if (hit) hit.textScore = score;
        else hits.set(s, { row: this.rowAt(s), vectorScore: null, textScore: score });
      }
    }
    return [...hits.values()];
  }

  /**
   * The `limit` best rows by exact dot product among the lists nearest the query. The lists are
   * read in order of their centroid's similarity, each row scored from its int8 codes; the best
   * IVF_RERANK × `limit` of those the filter lets through are then scored exactly. Reading stops
   * after the list that brings the rows read to IVF_SCAN_SHARE of the model's rows (at least
   * IVF_MIN_SCAN) once `limit` candidates passed the filter; null when that takes more than
   * IVF_MAX_SCAN_SHARE of them (a filter few rows pass: one scan of the matrix is cheaper).
   */
  private ivfTop(ivf: IvfIndex, mid: number, query: Float32Array, limit: number, ok: (slot: number) => boolean, tie: (slot: number) => number): TopK | null {
    const total = this.modelRows[mid] ?? 0;
    const enough = Math.max(IVF_MIN_SCAN, Math.ceil(total * this.scanShare));
    const most = Math.max(enough, Math.ceil(total * IVF_MAX_SCAN_SHARE));
    const pool = new MinHeap(Math.max(limit * IVF_RERANK, IVF_RERANK_MIN));
    let read = 0;
    // The share of rows the filter lets through, estimated from the candidates it was asked about:
    // rows read count as that share of a row, so a filter widens the search around the query.
    let asked = 0;
    let passed = 0;
    let floor = -Infinity; // the pool's last score once it is full: only better ones get in
    for (const l of ivf.order(query)) {
      const size = ivf.size(l);
      const slots = ivf.list(l);
      for (let from = 0; from < size; from += INT8_BATCH) {
        // Only the rows that beat the pool's floor come back from the kernel.
        const count = ivf.scoreAbove(l, from, Math.min(INT8_BATCH, size - from), floor, this.matrix, query);
        const at = ivf.hitRow;
        const approx = ivf.hitScore;
        for (let h = 0; h < count; h++) {
          const a = approx[2 * h + 1]!;
          if (a <= floor) continue; // the floor rose since the kernel ran
          const s = slots[from + at[2 * h]!]!;
          asked++;
          if (!ok(s)) continue;
          passed++;
          floor = pool.offer(s, a);
        }
      }
      read += size;
      const share = (passed + 1) / (asked + 1);
      if (read >= enough && pool.size >= limit && read * share >= enough) break;
      // Reading on would take more than `most` rows: one scan of the whole matrix is cheaper.
      if ((asked >= IVF_RERANK_MIN && enough / share > most) || read >= most) return null;
    }
    const top = new TopK(limit, tie);
    for (let i = 0; i < pool.size; i++) {
      const s = pool.slots[i]!;
      const d = rowDot(this.matrix, s, query);
      if (top.admits(d, s)) top.push(s, d);
    }
    return top;
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

  /** Hold `row` (its vector null) as the slot's JSON. */
  private setRow(slot: number, row: VersionRow): void {
    const text = JSON.stringify(row);
    if (this.textBytes.length < text.length * 3) this.textBytes = new Uint8Array(text.length * 3 + 256);
    this.rows.set(slot, this.textBytes, encoder.encodeInto(text, this.textBytes).written);
  }

  /** The row held in `slot`, a fresh object (vector null): what a hit hands out. */
  private rowAt(slot: number): VersionRow {
    return JSON.parse(decoder.decode(this.rows.get(slot))) as VersionRow;
  }

  /** The code of a filter field's value, assigned on first sight. */
  private codeFor(value: string | null): number {
    if (value === null) return NULL_CODE;
    let code = this.dict.get(value);
    if (code === undefined) this.dict.set(value, (code = this.dict.size));
    return code;
  }

  /**
   * `f` as code comparisons, or null when it says something the codes do not hold (metadata, time
   * ranges): those searches check each candidate on its parsed row.
   */
  private compileFilter(f: MemoryFilter): CompiledFilter | null {
    const fields: CompiledFilter['fields'] = [];
    let anyOf: CompiledFilter[] | null = null;
    for (const k in f) {
      const want = (f as Record<string, unknown>)[k];
      if (want === undefined) continue;
      if (!CODED_KEYS.has(k)) return null;
      if (k === 'any_of') {
        anyOf = [];
        for (const sub of want as MemoryFilter[]) {
          const c = this.compileFilter(sub);
          if (!c) return null;
          anyOf.push(c);
        }
        continue;
      }
      const at = (FILTER_FIELDS as readonly string[]).indexOf(k);
      if (at < 0) continue;
      const code = (v: string | null): number => (v === null ? NULL_CODE : (this.dict.get(v) ?? ABSENT_CODE));
      if (Array.isArray(want)) fields.push({ at, codes: new Set((want as string[]).map(code).filter((c) => c !== ABSENT_CODE && c !== NULL_CODE)) });
      else fields.push({ at, codes: code(want as string | null) });
    }
    const owner = f.personal_owner;
    return { fields, personalOwner: owner === undefined ? null : (this.dict.get(owner) ?? ABSENT_CODE), memoryIds: f.memory_ids ? new Set(f.memory_ids.map((id) => this.memories.id(id)).filter((m) => m >= 0)) : null, anyOf };
  }

  /** Whether the row in `slot` passes a compiled filter (the semantics of `matchesFilter`). */
  private matchesCodes(slot: number, c: CompiledFilter): boolean {
    const base = slot * F;
    for (const { at, codes } of c.fields) {
      const have = this.fieldCodes[base + at]!;
      if (typeof codes === 'number' ? have !== codes : !codes.has(have)) return false;
    }
    if (c.memoryIds && !c.memoryIds.has(this.memoryOf[slot]!)) return false;
    if (c.personalOwner !== null && this.slotMeta[3 * slot + 2] === 1 && this.fieldCodes[base + OWNER] !== c.personalOwner) return false;
    if (c.anyOf && !c.anyOf.some((sub) => this.matchesCodes(slot, sub))) return false;
    return true;
  }
}

/**
 * Rows a store holds in memory by default. At 384 dimensions a row is ~1.5 KB of matrix and ~1 KB of JSON
 * and ids in typed arrays (a 100k view: 13 MB of heap); the daemon at 10k memories idles at ~245 MB,
 * under its 300 MB target.
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
