/**
 * The stored full-text terms (`search_terms`) of both tables, brought in step with the engine's
 * tokenizer when it changed how it splits a text (TERMS_FORMAT, tokenize.ts). Run once on open, before the
 * full-text statistics are read: only rows whose text the change affects are rewritten (format 2
 * split Chinese, Japanese and Korean runs into character pairs, so rows holding such text), in
 * merges of many rows each. The marker records the format the store's terms are in.
 */
import type * as lancedb from '@lancedb/lancedb';
import type { Logger } from '../log.js';
import { CJK, terms } from '../text/tokenize.js';
import { FTS_COLUMN } from './lance-indexes.js';

/** Rows rewritten by one merge. */
const BATCH = 200;

/** Rows of `table` whose stored terms are not what the tokenizer makes of their text now. */
async function staleTerms(table: lancedb.Table): Promise<Map<string, string>> {
  const t = await table.query().select(['version_id', 'content', FTS_COLUMN]).toArrow();
  const ids = t.getChild('version_id')!;
  const content = t.getChild('content')!;
  const stored = t.getChild(FTS_COLUMN)!;
  const out = new Map<string, string>();
  for (let i = 0; i < t.numRows; i++) {
    const text = String(content.get(i));
    if (!CJK.test(text)) continue;
    const want = terms(text).join(' ');
    if (want !== String(stored.get(i))) out.set(String(ids.get(i)), want);
  }
  return out;
}

/**
 * Rewrite `search_terms` of the given rows (version id → terms), BATCH rows per merge: the source
 * holds only the key and that column (LanceDB's update cannot set a value per row in one statement).
 */
async function rewrite(table: lancedb.Table, wanted: ReadonlyMap<string, string>): Promise<void> {
  const entries = [...wanted];
  for (let i = 0; i < entries.length; i += BATCH) {
    const records = entries.slice(i, i + BATCH).map(([id, t]) => ({ version_id: id, [FTS_COLUMN]: t }));
    await table.mergeInsert('version_id').whenMatchedUpdateAll().execute(records);
  }
}

/**
 * Bring both tables' stored terms to TERMS_FORMAT. The current view keeps no text column of its
 * own: its rows take the terms the log's rows of the same version get (rows its full-text index
 * then no longer covers, which the store folds back in when it opens).
 */
export async function retermTables(versions: lancedb.Table, current: lancedb.Table, log: Logger): Promise<void> {
  const wanted = await staleTerms(versions);
  if (wanted.size === 0) return;
  log.info('re-indexing the full text of memories in Chinese, Japanese or Korean (one-time)', { versions: wanted.size });
  await rewrite(versions, wanted);
  const inView = await current.query().select(['version_id', FTS_COLUMN]).toArrow();
  const ids = inView.getChild('version_id')!;
  const stored = inView.getChild(FTS_COLUMN)!;
  const viewWanted = new Map<string, string>();
  for (let i = 0; i < inView.numRows; i++) {
    const want = wanted.get(String(ids.get(i)));
    if (want !== undefined && want !== String(stored.get(i))) viewWanted.set(String(ids.get(i)), want);
  }
  await rewrite(current, viewWanted);
}
