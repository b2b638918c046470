/**
 * Reads of LanceStore's two tables as VersionRows: by condition, by memory (IN_CHUNK ids a
 * statement), a page of the current view, and the number of distinct memories a filter matches.
 */
import type * as lancedb from '@lancedb/lancedb';
import type { VersionRow } from '../types.js';
import { sqlNumber, sqlString } from './lance-filter.js';
import { fromRecord, LEGACY_LOG_VECTOR_COLUMNS, rowColumns, type LanceRecord } from './lance-rows.js';

/** Memory ids per `memory_id IN (…)` clause. */
export const IN_CHUNK = 500;

export interface ReadOptions {
  /** With the view's vectors, or a legacy log's. */
  withVector?: boolean;
  /** The log still holds vectors (an older build wrote it). */
  legacyLog?: boolean;
  limit?: number;
}

/**
 * Rows of the current view or the version log (`withVector`: the view's vectors, or a legacy
 * log's). The kind is explicit: a read may run on a handle that reconnect() has just replaced.
 */
export async function readRows(kind: 'view' | 'log', tbl: lancedb.Table, where: string | undefined, { withVector = false, legacyLog = false, limit }: ReadOptions = {}): Promise<VersionRow[]> {
  const view = kind === 'view';
  const columns = rowColumns(view ? 'view' : 'log');
  const vector = withVector ? (view ? ['vector'] : legacyLog ? LEGACY_LOG_VECTOR_COLUMNS : []) : [];
  let q = tbl.query().select([...columns, ...vector]);
  if (where) q = q.where(where);
  if (limit !== undefined) q = q.limit(limit);
  return ((await q.toArray()) as LanceRecord[]).map(fromRecord);
}

/** Every version of these memories from the log, ordered by (memory_id, version); vectors only from a legacy log. */
export async function logRows(versions: lancedb.Table, memoryIds: readonly string[], withVector: boolean, legacyLog: boolean): Promise<VersionRow[]> {
  const ids = [...new Set(memoryIds)];
  const out: VersionRow[] = [];
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    out.push(...(await readRows('log', versions, `memory_id IN (${ids.slice(i, i + IN_CHUNK).map(sqlString).join(', ')})`, { withVector, legacyLog })));
  }
  return out.sort((a, b) => (a.memory_id < b.memory_id ? -1 : a.memory_id > b.memory_id ? 1 : a.version - b.version));
}

/** The current rows of these memories, with their vectors. */
export async function viewRowsOf(current: lancedb.Table, memoryIds: readonly string[]): Promise<VersionRow[]> {
  const ids = [...new Set(memoryIds)];
  const out: VersionRow[] = [];
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    out.push(...(await readRows('view', current, `memory_id IN (${ids.slice(i, i + IN_CHUNK).map(sqlString).join(', ')})`, { withVector: true })));
  }
  return out;
}

/** The `limit` current rows matching `where` with the highest seqs, newest first. */
export async function viewPage(current: lancedb.Table, where: string | undefined, limit: number): Promise<VersionRow[]> {
  // Find the page by seq alone (a top-k over one column), then read those rows: ordering whole
  // rows would read every column of every matching row.
  let q = current.query().select(['seq']).orderBy({ columnName: 'seq', ascending: false }).limit(limit);
  if (where) q = q.where(where);
  const seqs = ((await q.toArray()) as LanceRecord[]).map((r) => Number(r.seq));
  if (seqs.length === 0) return [];
  const rows = await readRows('view', current, `seq IN (${seqs.map(sqlNumber).join(', ')})`);
  return rows.sort((a, b) => b.seq - a.seq);
}

/**
 * Distinct memories matching `where`: a row count (answered from indexes), less the extra rows of
 * memories with several current rows (`multiRow`, asked once the count is in).
 */
export async function countMemories(current: lancedb.Table, where: string | undefined, multiRow: () => readonly string[]): Promise<number> {
  const rows = await current.countRows(where);
  const multi = multiRow();
  let extra = 0;
  for (let i = 0; i < multi.length; i += IN_CHUNK) {
    const inList = `memory_id IN (${multi.slice(i, i + IN_CHUNK).map(sqlString).join(', ')})`;
    const found = (await current
      .query()
      .where(where ? `(${where}) AND ${inList}` : inList)
      .select(['memory_id'])
      .toArray()) as LanceRecord[];
    extra += found.length - new Set(found.map((r) => String(r.memory_id))).size;
  }
  return rows - extra;
}
