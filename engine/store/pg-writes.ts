/**
 * PgStore's writes inside their transaction: the store's lock, the inserts, and keeping the
 * current rows (`is_current`), the full-text statistics and the change log in step with them.
 */
import { currentRows, type PlannedRow } from '../bitemporal.js';
import { EngineError } from '../errors.js';
import { terms } from '../text/tokenize.js';
import type { VersionRow } from '../types.js';
import { cloneRow } from './memory-store.js';
import { SqlParams } from './pg-filter.js';
import { RECORD_NAMES, RECORD_TYPE, recordOf } from './pg-rows.js';
import { termDelta, type CurrentDoc, type TermDelta } from './pg-text.js';
import type { SqlQueryable } from './sql-client.js';

/** Lock the store's meta row for the transaction: every writer of the store passes here in turn. */
export async function lockStore(tx: SqlQueryable, store: string): Promise<{ lastSeq: number; changeNo: number }> {
  const r = await tx.query<{ last_seq: number; change_no: number }>(`SELECT last_seq, change_no FROM ms_store_meta WHERE store = $1 FOR UPDATE`, [store]);
  const m = r.rows[0];
  if (!m) throw new EngineError('STORE_CLOSED', `store ${store} has no meta row: open it first`);
  return { lastSeq: Number(m.last_seq), changeNo: Number(m.change_no) };
}

/** Insert `rows` into the version log with seqs from `firstSeq` on. */
export async function insertRows(tx: SqlQueryable, store: string, rows: readonly PlannedRow[], firstSeq: number): Promise<void> {
  const records = rows.map((r, i) => recordOf(r, firstSeq + i));
  await tx.query(
    `INSERT INTO ms_versions (store, ${RECORD_NAMES})
     SELECT $1, x.* FROM json_to_recordset($2::json) AS x(${RECORD_TYPE})`,
    [store, JSON.stringify(records)],
  );
}

/**
 * Run `body` (which changes versions of `memoryIds`) and bring the current view and the
 * full-text statistics of those memories up to date, all in `tx`.
 */
export async function recompute(tx: SqlQueryable, store: string, memoryIds: readonly string[], changeNo: number, body: () => Promise<void>, rewritten: ReadonlySet<string> = new Set()): Promise<number> {
  const ids = [...new Set(memoryIds)];
  const before = (await tx.query<CurrentDoc>(`SELECT version_id, memory_id, content FROM ms_versions WHERE store = $1 AND memory_id = ANY($2::text[]) AND is_current`, [store, ids])).rows;
  await body();
  const after = (
    await tx.query<{ version_id: string; memory_id: string; version: number; tx: number; deleted: boolean; content: string }>(
      `SELECT version_id, memory_id, version, tx, deleted, content FROM ms_versions WHERE store = $1 AND memory_id = ANY($2::text[])`,
      [store, ids],
    )
  ).rows;
  const byMemory = new Map<string, { version_id: string; version: number; tx: number; deleted: boolean; content: string }[]>();
  for (const r of after) {
    const list = byMemory.get(r.memory_id) ?? [];
    list.push({ ...r, version: Number(r.version), tx: Number(r.tx) });
    byMemory.set(r.memory_id, list);
  }
  const now = new Map<string, CurrentDoc>();
  for (const list of byMemory.values()) for (const r of currentRows(list as unknown as VersionRow[])) now.set(r.version_id, { version_id: r.version_id, memory_id: r.memory_id, content: r.content });
  const wasIds = new Set(before.map((r) => r.version_id));
  const removed = before.filter((r) => !now.has(r.version_id) || rewritten.has(r.version_id));
  const added = [...now.values()].filter((r) => !wasIds.has(r.version_id) || rewritten.has(r.version_id));

  const { docs, total, df: changed, postings } = termDelta(removed, added);
  if (removed.length > 0) {
    const rids = removed.map((r) => r.version_id);
    await tx.query(`DELETE FROM ms_postings WHERE store = $1 AND version_id = ANY($2::text[]) AND memory_id = ANY($3::text[])`, [store, rids, ids]);
    await tx.query(`UPDATE ms_versions SET is_current = false WHERE store = $1 AND version_id = ANY($2::text[]) AND memory_id = ANY($3::text[])`, [store, rids.filter((id) => !now.has(id)), ids]);
  }
  if (added.length > 0) {
    await tx.query(`UPDATE ms_versions SET is_current = true WHERE store = $1 AND version_id = ANY($2::text[]) AND memory_id = ANY($3::text[])`, [store, added.map((r) => r.version_id), ids]);
  }
  await writeTermDelta(tx, store, { postings, df: changed });
  await tx.query(`INSERT INTO ms_store_changes (store, change_no, memory_id) SELECT $1, $2, * FROM unnest($3::text[])`, [store, changeNo, ids]);
  await tx.query(`UPDATE ms_store_meta SET docs = docs + $2, total_length = total_length + $3, change_no = $4 WHERE store = $1`, [store, docs, total, changeNo]);
  return after.length;
}

