/**
 * A PostgreSQL store whose postings were made before Chinese, Japanese and Korean runs were split
 * into character pairs (terms format 1, no `terms_format` recorded) is re-indexed when it opens:
 * its Japanese memory is found by a Japanese query through BM25 in SQL, and the postings, document
 * frequencies and total length are those a store written today holds. On PGlite and on a real
 * PostgreSQL 15.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { PgStore, pgPoolClient, terms, words, type SqlClient } from '../../engine/index.js';
import { pgliteClient } from '../helpers/pglite.js';
import { sharedPostgres, skipWithoutPostgres } from '../helpers/postgres.js';
import { row } from '../helpers/rows.js';

const JAPANESE = 'リリースの手順: release.yml がタグの push で cargo publish を実行する';
const ENGLISH = 'we use pnpm for installs';

const skip = skipWithoutPostgres();
const pgCluster = sharedPostgres();
const clients: SqlClient[] = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

/** What the full-text tables hold for a store, in a comparable form. */
async function fullText(db: SqlClient, store: string): Promise<{ postings: string[]; df: string[]; total: number; docs: number }> {
  const p = await db.query<{ term: string; version_id: string; tf: number; doc_length: number }>(`SELECT term, version_id, tf, doc_length FROM ms_postings WHERE store = $1`, [store]);
  const d = await db.query<{ term: string; df: number }>(`SELECT term, df FROM ms_term_df WHERE store = $1`, [store]);
  const m = await db.query<{ total_length: number; docs: number }>(`SELECT total_length, docs FROM ms_store_meta WHERE store = $1`, [store]);
  return {
    postings: p.rows.map((r) => `${r.version_id} ${r.term} ${r.tf} ${r.doc_length}`).sort(),
    df: d.rows.map((r) => `${r.term} ${r.df}`).sort(),
    total: Number(m.rows[0]!.total_length),
    docs: Number(m.rows[0]!.docs),
  };
}

/** Rewrite a row's postings as format 1 made them (whole words), with the statistics to match, and forget the format. */
async function makeFormatOne(db: SqlClient, store: string, r: { version_id: string; memory_id: string; content: string }): Promise<void> {
  const old = words(r.content);
  const tf = new Map<string, number>();
  for (const t of old) tf.set(t, (tf.get(t) ?? 0) + 1);
  await db.query(`DELETE FROM ms_postings WHERE store = $1 AND version_id = $2`, [store, r.version_id]);
  for (const [t, n] of tf) await db.query(`INSERT INTO ms_postings (store, term, version_id, memory_id, tf, doc_length) VALUES ($1, $2, $3, $4, $5, $6)`, [store, t, r.version_id, r.memory_id, n, old.length]);
  await db.query(`DELETE FROM ms_term_df WHERE store = $1`, [store]);
  await db.query(`INSERT INTO ms_term_df (store, term, df) SELECT store, term, count(*) FROM ms_postings WHERE store = $1 GROUP BY store, term`, [store]);
  await db.query(`UPDATE ms_store_meta SET terms_format = 1, total_length = (SELECT sum(l) FROM (SELECT DISTINCT version_id, doc_length AS l FROM ms_postings WHERE store = $1) x) WHERE store = $1`, [store]);
}

function suite(name: string, client: () => Promise<SqlClient>, opts: { skip?: string | boolean } = {}): void {
  describe(name, opts, () => {
    it('re-indexes the Japanese memory on open; the full text is then what a store written today holds', async () => {
      const db = await client();
      const ja = row({ content: JAPANESE });
      const en = row({ content: ENGLISH });
      const open = async (store: string): Promise<PgStore> => {
        const s = new PgStore({ db, store, dim: 16, residentText: 'sql', pgvector: false });
        await s.open();
        return s;
      };
      const today = await open('today');
      await today.append([ja, en].map((r) => ({ ...r })));
      await today.close();
      const wanted = await fullText(db, 'today');

      let s = await open('old');
      await s.append([ja, en].map((r) => ({ ...r })));
      await s.close();
      await makeFormatOne(db, 'old', ja);
      const stale = await fullText(db, 'old');
      assert.notDeepEqual(stale.postings, wanted.postings, 'the store holds format-1 postings');
      assert.ok(!stale.df.some((d) => d.startsWith('手順 ')), 'no character pair is indexed yet');

      s = await open('old');
      try {
        assert.deepEqual(await fullText(db, 'old'), wanted, 'postings, frequencies and total length as written today');
        const fmt = await db.query<{ terms_format: number }>(`SELECT terms_format FROM ms_store_meta WHERE store = 'old'`);
        assert.equal(Number(fmt.rows[0]!.terms_format), 2);
        const hits = await s.search({ text: 'リリース手順', vector: null, model: null, filter: {}, validAt: Date.now(), limit: 5 });
        assert.deepEqual(hits.map((h) => h.row.content), [JAPANESE], 'found by a Japanese query');
        assert.ok(terms('リリース手順').every((t) => wanted.df.some((d) => d.startsWith(`${t} `))));
      } finally {
        await s.close();
      }
      // Opening again changes nothing.
      s = await open('old');
      await s.close();
      assert.deepEqual(await fullText(db, 'old'), wanted);
    });
  });
}

suite('PgStore re-indexes older terms on PGlite', async () => {
  const c = await pgliteClient();
  clients.push(c);
  return c;
});
suite(
  'PgStore re-indexes older terms on PostgreSQL 15',
  async () => {
    const c = pgPoolClient(await (await pgCluster()).createDatabase());
    clients.push(c);
    return c;
  },
  { skip },
);
