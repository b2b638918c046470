/**
 * Recall@10 of the approximate vector index against exact search (`exact: true` bypasses the
 * index), at the store level so fusion and duplicate collapse play no part.
 */
import type { Embedder, MemoryStore } from '../../engine/index.js';
import type { BenchQuery } from './search-latency.js';
import { summarize, type Summary } from './stats.js';

export interface RecallResult {
  filter: 'none' | 'repo';
  recall: number;
  /** Lowest per-query recall. */
  worst: number;
  approx: Summary;
  exact: Summary;
}

export async function measureRecall(store: MemoryStore, embedder: Embedder, queries: readonly BenchQuery[], filter: 'none' | 'repo', k = 10): Promise<RecallResult> {
  let sum = 0;
  let worst = 1;
  const approxMs: number[] = [];
  const exactMs: number[] = [];
  const validAt = Date.now();
  for (const q of queries) {
    const vector = await embedder.embedQuery(q.text);
    const base = { text: null, vector, model: embedder.model, filter: filter === 'repo' ? { space: 'project' as const, repo: q.repo } : {}, validAt, limit: k };
    let t = performance.now();
    const approx = await store.search(base);
    approxMs.push(performance.now() - t);
    t = performance.now();
    const exact = await store.search({ ...base, exact: true });
    exactMs.push(performance.now() - t);
    if (exact.length === 0) continue;
    const got = new Set(approx.map((h) => h.row.version_id));
    const r = exact.filter((h) => got.has(h.row.version_id)).length / exact.length;
    sum += r;
    worst = Math.min(worst, r);
  }
  return { filter, recall: sum / queries.length, worst, approx: summarize(approxMs), exact: summarize(exactMs) };
}
