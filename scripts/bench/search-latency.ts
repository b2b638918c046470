/**
 * Search latency of `engine.search` (the engine call: store, fusion, duplicate collapse), with the
 * query embedding taken out: every query is run once first, which fills the engine's query cache,
 * so timed calls report `embed_ms` 0. Query embedding is measured on its own (`measureQueryEmbedding`).
 */
import type { Embedder, MemoryEngine, SearchInput } from '../../engine/index.js';
import { summarize, type Summary } from './stats.js';

export interface BenchQuery {
  text: string;
  /** The repository a repo-scoped recall would run in. */
  repo: string;
}

export interface SearchCase {
  label: string;
  mode: 'hybrid' | 'text';
  filter: 'none' | 'repo';
}

export const SEARCH_CASES: SearchCase[] = [
  { label: 'hybrid', mode: 'hybrid', filter: 'none' },
  { label: 'hybrid, repo scope', mode: 'hybrid', filter: 'repo' },
  { label: 'full text', mode: 'text', filter: 'none' },
  { label: 'full text, repo scope', mode: 'text', filter: 'repo' },
];

export interface SearchResult {
  latency: Summary;
  /** Process CPU time per search (all threads), ms: steadier than wall time on a shared machine. */
  cpuMs: number;
  /** Mean results per query (top_k 5). */
  meanResults: number;
  /** Calls that still embedded the query (should be 0). */
  embedded: number;
}

function input(q: BenchQuery, c: SearchCase): SearchInput {
  return { query: q.text, mode: c.mode, top_k: 5, ...(c.filter === 'repo' ? { scope: 'repo' as const, repo: q.repo } : {}) };
}

export async function measureSearch(engine: MemoryEngine, queries: readonly BenchQuery[], c: SearchCase, passes: number): Promise<SearchResult> {
  for (const q of queries) await engine.search(input(q, c)); // warm: query cache, table caches
  const lat: number[] = [];
  let results = 0;
  let embedded = 0;
  const cpu0 = process.cpuUsage();
  for (let p = 0; p < passes; p++) {
    for (const q of queries) {
      const t = performance.now();
      const out = await engine.search(input(q, c));
      lat.push(performance.now() - t);
      results += out.results.length;
      if (out.embed_ms > 0) embedded++;
    }
  }
  const cpu = process.cpuUsage(cpu0);
  return { latency: summarize(lat), cpuMs: (cpu.user + cpu.system) / 1000 / lat.length, meanResults: results / lat.length, embedded };
}

/** Latency of embedding a search query with the model (what the cache saves), ms. */
export async function measureQueryEmbedding(embedder: Embedder, queries: readonly BenchQuery[]): Promise<Summary> {
  await embedder.embedQuery('warm up the session');
  const lat: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    await embedder.embedQuery(q.text);
    lat.push(performance.now() - t);
  }
  return summarize(lat);
}
