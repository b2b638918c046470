/**
 * Full text of LanceStore's current view that its full-text index does not cover yet (the
 * "tail"), scored here by exact BM25 against the view's term statistics, which are kept here too
 * (from the stored terms of every current row, and the terms of every row written since).
 */
import type * as lancedb from '@lancedb/lancedb';
import { validAt } from '../bitemporal.js';
import { TermStats } from '../text/term-stats.js';
import { terms } from '../text/tokenize.js';
import type { VersionRow } from '../types.js';
import { matchesFilter } from './filter.js';
import { FTS_COLUMN } from './lance-indexes.js';
import type { StoreHit, StoreSearch } from './types.js';

/** Fold unindexed rows into the full-text index once this many are scored outside it. */
const TAIL_LIMIT = 500;

export class TextTail {
  /**
   * Current-view rows the full-text index does not cover yet, scored here by exact BM25 against
   * `termStats` (LanceDB's own flat scoring of unindexed rows is unreliable: it drops or
   * misranks rows whose terms the index has not seen). Emptied whenever the index catches up.
   */
  private readonly tail = new Map<string, { row: VersionRow; terms: string[] }>();
  private readonly termStats = new TermStats();

  /** Whether enough rows are scored outside the full-text index to fold them in now. */
  get due(): boolean {
    return this.tail.size >= TAIL_LIMIT;
  }

  /** The index caught up (or is gone): no row is outside it. */
  clear(): void {
    this.tail.clear();
  }

  /** BM25 statistics of the current view, from its stored terms. */
  async rebuildStats(current: lancedb.Table): Promise<void> {
    this.termStats.clear();
    const t = await current.query().select([FTS_COLUMN]).toArrow();
    const col = t.getChild(FTS_COLUMN)!;
    for (let i = 0; i < t.numRows; i++) this.termStats.add(String(col.get(i)).split(' ').filter(Boolean));
  }

  /**
   * Current rows just written: outside the full-text index until it catches up (no tail while the
   * view is searched in memory, `throughIndexes` false: it has no full-text index then, and gets
   * one over every row).
   */
  add(rows: readonly VersionRow[], countTerms: boolean, throughIndexes: boolean): void {
    for (const r of rows) {
      const t = terms(r.content);
      if (throughIndexes) this.tail.set(r.version_id, { row: { ...r, vector: null }, terms: t });
      if (countTerms) this.termStats.add(t);
    }
  }

  /** Drop the tail rows of memories whose current rows were replaced or removed. */
  drop(memoryIds: Iterable<string>): void {
    const gone = new Set(memoryIds);
    if (gone.size === 0) return;
    for (const [vid, t] of this.tail) if (gone.has(t.row.memory_id)) this.tail.delete(vid);
  }

  /** Exact BM25 over the current rows outside the full-text index. */
  search(req: StoreSearch): StoreHit[] {
    if (!req.text || this.tail.size === 0) return [];
    const q = terms(req.text);
    const out: StoreHit[] = [];
    for (const { row, terms: docTerms } of this.tail.values()) {
      if (!validAt(row, req.validAt) || !matchesFilter(row, req.filter)) continue;
      const score = this.termStats.score(q, docTerms);
      if (score > 0) out.push({ row, vectorScore: null, textScore: score });
    }
    return out.sort((a, b) => b.textScore! - a.textScore!).slice(0, req.limit);
  }

  /** Terms of the current view that start with `prefix`. */
  complete(prefix: string, limit: number): string[] {
    return this.termStats.complete(prefix, limit);
  }
}
