/**
 * One search over a store (`MemoryEngine.search`): the query embedded and its full-text form, the
 * store's candidates, for a past known_at only the versions believed then, and the ranking: both
 * channels fused into one 0..1 score, the relevance floor, the threshold, duplicates collapsed.
 */
import { rowsAsOf } from '../bitemporal.js';
import type { SearchInput, SearchOutput } from '../engine-types.js';
import type { MemoryStore, StoreHit } from '../store/types.js';
import { MAX_COMPLETIONS, typedPrefix, withCompletions } from '../text/complete.js';
import type { MemoryFilter, VersionRow } from '../types.js';
import { collapseDuplicates, fuse, type Ranked } from './fuse.js';
import { RELEVANCE_FLOOR, relevantCandidates, subjectsAsked } from './relevance.js';

/** The times a search reads at (`historical`: known_at is in the past). */
export interface SearchTimes {
  valid_at: number;
  known_at: number;
  historical: boolean;
}

export interface HybridSearchDeps {
  store: MemoryStore;
  /** The embedder's model (null: none). */
  model: string | null;
  /** EngineOptions.vectorWeight. */
  vectorWeight: number | undefined;
  /** The query's vector (null when no model is usable) and the time spent making it. */
  queryVector(query: string): Promise<{ vector: Float32Array | null; ms: number }>;
}

export async function hybridSearch(input: SearchInput, filter: MemoryFilter, t: SearchTimes, deps: HybridSearchDeps): Promise<SearchOutput> {
  const { store } = deps;
  const topK = input.top_k ?? 5;
  const threshold = input.threshold ?? 0;
  const mode = input.mode ?? 'hybrid';
  const { vector, ms: embedMs } = mode === 'text' ? { vector: null, ms: 0 } : await deps.queryVector(input.query);
  const t0 = performance.now();
  const vectorActive = vector !== null;
  const textActive = mode !== 'vector' || !vectorActive;
  const limit = Math.max(topK * 4, 20);
  const hits = await store.search({
    text: textActive ? await textQuery(store, input.query, input.prefix === true) : null,
    vector,
    model: deps.model,
    filter,
    validAt: t.valid_at,
    limit,
    knownAt: t.historical ? t.known_at : undefined,
    exact: input.exact,
    changeSeen: input.changeSeen,
  });
  const candidates = t.historical ? await believedAt(store, hits, t) : hits;
  const ranked: Ranked[] = fuse(candidates, { vectorActive, textActive, vectorWeight: deps.vectorWeight, query: input.query });
  // Filtering before collapsing keeps the same results: ranked is sorted, so whatever a
  // below-threshold entry could hide also scores below the threshold.
  const floor = input.relevance === true ? RELEVANCE_FLOOR : input.relevance || null;
  // The floor reads every candidate (how many hold a query term tells how common it is).
  const relevant = floor ? relevantCandidates(input.query, ranked.map((r) => ({ content: r.row.content, score: r.score, group: input.textOf ? input.textOf(r.row) : (r.row.block?.group_id ?? r.row.memory_id) })), floor) : null;
  const results = collapseDuplicates(
    ranked.filter((r, i) => r.score >= threshold && r.score > 0 && (!relevant || relevant[i])),
    topK,
  ).map((r) => ({ row: r.row, score: r.score, vectorScore: r.vectorScore }));
  return {
    results,
    mode: vectorActive && textActive ? 'hybrid' : vectorActive ? 'vector' : 'text',
    embed_ms: embedMs,
    search_ms: performance.now() - t0,
  };
}

/**
 * The full-text query: with `prefix`, the last word's completions are added (text/complete.ts); a
 * question asking which value a subject has ("what do we use for state management") brings the
 * subject's known values ("redux zustand …", `subjectsAsked`), so a memory that names the choice
 * answers it.
 */
async function textQuery(store: MemoryStore, query: string, prefix: boolean): Promise<string> {
  const values = subjectsAsked(query).flatMap((a) => a.values);
  const asked = values.length > 0 ? `${query} ${values.join(' ')}` : query;
  const word = prefix ? typedPrefix(query) : null;
  if (!word || !store.completeTerm) return asked;
  return withCompletions(asked, await store.completeTerm(word, MAX_COMPLETIONS), word);
}

/** Keep only versions that were believed at known_at. */
async function believedAt(store: MemoryStore, hits: StoreHit[], t: SearchTimes): Promise<StoreHit[]> {
  const versions = await store.versionsOf([...new Set(hits.map((h) => h.row.memory_id))]);
  const visible = new Set<string>();
  const byMemory = new Map<string, VersionRow[]>();
  for (const v of versions) byMemory.set(v.memory_id, [...(byMemory.get(v.memory_id) ?? []), v]);
  for (const vs of byMemory.values()) for (const r of rowsAsOf(vs, { valid_at: t.valid_at, known_at: t.known_at })) visible.add(r.version_id);
  return hits.filter((h) => visible.has(h.row.version_id));
}
