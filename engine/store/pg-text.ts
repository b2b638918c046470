/**
 * PgStore's full text: how the postings and document frequencies change when rows stop or start
 * being current, and BM25 over the current view as one SQL statement with the engine's formula.
 */
import { queryTerms, terms } from '../text/tokenize.js';
import { filterSql, SqlParams, validSql } from './pg-filter.js';
import { ROW_COLS, toRow, type Row } from './pg-rows.js';
import type { SqlQueryable } from './sql-client.js';
import type { StoreHit, StoreSearch } from './types.js';

/** Rows of a full-text search joined to their versions before the filter (at least; 4× the limit). */
const TEXT_POOL_MIN = 100;

/** A current row as the full-text statistics see it. */
export interface CurrentDoc {
  version_id: string;
  memory_id: string;
  content: string;
}

/** How the full-text statistics change: documents, total length, per-term frequencies, new postings. */
export interface TermDelta {
  docs: number;
  total: number;
  df: [string, number][];
  postings: { terms: string[]; ids: string[]; memories: string[]; tfs: number[]; lengths: number[] };
}

/** How the full-text statistics change when `removed` stop and `added` start being current rows. */
export function termDelta(removed: readonly CurrentDoc[], added: readonly CurrentDoc[], termsOf: (r: CurrentDoc) => string[] = (r) => terms(r.content)): TermDelta {
  const df = new Map<string, number>();
  let docs = 0;
  let total = 0;
  for (const r of removed) {
    const ts = termsOf(r);
    docs--;
    total -= ts.length;
    for (const t of new Set(ts)) df.set(t, (df.get(t) ?? 0) - 1);
  }
  const postings = { terms: [] as string[], ids: [] as string[], memories: [] as string[], tfs: [] as number[], lengths: [] as number[] };
  for (const r of added) {
    const ts = termsOf(r);
    docs++;
    total += ts.length;
    const tf = new Map<string, number>();
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) {
      df.set(t, (df.get(t) ?? 0) + 1);
      postings.terms.push(t);
      postings.ids.push(r.version_id);
      postings.memories.push(r.memory_id);
      postings.tfs.push(n);
      postings.lengths.push(ts.length);
    }
  }
  return { docs, total, df: [...df].filter(([, d]) => d !== 0), postings };
}

/**
 * BM25 over the current view with the engine's formula (k1 = 1.2, b = 0.75), in one statement.
 * Ties rank as in the embedded store's top-k, which meets rows term by term in query order and
 * each term's rows oldest first: by the first query term the row holds, then by seq. Scores are
 * compared rounded to 1e-9 because SQL sums a row's terms in no set order (LoCoMo has many
 * exact ties).
 */
export async function textSql(db: SqlQueryable, store: string, req: StoreSearch): Promise<StoreHit[]> {
  const q = queryTerms(req.text ?? '');
  if (q.length === 0 || req.limit <= 0) return [];
  const p = new SqlParams([store, q]);
  const where = [filterSql(req.filter, p), validSql(req.validAt, p)].join(' AND ');
  const limit = p.add(Math.trunc(req.limit));
  const scored = `
    WITH m AS (SELECT docs::float8 AS docs, CASE WHEN docs > 0 AND total_length > 0 THEN total_length::float8 / docs ELSE 1::float8 END AS avg
               FROM ms_store_meta WHERE store = $1),
         q AS (SELECT d.term, ln(1::float8 + (m.docs - d.df + 0.5::float8) / (d.df + 0.5::float8)) AS idf
               FROM ms_term_df d CROSS JOIN m WHERE d.store = $1 AND d.term = ANY($2::text[])),
         s AS (SELECT p.version_id, p.memory_id, min(array_position($2::text[], p.term)) AS first_term,
                      sum(q.idf * p.tf * 2.2::float8 / (p.tf + 1.2::float8 * (0.25::float8 + (0.75::float8 * p.doc_length) / m.avg))) AS score
               FROM ms_postings p JOIN q ON q.term = p.term CROSS JOIN m
               WHERE p.store = $1 GROUP BY p.version_id, p.memory_id)`;
  const rank = `ORDER BY round(s.score::numeric, 9) DESC, s.first_term, v.seq LIMIT ${limit}`;
  const join = `JOIN ms_versions v ON v.store = $1 AND v.memory_id = s.memory_id AND v.version_id = s.version_id WHERE v.is_current AND s.score > 0 AND ${where}`;
  // Most of the statement's time went into joining every scoring posting to its version (at 20k
  // rows, 6k lookups for four common terms): first only the best `pool` by score are joined.
  const pool = Math.max(TEXT_POOL_MIN, Math.trunc(req.limit) * 4);
  const first = await db.query<Row & { _r: number; _n: number; _floor: number }>(
    `${scored},
         top AS (SELECT * FROM s WHERE score > 0 ORDER BY score DESC LIMIT ${pool}),
         n AS (SELECT count(*)::int AS n, min(round(score::numeric, 9))::float8 AS floor FROM top)
    SELECT ${ROW_COLS}, s.score, round(s.score::numeric, 9)::float8 AS _r, n.n AS _n, n.floor AS _floor
    FROM top s CROSS JOIN n ${join} ${rank}`,
    p.values,
  );
  const rows = first.rows;
  const last = rows[rows.length - 1];
  // Exact when the pool held every scoring row, or when `limit` rows passed the filter and the
  // last of them scores above the pool's floor (no row left out can tie or beat it).
  const exact = last !== undefined && (Number(last._n) < pool || (rows.length >= req.limit && Number(last._r) > Number(last._floor)));
  const out = exact ? rows : (await db.query(`${scored} SELECT ${ROW_COLS}, s.score FROM s ${join} ${rank}`, p.values)).rows;
  return out.map((x) => ({ row: toRow(x), vectorScore: null, textScore: Number(x.score) }));
}
