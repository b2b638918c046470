/**
 * The full-text channel of a search of the past (`StoreSearch.knownAt`) over the version log:
 * exact BM25 over the versions that can match, scored here with the engine's formula, as
 * InMemoryStore and PgStore score theirs.
 *
 * The log has no full-text index: only these searches would read one, they are rare (the API's
 * `known_at`; recall never asks), and LanceDB rewrote it on every optimize of the log (42 bytes a
 * version at 10k, and a replaced copy after each pass). Instead LanceDB scans the log's stored
 * terms twice: once for the statistics (how many versions match the filters, their total length),
 * once for the versions holding a query term as a whole word. At 10k versions that is a few ms
 * of scanning; it grows with the log (the index did not).
 */
import type * as lancedb from '@lancedb/lancedb';
import { bm25Idf, bm25Term } from '../text/term-stats.js';
import { queryTerms } from '../text/tokenize.js';
import { sqlNumber, sqlString } from './lance-filter.js';
import { FTS_COLUMN } from './lance-indexes.js';
import { fromRecord, rowColumns, type LanceRecord } from './lance-rows.js';
import type { StoreHit } from './types.js';

/** Spaces between a row's stored terms (joined by single spaces): its term count less one, unless it has none. */
const SPACES = `length(${FTS_COLUMN}) - length(replace(${FTS_COLUMN}, ' ', ''))`;

/** Rows of the log matching `where` whose stored terms include `term` as a whole term. */
function holds(term: string): string {
  return `concat(' ', ${FTS_COLUMN}, ' ') LIKE ${sqlString(`% ${term} %`)}`;
}

export async function pastTextHits(versions: lancedb.Table, q: { text: string; where: string; limit: number }): Promise<StoreHit[]> {
  const qTerms = queryTerms(q.text);
  if (qTerms.length === 0 || q.limit <= 0) return [];
  const lengths = await versions.query().where(q.where).select({ spaces: SPACES, chars: `length(${FTS_COLUMN})` }).toArrow();
  const docs = lengths.numRows;
  if (docs === 0) return [];
  const spaces = lengths.getChild('spaces')!;
  const chars = lengths.getChild('chars')!;
  let total = 0;
  for (let i = 0; i < docs; i++) if (Number(chars.get(i)) > 0) total += Number(spaces.get(i)) + 1;
  const avg = total / docs || 1;
  const matched = await versions
    .query()
    .where(`(${q.where}) AND (${qTerms.map(holds).join(' OR ')})`)
    .select(['seq', FTS_COLUMN])
    .toArrow();
  const seqs = matched.getChild('seq')!;
  const texts = matched.getChild(FTS_COLUMN)!;
  const wanted = new Set(qTerms);
  const df = new Map<string, number>();
  const tfs: { seq: number; tf: Map<string, number>; length: number }[] = [];
  for (let i = 0; i < matched.numRows; i++) {
    const terms = String(texts.get(i)).split(' ');
    const tf = new Map<string, number>();
    for (const t of terms) if (wanted.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    tfs.push({ seq: Number(seqs.get(i)), tf, length: terms.length });
  }
  const scored = tfs
    .map(({ seq, tf, length }) => {
      let s = 0;
      for (const [t, f] of tf) s += bm25Term(bm25Idf(docs, df.get(t)!), f, length, avg);
      return { seq, score: s };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, q.limit);
  if (scored.length === 0) return [];
  const score = new Map(scored.map((x) => [x.seq, x.score]));
  const rows = (await versions
    .query()
    .where(`seq IN (${scored.map((x) => sqlNumber(x.seq)).join(', ')})`)
    .select(rowColumns('log'))
    .toArray()) as LanceRecord[];
  return rows.map(fromRecord).map((row) => ({ row, vectorScore: null, textScore: score.get(row.seq)! }));
}
