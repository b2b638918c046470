/**
 * The two search channels of LanceStore over one table, run at once. A row found by both is one hit
 * with both scores.
 *
 * Each channel reads whole rows for its own hits: in the current view that is one column (the
 * row's JSON payload, see PAYLOAD_COLUMN), so a second query for the top results only would cost
 * more than it saves.
 */
import type * as lancedb from '@lancedb/lancedb';
import { queryTerms } from '../text/tokenize.js';
import { FTS_COLUMN, type Probing } from './lance-indexes.js';
import { fromRecord, type LanceRecord } from './lance-rows.js';
import { lance } from './lance-runtime.js';
import type { StoreHit } from './types.js';

export interface ChannelQuery {
  /** Columns that make up a whole row in this table (`rowColumns`). */
  columns: readonly string[];
  text: string | null;
  vector: Float32Array | null;
  where: string | undefined;
  /** Extra condition for the vector channel (the embedding model), or undefined. */
  vectorWhere: string | undefined;
  limit: number;
  exact: boolean;
  /** Probing and re-ranking when the table has an approximate vector index. */
  ann: Probing | null;
  /** Whether the table has its full-text index yet (the text channel is skipped when not). */
  textIndexed: boolean;
}

function and(a: string | undefined, b: string | undefined): string | undefined {
  if (a && b) return `(${a}) AND (${b})`;
  return a ?? b;
}

async function vectorChannel(tbl: lancedb.Table, q: ChannelQuery): Promise<LanceRecord[]> {
  if (!q.vector) return [];
  let v = tbl
    .vectorSearch(q.vector)
    .distanceType('cosine')
    .select([...q.columns, '_distance'])
    .limit(q.limit);
  const where = and(q.where, q.vectorWhere);
  if (where) v = v.where(where);
  if (q.exact) v = v.bypassVectorIndex();
  // Probe at least minProbes partitions, more (up to maxProbes) when a filter leaves too few rows.
  else if (q.ann) v = v.nprobes(q.ann.minProbes).maximumNprobes(q.ann.maxProbes).refineFactor(q.ann.refineFactor);
  return (await v.toArray()) as LanceRecord[];
}

async function textChannel(tbl: lancedb.Table, q: ChannelQuery): Promise<LanceRecord[]> {
  const text = q.text ? ftsQuery(q.text) : '';
  if (!text || !q.textIndexed) return [];
  // fastSearch: indexed rows only. LanceDB's flat scoring of rows outside the index drops or
  // misranks them; LanceStore scores those itself (its text tail).
  let t = tbl
    .query()
    .fullTextSearch(new (lance().MatchQuery)(text, FTS_COLUMN))
    .fastSearch()
    .select([...q.columns, '_score'])
    .limit(q.limit);
  if (q.where) t = t.where(q.where);
  return (await t.toArray()) as LanceRecord[];
}

export async function searchChannels(tbl: lancedb.Table, q: ChannelQuery): Promise<StoreHit[]> {
  const [vec, txt] = await Promise.all([vectorChannel(tbl, q), textChannel(tbl, q)]);
  const hits = new Map<string, StoreHit>();
  for (const r of vec) {
    const row = fromRecord(r);
    hits.set(row.version_id, { row, vectorScore: 1 - Number(r._distance), textScore: null });
  }
  for (const r of txt) {
    const row = fromRecord(r);
    const hit = hits.get(row.version_id);
    if (hit) hit.textScore = Number(r._score);
    else hits.set(row.version_id, { row, vectorScore: null, textScore: Number(r._score) });
  }
  return [...hits.values()];
}

/** Add text-only hits scored outside LanceDB; a row both sides found keeps its vector score. */
export function mergeTextHits(hits: StoreHit[], more: readonly StoreHit[]): StoreHit[] {
  if (more.length === 0) return hits;
  const byId = new Map(hits.map((h) => [h.row.version_id, h]));
  for (const t of more) {
    const hit = byId.get(t.row.version_id);
    if (hit) hit.textScore = t.textScore;
    else hits.push(t);
  }
  return hits;
}

/** A full-text query as the engine's own index terms, so no query syntax in user text is interpreted. */
export function ftsQuery(text: string): string {
  return queryTerms(text).join(' ');
}