/**
 * Insert new `postings` and move the document frequencies by `df`, dropping the terms no current
 * row holds any more (the postings they replace are deleted by the caller).
 */
export async function writeTermDelta(tx: SqlQueryable, store: string, { postings, df }: Pick<TermDelta, 'postings' | 'df'>): Promise<void> {
  if (postings.terms.length > 0) {
    await tx.query(`INSERT INTO ms_postings (store, term, version_id, memory_id, tf, doc_length) SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::int[])`, [
      store,
      postings.terms,
      postings.ids,
      postings.memories,
      postings.tfs,
      postings.lengths,
    ]);
  }
  if (df.length > 0) {
    const t = df.map(([k]) => k);
    await tx.query(
      `INSERT INTO ms_term_df (store, term, df) SELECT $1, * FROM unnest($2::text[], $3::int[])
       ON CONFLICT (store, term) DO UPDATE SET df = ms_term_df.df + excluded.df`,
      [store, t, df.map(([, d]) => d)],
    );
    await tx.query(`DELETE FROM ms_term_df WHERE store = $1 AND term = ANY($2::text[]) AND df <= 0`, [store, t]);
  }
}

/**
 * Another process (a second server replica) may have written a memory since this one planned
 * its new versions: refuse rather than store two versions under one number. Checked under the
 * store's lock, so the answer holds until commit.
 */
function refuseTaken(rows: readonly PlannedRow[], existing: readonly { memory_id: string; version: number }[]): void {
  const first = new Map<string, number>();
  for (const r of rows) first.set(r.memory_id, Math.min(first.get(r.memory_id) ?? Infinity, r.version));
  const max = new Map<string, number>();
  for (const e of existing) max.set(e.memory_id, Math.max(max.get(e.memory_id) ?? 0, e.version));
  for (const [id, v] of max) {
    const want = first.get(id);
    if (want !== undefined && v >= want) {
      throw new EngineError('CONFLICT', `memory ${id} was changed concurrently (it already has version ${v}); nothing was written: read it again and retry`, { memory_id: id, version: v });
    }
  }
}

/**
 * Append versions: under the store's lock, one read of the memories' versions (to refuse a
 * version number another process took, and to know which rows stop or start being current),
 * then one statement that inserts the rows, switches `is_current`, replaces the postings,
 * updates document frequencies, records the change and moves the meta row on. The lock is held
 * for four round trips and the host's own writes (events), instead of a dozen statements.
 */
