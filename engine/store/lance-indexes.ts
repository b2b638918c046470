/**
 * The indexes of LanceStore's tables. Scalar indexes serve the filters recall uses on every call
 * (repo and space for the repo scope, user, session, category), the server's visibility filter
 * (owner) and the reads by id; the full-text index over `search_terms` serves the text channel
 * (LanceStore creates it once a table has rows); the vector index is built once the current view
 * is large and searched through LanceDB.
 *
 * Bitmap for columns with few distinct values (space, category, repo: a machine or project knows
 * tens to hundreds of repositories), btree for the rest. Missing indexes are added on open, so
 * stores created by an earlier version gain them, and indexes this build no longer keeps are
 * dropped.
 */
import type * as lancedb from '@lancedb/lancedb';
import { lance } from './lance-runtime.js';

/** The column the full-text index covers. */
export const FTS_COLUMN = 'search_terms';

/**
 * `search_terms` holds the engine's own index terms (tokenize.ts), already lowercased, stemmed and
 * without stop words: the index splits on spaces and changes nothing, so LanceDB and the in-memory
 * scoring of unindexed rows (TermStats) see the same terms.
 */
export function ftsIndex(): lancedb.Index {
  return lance().Index.fts({ baseTokenizer: 'whitespace', lowercase: false, stem: false, removeStopWords: false, asciiFolding: false, withPosition: false });
}

/**
 * Scalar indexes of the current view: the filters of every recall and search (repo and space for
 * the repo scope, user, session, category; owner for the server's visibility filter), and
 * memory_id for reads by memory. Not version_id: only the embedding backlog reads rows by it, a
 * batch at a time, and a scan of that column costs it less than the index costs every row on disk.
 */
const VIEW_SCALAR: Record<string, 'btree' | 'bitmap'> = {
  memory_id: 'btree',
  seq: 'btree',
  user_id: 'btree',
  run_id: 'btree',
  // Every server search filters on it (personal memories are visible to their owner's keys only):
  // with the index that clause costs ~1 ms less CPU per search at 10k memories.
  owner_id: 'btree',
  space: 'bitmap',
  repo: 'bitmap',
  category: 'bitmap',
};

/**
 * Scalar indexes of the version log: reads by memory (every update plans from them) and by seq
 * (the change log). Searches of the past are the only reads filtered by other columns; they are
 * rare, and scanning those columns then costs less than indexing them on every version (at 10k
 * versions the six filter and version_id indexes were ~40 bytes a version).
 */
const LOG_SCALAR: Record<string, 'btree' | 'bitmap'> = {
  memory_id: 'btree',
  seq: 'btree',
};

/** Scalar index columns this build keeps on some table (an index on another is left alone). */
const KNOWN_SCALAR = new Set([...Object.keys(VIEW_SCALAR), ...Object.keys(LOG_SCALAR), 'version_id']);

/**
 * Create every scalar index a table should have and does not, and drop the scalar indexes older
 * builds made that it should not have. Returns the columns indexed now and the indexes dropped.
 */
export async function ensureIndexes(tbl: lancedb.Table, table: 'view' | 'log'): Promise<{ added: string[]; dropped: string[] }> {
  const want = table === 'view' ? VIEW_SCALAR : LOG_SCALAR;
  const indices = await tbl.listIndices();
  const have = new Set(indices.flatMap((i) => i.columns));
  const added: string[] = [];
  const dropped: string[] = [];
  for (const idx of indices) {
    const column = idx.columns[0]!;
    if (idx.columns.length === 1 && KNOWN_SCALAR.has(column) && !(column in want) && (idx.indexType === 'BTree' || idx.indexType === 'Bitmap')) {
      await tbl.dropIndex(idx.name);
      dropped.push(idx.name);
    }
  }
  for (const [column, kind] of Object.entries(want)) {
    if (have.has(column)) continue;
    await tbl.createIndex(column, { config: kind === 'bitmap' ? lance().Index.bitmap() : lance().Index.btree() });
    added.push(column);
  }
  return { added, dropped };
}

/** The vector index kind this store builds (an index of another kind is rebuilt by maintenance). */
export const VECTOR_INDEX_TYPE = 'IvfRq';

/** Shape of the vector index and how a query uses it. */
export interface VectorIndexPlan {
  /** Embedded rows the index was trained on. */
  rows: number;
  partitions: number;
}

/**
 * IVF_RQ (RaBitQ codes, re-ranked exactly by `refineFactor`) with about √rows / 2.5 partitions.
 * Measured on 100k memories of the MiniLM shape (2 cores): 2-bit codes, 60% of partitions probed
 * and refine 4 give recall@10 0.97–0.98 against exact search at ~2 ms for the index part; the
 * index is 12 MB and trains in ~5 s. IVF_PQ (24–96 sub-vectors, 24–48 of 316 partitions, refine up
 * to 20) stayed at recall 0.69–0.89 and took 1–4 minutes to train; HNSW_SQ reached 0.97 but is a
 * 54 MB index held in memory and trains in 30 s.
 */
export function vectorIndexPlan(rows: number): VectorIndexPlan {
  return { rows, partitions: Math.max(8, Math.min(1024, Math.round(Math.sqrt(rows) / 2.5))) };
}

/** Bits per dimension of the RaBitQ codes: 2 halves the exact re-ranking 1 bit needs for the same recall. */
const RQ_BITS = 2;

export function vectorIndex(plan: VectorIndexPlan): lancedb.Index {
  return lance().Index.ivfRq({ distanceType: 'cosine', numPartitions: plan.partitions, numBits: RQ_BITS });
}

/**
 * Partitions a query probes at least: 60% of them. With short queries against longer memories the
 * nearest neighbours spread over many partitions (40% gave recall@10 0.91, half 0.95, 60% 0.97 at
 * 100k), and RaBitQ codes make each probe cheap: the probe count hardly moves latency.
 */
export function minimumProbes(plan: VectorIndexPlan): number {
  return Math.max(1, Math.ceil(plan.partitions * 0.6));
}

/** How one query uses the vector index (see `probing`). */
export interface Probing {
  minProbes: number;
  maxProbes: number;
  refineFactor: number;
}

/**
 * `minimumProbes` partitions (or `nprobes` when set); with a filter, up to all of them when the
 * filter leaves too few rows in those (a session's memories are a few dozen of 100k: recall@10 0.68
 * without, 1.0 with). Without a filter the floor is also the ceiling, since LanceDB otherwise keeps
 * probing past it (+2 ms CPU per query at 100k for recall 0.98 -> 1.0).
 */
export function probing(plan: VectorIndexPlan, filtered: boolean, opts: { nprobes: number | null; refineFactor: number }): Probing {
  const min = Math.min(opts.nprobes ?? minimumProbes(plan), plan.partitions);
  return { minProbes: min, maxProbes: filtered ? plan.partitions : min, refineFactor: opts.refineFactor };
}
