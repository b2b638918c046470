/**
 * Vectors for the engine: whether a model is usable now, filling the vectors of rows being
 * written, embedding the backlog of rows stored without one, and embedding a query.
 */
import type { PlannedRow } from './bitemporal.js';
import type { Embedder } from './embed/types.js';
import type { Logger } from './log.js';
import type { QueryVectorCache } from './query-vector-cache.js';
import type { MemoryStore } from './store/types.js';

function isFiniteVector(v: ArrayLike<number>): boolean {
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) return false;
  return true;
}

/** Whether vectors can be made now without waiting on a download. */
export async function modelUsable(embedder: Embedder | null): Promise<boolean> {
  if (!embedder) return false;
  const s = embedder.state().status;
  if (s === 'ready') return true;
  if (s === 'downloading' || s === 'unavailable') return false;
  try {
    await embedder.ready();
    return true;
  } catch {
    return false;
  }
}

/**
 * Fill the vectors of rows that need one (by the embedder's model). Returns true when such rows
 * are stored without one (no model ready, or embedding failed), for the backlog to embed later.
 */
export async function embedRows(embedder: Embedder | null, rows: PlannedRow[], log: Logger): Promise<boolean> {
  const need = rows.filter((r) => !r.deleted && r.content !== '' && (r.vector === null || r.embed_model !== embedder?.model));
  if (need.length === 0) return false;
  if (!(await modelUsable(embedder))) return embedder !== null;
  try {
    const vectors = await embedder!.embedDocuments(need.map((r) => r.content));
    need.forEach((r, i) => {
      // A vector with NaN or Infinity (a model fault on odd text) is refused by the store and
      // would poison search: keep the row without one (full-text still finds it).
      if (!isFiniteVector(vectors[i]!)) return;
      r.vector = vectors[i]!;
      r.embed_model = embedder!.model;
    });
  } catch (err) {
    // Store without vectors: full-text still finds them, and the backlog embeds them later.
    log.warn('embedding failed; stored for later embedding', { err });
    return true;
  }
  return false;
}

/** Embed current rows written while no model was ready (or by another model); stops early once `closed` says so. */
export async function embedBacklog(embedder: Embedder | null, store: MemoryStore, batch: number, closed: () => boolean, log: Logger): Promise<number> {
  if (!embedder || !(await modelUsable(embedder))) return 0;
  let done = 0;
  for (;;) {
    if (closed()) break;
    const rows = await store.unembedded(embedder.model, batch);
    if (rows.length === 0) break;
    const vectors = await embedder.embedDocuments(rows.map((r) => r.content));
    const finite = rows.flatMap((r, i) => (isFiniteVector(vectors[i]!) ? [{ version_id: r.version_id, vector: vectors[i]!, model: embedder.model }] : []));
    // Rows whose text embeds to a non-finite vector stay text-only; stop rather than retry them forever.
    if (finite.length === 0) break;
    await store.setVectors(finite);
    done += finite.length;
    if (rows.length < batch) break;
  }
  if (done > 0) log.info('embedded backlog', { rows: done });
  return done;
}

/** Embed a query, through the cache. Null when no model is usable (or it made no finite vector). */
export async function queryVector(embedder: Embedder | null, cache: QueryVectorCache, query: string): Promise<{ vector: Float32Array | null; ms: number }> {
  if (!embedder || !(await modelUsable(embedder))) return { vector: null, ms: 0 };
  const key = query.slice(0, 2000);
  const hit = cache.get(key, embedder.model);
  if (hit) return { vector: hit, ms: 0 };
  const t0 = performance.now();
  try {
    const vector = await embedder.embedQuery(key);
    if (!isFiniteVector(vector)) return { vector: null, ms: performance.now() - t0 };
    cache.set(key, embedder.model, vector);
    return { vector, ms: performance.now() - t0 };
  } catch {
    return { vector: null, ms: performance.now() - t0 };
  }
}