export async function appendVersions(
  tx: SqlQueryable,
  store: string,
  { rows, ids, termsOf }: { rows: readonly PlannedRow[]; ids: readonly string[]; termsOf: ReadonlyMap<string, string[]> },
  writing: (tx: SqlQueryable, rows: readonly VersionRow[]) => Promise<void> | undefined,
): Promise<{ stored: VersionRow[]; changeNo: number; current: VersionRow[] | null }> {
  const m = await lockStore(tx, store);
  const existing = (
    await tx.query<{ version_id: string; memory_id: string; version: number; tx: number; deleted: boolean; content: string; is_current: boolean }>(
      `SELECT version_id, memory_id, version, tx, deleted, content, is_current FROM ms_versions WHERE store = $1 AND memory_id = ANY($2::text[])`,
      [store, ids],
    )
  ).rows.map((r) => ({ ...r, version: Number(r.version), tx: Number(r.tx) }));
  refuseTaken(rows, existing);
  const byMemory = new Map<string, { version_id: string; memory_id: string; version: number; tx: number; deleted: boolean; content: string }[]>();
  for (const r of [...existing, ...rows]) {
    const list = byMemory.get(r.memory_id);
    if (list) list.push(r);
    else byMemory.set(r.memory_id, [r]);
  }
  const now = new Set<string>();
  for (const list of byMemory.values()) for (const r of currentRows(list as unknown as VersionRow[])) now.add(r.version_id);
  const removed = existing.filter((r) => r.is_current && !now.has(r.version_id));
  const revived = existing.filter((r) => !r.is_current && now.has(r.version_id));
  const added: CurrentDoc[] = [...revived, ...rows.filter((r) => now.has(r.version_id))];
  const delta = termDelta(removed, added, (r) => termsOf.get(r.version_id) ?? terms(r.content));
  const p = new SqlParams([store]);
  const idsP = p.add(ids);
  const firstSeq = m.lastSeq + 1;
  const records = rows.map((r, i) => ({ ...recordOf(r, firstSeq + i), is_current: now.has(r.version_id) }));
  const ctes = [`v AS (INSERT INTO ms_versions (store, ${RECORD_NAMES}, is_current) SELECT $1, x.* FROM json_to_recordset(${p.add(JSON.stringify(records))}::json) AS x(${RECORD_TYPE}, is_current boolean))`];
  const flip = [...removed, ...revived].map((r) => r.version_id);
  if (flip.length > 0) {
    ctes.push(`f AS (UPDATE ms_versions SET is_current = (version_id = ANY(${p.add(revived.map((r) => r.version_id))}::text[])) WHERE store = $1 AND memory_id = ANY(${idsP}::text[]) AND version_id = ANY(${p.add(flip)}::text[]))`);
  }
  if (removed.length > 0) ctes.push(`dp AS (DELETE FROM ms_postings WHERE store = $1 AND memory_id = ANY(${idsP}::text[]) AND version_id = ANY(${p.add(removed.map((r) => r.version_id))}::text[]))`);
  if (delta.postings.terms.length > 0) {
    const q = delta.postings;
    ctes.push(`ip AS (INSERT INTO ms_postings (store, term, version_id, memory_id, tf, doc_length) SELECT $1, * FROM unnest(${p.add(q.terms)}::text[], ${p.add(q.ids)}::text[], ${p.add(q.memories)}::text[], ${p.add(q.tfs)}::int[], ${p.add(q.lengths)}::int[]))`);
  }
  if (delta.df.length > 0) {
    ctes.push(
      `d AS (INSERT INTO ms_term_df (store, term, df) SELECT $1, * FROM unnest(${p.add(delta.df.map(([t]) => t))}::text[], ${p.add(delta.df.map(([, d]) => d))}::int[]) ON CONFLICT (store, term) DO UPDATE SET df = ms_term_df.df + excluded.df)`,
    );
  }
  const changeNo = m.changeNo + 1;
  ctes.push(`c AS (INSERT INTO ms_store_changes (store, change_no, memory_id) SELECT $1, ${p.add(changeNo)}::bigint, * FROM unnest(${idsP}::text[]))`);
  await tx.query(
    `WITH ${ctes.join(',\n')}
     UPDATE ms_store_meta SET docs = docs + ${p.add(delta.docs)}::bigint, total_length = total_length + ${p.add(delta.total)}::bigint, change_no = ${p.add(changeNo)}::bigint, last_seq = ${p.add(m.lastSeq + rows.length)}::bigint WHERE store = $1`,
    p.values,
  );
  // Terms no current row holds any more (a statement of their own: one statement cannot see its own upsert).
  const gone = delta.df.filter(([, d]) => d < 0).map(([t]) => t);
  if (gone.length > 0) await tx.query(`DELETE FROM ms_term_df WHERE store = $1 AND term = ANY($2::text[]) AND df <= 0`, [store, gone]);
  const stored = rows.map((r, i) => cloneRow({ ...r, seq: firstSeq + i } as VersionRow));
  await writing(tx, stored);
  // Every memory's current rows are among the new ones (no older row stays current): the
  // resident view can take them as they are once this commits.
  const own = revived.length === 0 && ids.every((id) => existing.every((e) => e.memory_id !== id || !now.has(e.version_id)));
  return { stored, changeNo, current: own ? stored.filter((r) => now.has(r.version_id)) : null };
}
