/**
 * The full-text side of a ResidentView: a BM25 inverted index over its slots, with the statistics of
 * exactly the rows it holds (document count, total length, each term's document frequency). Laid out
 * for the garbage collector as the view is: terms are ids of a StringTable, each slot's distinct term
 * ids sit in a SlotArena, and a term held by one row is a small integer instead of a posting list.
 */
import { BM25_TF_SCALE, bm25Idf, bm25LengthNorms } from '../text/term-stats.js';
import { terms } from '../text/tokenize.js';
import { grown, SlotArena } from './slot-arena.js';
import { StringTable } from './string-table.js';
import { TopK } from './top-k.js';

/** The slots holding a term and its count in each, the first `size` entries. */
interface Posting {
  slots: Int32Array;
  tfs: Int32Array;
  size: number;
}

/**
 * A term held by one row only (most terms of a real corpus: ids, ports, names) is kept as one small
 * integer, `slot * SOLE_TF + tf`, instead of a Posting (an object, two typed arrays and their
 * buffers): at 100k rows with ~100k such terms, half a million objects fewer for a collection to mark.
 */
const SOLE_TF = 128;
const SOLE_MAX_SLOT = Math.floor(2 ** 30 / SOLE_TF) - 1;

/** A posting of one (slot, tf) pair, as a number when it fits a small integer. */
function solePosting(slot: number, tf: number): Posting | number {
  return tf < SOLE_TF && slot <= SOLE_MAX_SLOT ? slot * SOLE_TF + tf : { slots: Int32Array.of(slot, 0, 0, 0), tfs: Int32Array.of(tf, 0, 0, 0), size: 1 };
}

export class TermIndex {
  private readonly terms = new StringTable();
  /** Per id of `terms`: its posting (undefined: a free id). */
  private readonly postings: (Posting | number | undefined)[] = [];
  /** Per slot: the ids in `terms` of its row's distinct terms. */
  private readonly termsOf = new SlotArena((n) => new Int32Array(n));
  /** Term count of each slot's row. */
  private lengths = new Int32Array(64);
  /** Longest row held so far, in terms (the size of the length table a search makes). */
  private maxLength = 0;
  private totalLength = 0;
  /** Per-slot score accumulator, zero between searches. */
  private scratch = new Float64Array(0);
  /** Slots a search touched (scratch). */
  private touched = new Int32Array(0);

  /** Index `content` as the text of `slot`, which holds none. */
  add(slot: number, content: string): void {
    const ts = terms(content);
    const tf = new Map<string, number>();
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
    const ids: number[] = [];
    for (const [t, n] of tf) {
      const tid = this.terms.add(t);
      ids.push(tid);
      let p = this.postings[tid];
      if (p === undefined) {
        this.postings[tid] = solePosting(slot, n);
        continue;
      }
      if (typeof p === 'number') this.postings[tid] = p = { slots: Int32Array.of(Math.floor(p / SOLE_TF), 0, 0, 0), tfs: Int32Array.of(p % SOLE_TF, 0, 0, 0), size: 1 };
      if (p.size === p.slots.length) {
        const slots = new Int32Array(p.size * 2);
        slots.set(p.slots);
        const tfs = new Int32Array(p.size * 2);
        tfs.set(p.tfs);
        p.slots = slots;
        p.tfs = tfs;
      }
      p.slots[p.size] = slot;
      p.tfs[p.size++] = n;
    }
    this.termsOf.set(slot, ids);
    this.lengths = grown(this.lengths, slot + 1, 0);
    this.lengths[slot] = ts.length;
    if (ts.length > this.maxLength) this.maxLength = ts.length;
    this.totalLength += ts.length;
  }

  /** Forget the text of `slot`. */
  remove(slot: number): void {
    for (const t of this.termsOf.get(slot)) {
      const p = this.postings[t]!;
      if (typeof p === 'number') {
        this.dropTerm(t);
        continue;
      }
      const i = p.slots.subarray(0, p.size).indexOf(slot);
      const last = p.size - 1;
      p.slots[i] = p.slots[last]!;
      p.tfs[i] = p.tfs[last]!;
      p.size = last;
      if (last === 0) this.dropTerm(t);
      else if (last === 1) this.postings[t] = solePosting(p.slots[0]!, p.tfs[0]!);
    }
    this.termsOf.clear(slot);
    if (slot < this.lengths.length) {
      this.totalLength -= this.lengths[slot]!;
      this.lengths[slot] = 0;
    }
  }

  /**
   * BM25 over the indexed slots (`docs` of them, numbered below `slots`; the statistics of exactly
   * these rows): the `limit` best accepted by `ok`. Every posting of the query's terms is scored
   * (typed arrays, each length's normalisation computed once per search: the same doubles as
   * bm25Term); equal scores keep the order rows were met in, term by term in query order.
   */
  top(qTerms: readonly string[], docs: number, slots: number, limit: number, ok: (slot: number) => boolean): [number, number][] {
    if (docs === 0 || qTerms.length === 0) return [];
    const avg = this.totalLength / docs || 1;
    if (this.scratch.length < slots) this.scratch = new Float64Array(Math.max(slots, this.scratch.length * 2));
    if (this.touched.length < slots) this.touched = new Int32Array(Math.max(slots, this.touched.length * 2));
    const acc = this.scratch;
    const touched = this.touched;
    const lengths = this.lengths;
    const norms = bm25LengthNorms(avg, this.maxLength);
    let n = 0;
    for (const t of qTerms) {
      const tid = this.terms.id(t);
      const held = tid >= 0 ? this.postings[tid] : undefined;
      if (held === undefined) continue;
      const p = typeof held === 'number' ? { slots: [Math.floor(held / SOLE_TF)], tfs: [held % SOLE_TF], size: 1 } : held;
      const idf = bm25Idf(docs, p.size);
      const rows = p.slots;
      const tfs = p.tfs;
      for (let i = 0; i < p.size; i++) {
        const s = rows[i]!;
        const tf = tfs[i]!;
        const before = acc[s]!;
        if (before === 0) touched[n++] = s;
        acc[s] = before + (idf * tf * BM25_TF_SCALE) / (tf + norms[lengths[s]!]!);
      }
    }
    const top = new TopK(limit);
    let floor = -Infinity; // the last kept score once `limit` are kept: only better ones get in
    for (let i = 0; i < n; i++) {
      const s = touched[i]!;
      const score = acc[s]!;
      acc[s] = 0;
      if (score <= 0 || score <= floor || !ok(s)) continue;
      top.push(s, score);
      if (top.full) floor = top.scores[top.scores.length - 1]!;
    }
    return top.slots.map((s, i) => [s, top.scores[i]!]);
  }

  private dropTerm(t: number): void {
    this.postings[t] = undefined;
    this.terms.remove(t);
  }
}
