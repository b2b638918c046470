/** Physical state of a LanceStore table, for benchmarks and status pages. */
import type * as lancedb from '@lancedb/lancedb';

export interface LanceDiagnostics {
  table: 'versions' | 'current';
  rows: number;
  fragments: number;
  /** Rows each index (by column) does not cover yet (searched flat until the next maintenance). */
  unindexed: Record<string, number>;
  /** Index type by column (LanceDB's names: BTree, Bitmap, FTS, IvfRq…). */
  indexTypes: Record<string, string>;
}

export async function tableDiagnostics(table: LanceDiagnostics['table'], tbl: lancedb.Table): Promise<LanceDiagnostics> {
  const stats = await tbl.stats();
  const unindexed: Record<string, number> = {};
  const indexTypes: Record<string, string> = {};
  for (const idx of await tbl.listIndices()) {
    const column = idx.columns.join(',');
    indexTypes[column] = idx.indexType;
    const s = await tbl.indexStats(idx.name);
    if (s) unindexed[column] = s.numUnindexedRows;
  }
  return { table, rows: stats.numRows, fragments: stats.fragmentStats.numFragments, unindexed, indexTypes };
}
