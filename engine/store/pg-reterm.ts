/**
 * A store's full-text postings brought in step with the engine's tokenizer when it changed how it
 * splits a text (TERMS_FORMAT, tokenize.ts), once per store, on open: the current rows whose text
 * the change affects (format 2 split Chinese, Japanese and Korean runs into character pairs) get
 * new postings, and the document frequencies and total length move with them, in one transaction
 * under the store's lock. The meta row records the format (`terms_format`).
 */
import { CJK, TERMS_FORMAT, terms } from '../text/tokenize.js';
import { termDelta, type CurrentDoc } from './pg-text.js';
import { lockStore, writeTermDelta } from './pg-writes.js';
import type { SqlClient } from './sql-client.js';

/**
 * The characters of CJK text in a PostgreSQL regular expression (kana, CJK ideographs with their
 * extensions and compatibility forms, Hangul, halfwidth katakana): a cheap first pass over the
 * rows, which `CJK` then decides.
 */
const CJK_CLASS = `[${['\u3040-\u30ff', '\u3400-\u4dbf', '\u4e00-\u9fff', '\uf900-\ufaff', '\uac00-\ud7af', '\u1100-\u11ff', '\uff66-\uff9f', `${String.fromCodePoint(0x20000)}-${String.fromCodePoint(0x3ffff)}`].join('')}]`;

/** Bring the postings of `store` to TERMS_FORMAT; returns how many current rows were re-indexed. */
export async function retermStore(db: SqlClient, store: string): Promise<number> {
  const format = async (q: Pick<SqlClient, 'query'>): Promise<number> =>
    Number((await q.query<{ terms_format: number }>(`SELECT terms_format FROM ms_store_meta WHERE store = $1`, [store])).rows[0]?.terms_format ?? TERMS_FORMAT);
  if ((await format(db)) === TERMS_FORMAT) return 0;
  return db.transaction(async (tx) => {
    await lockStore(tx, store);
    // Another process may have done it while this one waited for the lock.
    if ((await format(tx)) === TERMS_FORMAT) return 0;
    const docs = (await tx.query<CurrentDoc>(`SELECT version_id, memory_id, content FROM ms_versions WHERE store = $1 AND is_current AND content ~ $2`, [store, CJK_CLASS])).rows.filter((r) =>
      CJK.test(r.content),
    );
    const held = new Map<string, string[]>();
    if (docs.length > 0) {
      const old = await tx.query<{ version_id: string; term: string; tf: number }>(`SELECT version_id, term, tf FROM ms_postings WHERE store = $1 AND version_id = ANY($2::text[])`, [
        store,
        docs.map((d) => d.version_id),
      ]);
      for (const p of old.rows) {
        const list = held.get(p.version_id) ?? [];
        for (let i = 0; i < Number(p.tf); i++) list.push(p.term);
        held.set(p.version_id, list);
      }
    }
    const sorted = (ts: readonly string[]): string => [...ts].sort().join(' ');
    const stale = docs.filter((d) => sorted(held.get(d.version_id) ?? []) !== sorted(terms(d.content)));
    if (stale.length > 0) {
      // The same rows leave with the terms they were indexed by and come back with today's.
      const leaving = stale.map((d) => ({ ...d }));
      const before = new Map(leaving.map((d) => [d, held.get(d.version_id) ?? []] as const));
      const delta = termDelta(leaving, stale, (r) => before.get(r) ?? terms(r.content));
      const ids = stale.map((d) => d.version_id);
      await tx.query(`DELETE FROM ms_postings WHERE store = $1 AND version_id = ANY($2::text[])`, [store, ids]);
      await writeTermDelta(tx, store, delta);
      await tx.query(`UPDATE ms_store_meta SET total_length = total_length + $2 WHERE store = $1`, [store, delta.total]);
    }
    await tx.query(`UPDATE ms_store_meta SET terms_format = $2 WHERE store = $1`, [store, TERMS_FORMAT]);
    return stale.length;
  });
}
