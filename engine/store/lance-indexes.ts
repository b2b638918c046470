/**
 * The indexes of LanceStore's tables. Scalar indexes serve the filters recall uses on every call
 * (repo and space for the repo scope, user, session, category) and the reads by id; the full-text
 * index serves the text channel; the vector index is built once the current view is large.
 *
 * Bitmap for columns with few distinct values (space, category, repo: a machine or project knows
 * tens to hundreds of repositories), btree for the rest. Missing indexes are added on open, so
 * stores created by an earlier version gain them.
 */
import * as lancedb from '@lancedb/lancedb';

export const FTS_OPTIONS = { withPosition: false, stem: true, removeStopWords: true, lowercase: true, asciiFolding: true } as const;

const SCALAR: Record<string, 'btree' | 'bitmap'> = {
  version_id: 'btree',
  memory_id: 'btree',
  seq: 'btree',
  user_id: 'btree',
  run_id: 'btree',
  space: 'bitmap',
  repo: 'bitmap',
  category: 'bitmap',
};

/** Create every index a table should have and does not. Returns the columns indexed now. */
export async function ensureIndexes(tbl: lancedb.Table): Promise<string[]> {
  const have = new Set((await tbl.listIndices()).flatMap((i) => i.columns));
  const added: string[] = [];
  if (!have.has('content')) {
    await tbl.createIndex('content', { config: lancedb.Index.fts(FTS_OPTIONS) });
    added.push('content');
  }
  for (const [column, kind] of Object.entries(SCALAR)) {
    if (have.has(column)) continue;
    await tbl.createIndex(column, { config: kind === 'bitmap' ? lancedb.Index.bitmap() : lancedb.Index.btree() });
    added.push(column);
  }
  return added;
}
