/**
 * An approximate search of a ResidentView's vector channel through its IVF index (ivf.ts): how
 * many lists it reads, and the exact re-ranking of the candidates their int8 codes brought up.
 */
import { INT8_BATCH } from './int8-lists.js';
import type { IvfIndex } from './ivf.js';
import { MinHeap, TopK } from './top-k.js';
import { rowDot } from './vector-scan.js';

/**
 * An approximate search reads lists until the rows it read (counted at the share of them its
 * filter lets through) reach this share of the rows of the model, and at least IVF_MIN_SCAN.
 * Measured on the server bench's corpus at 100k rows (templated texts, so many near ties) with
 * 2√n lists: recall@10 against the exact scan 0.975 at 4%, 0.98 at 5% (recall@20 0.97), 0.985 at 6%.
 */
export const IVF_SCAN_SHARE = 0.05;
const IVF_MIN_SCAN = 1024;
/** Past this share of the rows read (a filter few rows pass), the whole matrix is scanned instead. */
const IVF_MAX_SCAN_SHARE = 0.3;
/** Candidates (× the search's limit, at least IVF_RERANK_MIN) scored exactly after the int8 pass. */
const IVF_RERANK = 4;
const IVF_RERANK_MIN = 64;

/** How far an approximate search reads: `rows` of the index's model, `scanShare` of them (see IVF_SCAN_SHARE). */
export interface IvfReach {
  limit: number;
  rows: number;
  scanShare: number;
}

/**
 * The `limit` best rows by exact dot product among the lists nearest the query. The lists are
 * read in order of their centroid's similarity, each row scored from its int8 codes; the best
 * IVF_RERANK × `limit` of those the filter lets through are then scored exactly. Reading stops
 * after the list that brings the rows read to IVF_SCAN_SHARE of the model's rows (at least
 * IVF_MIN_SCAN) once `limit` candidates passed the filter; null when that takes more than
 * IVF_MAX_SCAN_SHARE of them (a filter few rows pass: one scan of the matrix is cheaper).
 */
export function ivfTop(ivf: IvfIndex, matrix: Float32Array, query: Float32Array, reach: IvfReach, ok: (slot: number) => boolean, tie: (slot: number) => number): TopK | null {
  const { limit, rows: total, scanShare } = reach;
  const enough = Math.max(IVF_MIN_SCAN, Math.ceil(total * scanShare));
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
      const count = ivf.scoreAbove(l, from, Math.min(INT8_BATCH, size - from), floor, matrix, query);
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
    const d = rowDot(matrix, s, query);
    if (top.admits(d, s)) top.push(s, d);
  }
  return top;
}
