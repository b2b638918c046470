/**
 * PgStore against a real PostgreSQL 15 (started here, in a temp dir) and against PGlite with
 * pgvector: the shared MemoryStore acceptance suite over every vector path, and rankings equal to
 * the embedded store's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import path from 'node:path';
import { FakeEmbedder, LanceStore, PgStore, pgPoolClient, type MemoryStore, type SqlClient } from '../../engine/index.js';
import { sharedPostgres, skipWithoutPostgres } from '../helpers/postgres.js';
import { liveScanSessions } from '../../engine/store/vector-scan.js';
import { pgliteClient } from '../helpers/pglite.js';
import { row } from '../helpers/rows.js';
import { tempDir } from '../helpers/tmp.js';
import { storeAcceptance } from './store-acceptance.js';

const skip = skipWithoutPostgres();
const pgCluster = sharedPostgres();
const clients: SqlClient[] = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

async function pgClient(url?: string): Promise<SqlClient> {
  const c = pgPoolClient(url ?? (await (await pgCluster()).createDatabase()));
  clients.push(c);
  return c;
}

if (skip) {
  describe('PgStore on PostgreSQL', { skip }, () => {
    it('needs PostgreSQL', () => {});
  });
} else {
  storeAcceptance('PgStore on PostgreSQL 15 (resident view for both channels)', async () => new PgStore({ db: await pgClient(), store: 'p1', dim: 16 }));
  storeAcceptance('PgStore on PostgreSQL 15 (resident vector view, BM25 in SQL)', async () => new PgStore({ db: await pgClient(), store: 'p1', dim: 16, residentText: 'sql' }));
}
storeAcceptance('PgStore on PGlite with pgvector (HNSW)', async () => {
  const c = await pgliteClient();
  clients.push(c);
  return new PgStore({ db: c, store: 'p1', dim: 16 });
});

describe('PgStore', { skip }, () => {
  const embedder = new FakeEmbedder(16);
  let db: SqlClient;
  let dbUrl: string;
  before(async () => {
    dbUrl = await (await pgCluster()).createDatabase();
    db = await pgClient(dbUrl);
  });

  it('says which vector path it uses', async () => {
    const s = new PgStore({ db, store: 'path', dim: 16 });
    await s.open();
    assert.equal(s.vectorPath, 'resident', 'Debian PostgreSQL 15 has no pgvector');
    assert.equal((await s.stats()).vectorIndex, false);
    await s.close();
    const lite = await pgliteClient();
    clients.push(lite);
    const v = new PgStore({ db: lite, store: 'path', dim: 16 });
    await v.open();
    assert.equal(v.vectorPath, 'pgvector');
    await v.close();
  });

  it('releases its vector scan runtime session when closed, and opens another when searched again', async () => {
    // 700 rows × 384 dimensions is past what a JavaScript loop scans, so the search loads the runtime.
    const dim = 384;
    const unit = (seed: number): Float32Array => {
      const v = Float32Array.from({ length: dim }, (_, i) => Math.sin(seed * 7.3 + i));
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    const s = new PgStore({ db, store: 'scan-release', dim });
    await s.open();
    await s.append(Array.from({ length: 700 }, (_, i) => row({ content: `scan row ${i}`, vector: unit(i), embed_model: 'm' })));
    const before = liveScanSessions();
    const probe = async (): Promise<string | undefined> =>
      (await s.search({ text: null, vector: unit(42), model: 'm', filter: {}, validAt: Date.now() + 10_000, limit: 3 }))[0]?.row.content;
    assert.equal(await probe(), 'scan row 42');
    assert.equal(liveScanSessions(), before + 1, 'the search opened a runtime session');
    await s.close();
    assert.equal(liveScanSessions(), before, 'close released it');
    await s.open();
    assert.equal(await probe(), 'scan row 42');
    assert.equal(liveScanSessions(), before + 1);
    await s.close();
    assert.equal(liveScanSessions(), before);
  });

  it('trims the change log at most once a minute (upkeep runs every 16 commits), and when forced', async () => {
    const seen: string[] = [];
    const counting: SqlClient = {
      query: (text, params) => {
        seen.push(text);
        return db.query(text, params);
      },
      transaction: (fn) => db.transaction(fn),
      close: async () => {},
    };
    const s = new PgStore({ db: counting, store: 'trims', dim: 16 });
    await s.open();
    await s.append([row({ content: 'a change to trim some day' })]);
    const heads = (): number => seen.filter((q) => q.includes('SELECT change_no FROM ms_store_meta')).length;
    const before = heads();
    for (let i = 0; i < 5; i++) await s.maintain();
    assert.equal(heads() - before, 1, 'one look at the change log for five upkeeps in a row');
    await s.maintain({ force: true });
    assert.equal(heads() - before, 2);
    await s.close();
  });

  it('appends any number of new memories in four statements under the lock (lock, read, write, and what the host adds)', async () => {
    const statements: string[] = [];
    const counting: SqlClient = {
      query: (text, params) => db.query(text, params),
      transaction: (fn) =>
        db.transaction((tx) =>
          fn({
            query: (text, params) => {
              statements.push(text);
              return tx.query(text, params);
            },
          }),
        ),
      close: async () => {},
    };
    const s = new PgStore({ db: counting, store: 'statements', dim: 16 });
    await s.open();
    s.alsoInTransaction(async (tx) => void (await tx.query('SELECT 1')));
    for (const n of [1, 12]) {
      statements.length = 0;
      const rows = Array.from({ length: n }, (_, i) => row({ content: `statement count probe ${n} ${i}` }));
      const stored = await s.append(rows);
      assert.equal(stored.length, n);
      assert.equal(statements.length, 4, `${n} rows: ${statements.length} statements`);
    }
    // What they wrote is all there: rows, current view, full-text statistics.
    const hits = await s.search({ text: 'statement count probe', vector: null, model: null, filter: {}, validAt: Date.now() + 1000, limit: 50 });
    assert.equal(hits.length, 13);
    assert.equal((await s.stats()).current, 13);
    await s.close();
  });

  it('reads vectors back bit for bit (binary transfer of float4[])', async () => {
    const s = new PgStore({ db, store: 'bits', dim: 16 });
    await s.open();
    const vector = Float32Array.from([1.1, -7.25e-6, 1e-40, 3.4e38, -2.5, 0.1, 1 / 3, Math.PI, ...Array.from({ length: 8 }, (_, i) => i / 7)]);
    const [stored] = await s.append([row({ content: 'bits of a vector', vector, embed_model: 'm' })]);
    const [back] = await s.versionsOf([stored!.memory_id]);
    assert.deepEqual(Array.from(back!.vector!), Array.from(vector));
    const [none] = await s.append([row({ content: 'no vector here' })]);
    assert.equal((await s.versionsOf([none!.memory_id]))[0]!.vector, null);
    await s.close();
  });

  it('loads a resident view page by page from one snapshot: every current row once, while writes go on', async () => {
    const writer = new PgStore({ db, store: 'paged', dim: 16 });
    await writer.open();
    const first = await writer.append(Array.from({ length: 30 }, (_, i) => row({ content: `paged otter ${i}` })));
    // Some memories get a second version (their first one stops being current).
    await writer.append(first.slice(0, 10).map((r) => ({ ...row({ content: `paged otter ${r.content.split(' ')[2]} revised`, memory_id: r.memory_id }), version: 2, tx: 2 })));
    const reader = new PgStore({ db: await pgClient(dbUrl), store: 'paged', dim: 16, loadPage: 7 });
    await reader.open();
    const [hits] = await Promise.all([
      reader.search({ text: 'paged otter', vector: null, model: null, filter: {}, validAt: Date.now() + 10_000, limit: 100 }),
      writer.append([row({ content: 'paged otter written meanwhile' })]),
    ]);
    const ids = hits.map((h) => h.row.memory_id);
    assert.equal(new Set(ids).size, ids.length, 'no memory twice');
    assert.ok(ids.length === 30 || ids.length === 31, `${ids.length} current rows`);
    assert.equal(hits.filter((h) => h.row.content.endsWith('revised')).length, 10);
    const again = await reader.search({ text: 'paged otter', vector: null, model: null, filter: {}, validAt: Date.now() + 10_000, limit: 100 });
    assert.equal(again.length, 31, 'the write made meanwhile is found by the next search');
    await reader.close();
    await writer.close();
  });

  it("puts this process's own writes into its resident view as they commit: the next search reads nothing back", async () => {
    const sent: string[] = [];
    const counting: SqlClient = {
      query: (text, params) => (sent.push(text), db.query(text, params)),
      transaction: (fn) => db.transaction(fn),
      close: async () => {},
    };
    const s = new PgStore({ db: counting, store: 'own-writes', dim: 16 });
    await s.open();
    await s.append([row({ content: 'heron one' })]);
    const search = async (changeSeen?: number) =>
      (await s.search({ text: 'heron', vector: null, model: null, filter: {}, validAt: Date.now() + 10_000, limit: 50, changeSeen })).map((h) => h.row.content).sort();
    assert.deepEqual(await search(), ['heron one']);
    const [added] = await s.append([row({ content: 'heron two' })]);
    await s.append([{ ...row({ content: 'heron one, revised', memory_id: (await s.list({}, { limit: 10 })).find((r) => r.content === 'heron one')!.memory_id }), version: 2, tx: 2 }]);
    await s.append([{ ...row({ content: '', memory_id: added!.memory_id, deleted: true }), version: 2, tx: 2 }]);
    const head = Number((await db.query<{ n: number }>(`SELECT change_no AS n FROM ms_store_meta WHERE store = 'own-writes'`)).rows[0]!.n);
    sent.length = 0;
    assert.deepEqual(await search(head), ['heron one, revised'], 'the revision replaced its first version, the tombstone removed its memory');
    assert.deepEqual(sent, [], 'nothing read back');
    await s.close();
  });

  it('keeps stores in one database apart', async () => {
    const a = new PgStore({ db, store: 'apart-a', dim: 16 });
    const b = new PgStore({ db, store: 'apart-b', dim: 16 });
    await a.open();
    await b.open();
    await a.append([row({ content: 'only in store a capybara' })]);
    assert.equal((await b.search({ text: 'capybara', vector: null, model: null, filter: {}, validAt: Date.now(), limit: 5 })).length, 0);
    assert.equal((await b.stats()).versions, 0);
    assert.equal((await a.stats()).lastSeq, 1);
    assert.equal((await b.append([row()]))[0]!.seq, 1, 'each store numbers its own seq');
  });

  it('shows a write to every search that began after its commit, while other searches are still catching up', async () => {
    const a = new PgStore({ db, store: 'busy-replicas', dim: 16 });
    const b = new PgStore({ db: await pgClient(dbUrl), store: 'busy-replicas', dim: 16 });
    await a.open();
    await b.open();
    const found = async (s: PgStore, word: string): Promise<boolean> => (await s.search({ text: word, vector: null, model: null, filter: {}, validAt: Date.now(), limit: 3 })).some((h) => h.row.content.includes(word));
    // Searches on B all along, so a catch-up is nearly always running when a write commits.
    let writing = true;
    const busy = Array.from({ length: 4 }, async () => {
      while (writing) await found(b, 'background');
    });
    try {
      for (let i = 0; i < 20; i++) {
        await a.append([row({ content: `busy replica note busyword${i}` })]);
        // Began after the commit: must see it, whatever catch-up B was running when it began.
        assert.ok(await found(b, `busyword${i}`), `write ${i} is seen by a search that began after it`);
      }
    } finally {
      writing = false;
      await Promise.all(busy);
    }
  });

  it('shows a write through one instance to a vector search through another at once', async () => {
    // Two pools on one database: two replicas.
    const a = new PgStore({ db, store: 'replicas', dim: 16 });
    const b = new PgStore({ db: await pgClient(dbUrl), store: 'replicas', dim: 16 });
    await a.open();
    await b.open();
    const q = async (s: PgStore, text: string): Promise<string[]> =>
      (await s.search({ text: null, vector: await embedder.embedQuery(text), model: embedder.model, filter: {}, validAt: Date.now(), limit: 3 })).map((h) => h.row.content);
    assert.deepEqual(await q(b, 'anything'), []);
    const r = row({ content: 'replica visibility tapir', vector: await embedder.embedDocuments(['replica visibility tapir']).then((v) => v[0]!), embed_model: embedder.model });
    await a.append([r]);
    assert.deepEqual(await q(b, 'replica visibility tapir'), ['replica visibility tapir']);
    await a.append([{ ...r, version_id: r.version_id.replace(/.{4}$/, 'f00d'), version: 2, tx: 2, content: '', deleted: true, recorded_at: r.recorded_at + 1 }]);
    assert.deepEqual(await q(b, 'replica visibility tapir'), [], 'a forget on A is gone from B at once');
    const c = row({ content: 'vector set later okapi' });
    await b.append([c]);
    assert.deepEqual(await q(b, 'vector set later okapi'), []);
    await a.setVectors([{ version_id: c.version_id, vector: await embedder.embedQuery('vector set later okapi'), model: embedder.model }]);
    assert.deepEqual(await q(b, 'vector set later okapi'), ['vector set later okapi']);
    await a.purge([c.memory_id]);
    assert.deepEqual(await q(b, 'vector set later okapi'), []);
  });

  /** Scores equal to 1e-9 are a tie (summation order moves the last bits); ties rank by id. */
  const tieSafe = (s: number): number => Math.round(s * 1e9);

  it('ranks full text in SQL like the embedded LanceStore when the best-by-score pool is cut short by a filter or a tie', async () => {
    const mem: MemoryStore = new LanceStore({ dir: path.join(tempDir('lance-'), 'db'), dim: 16 });
    const sql = new PgStore({ db, store: 'pool', dim: 16, residentText: 'sql' });
    for (const s of [mem, sql]) await s.open();
    const words = 'deploy pipeline cache redis flaky review'.split(' ');
    let seed = 3;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    // 600 short texts over six words: many exact ties, and one rare user whose rows score low.
    const rows = Array.from({ length: 600 }, (_, i) =>
      row({ content: Array.from({ length: 2 + Math.floor(rnd() * 4) }, () => words[Math.floor(rnd() * words.length)]).join(' '), user_id: i % 50 === 0 ? 'rare' : 'common' }),
    );
    for (const s of [mem, sql]) for (let i = 0; i < rows.length; i += 200) await s.append(rows.slice(i, i + 200));
    for (const [query, filter, limit] of [
      ['deploy pipeline', {}, 5],
      ['redis', {}, 10],
      ['flaky review cache', { user_id: 'rare' }, 5],
      ['deploy', { user_id: 'rare' }, 3],
      ['nothing matches this', {}, 5],
    ] as const) {
      const req = { text: query, vector: null, model: null, filter, validAt: Date.now(), limit };
      const [want, got] = await Promise.all([mem.search(req), sql.search(req)]);
      const ids = (hits: typeof want): [string, number][] => hits.map((h) => [h.row.memory_id, h.textScore!]);
      assert.equal(got.length, want.length, `${query}: as many hits`);
      ids(got).forEach(([id, score], i) => {
        assert.equal(id, ids(want)[i]![0], `${query}: rank ${i + 1}`);
        assert.ok(Math.abs(score - ids(want)[i]![1]) < 1e-6, `${query}: score at rank ${i + 1}`);
      });
    }
  });

  it('ranks full text and vectors exactly like the embedded LanceStore (ids, order, scores within 1e-6)', async () => {
    const mem: MemoryStore = new LanceStore({ dir: path.join(tempDir('lance-'), 'db'), dim: 16 });
    const pgs = new PgStore({ db, store: 'parity', dim: 16 });
    const lite = await pgliteClient();
    clients.push(lite);
    const pgv = new PgStore({ db: lite, store: 'parity', dim: 16 });
    const pgsql = new PgStore({ db, store: 'parity-sql', dim: 16, residentText: 'sql' });
    const stores = [mem, pgs, pgsql, pgv];
    for (const s of stores) await s.open();
    const words = 'deploy pipeline session store postgres redis cache webhook retry queue worker index vector search token budget release branch review test flaky'.split(' ');
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const rows = [];
    for (let i = 0; i < 120; i++) {
      const content = Array.from({ length: 4 + Math.floor(rnd() * 12) }, () => words[Math.floor(rnd() * words.length)]).join(' ');
      rows.push(row({ content, vector: (await embedder.embedDocuments([content]))[0]!, embed_model: embedder.model }));
    }
    // Some updates and forgets, so the statistics have moved.
    const later = rows.slice(0, 10).map((r, i) => ({ ...r, version_id: r.version_id.replace(/.{4}$/, 'e0e0'), version: 2, tx: 2, content: i % 2 ? `${r.content} release` : '', deleted: i % 2 === 0, recorded_at: r.recorded_at + 1 }));
    for (const s of stores) {
      for (let i = 0; i < rows.length; i += 17) await s.append(rows.slice(i, i + 17));
      await s.append(later);
    }
    for (const query of ['deploy pipeline', 'session store postgres', 'flaky test review', 'vector search token budget release', 'redis']) {
      const req = { text: query, vector: await embedder.embedQuery(query), model: embedder.model, filter: {}, validAt: Date.now(), limit: 500 }; // every match: ties at a cut-off have no one right order
      const [want, ...got] = await Promise.all(stores.map((s) => s.search(req)));
      const textRank = (hits: typeof want): [string, number][] =>
        hits!
          .filter((h) => h.textScore !== null)
          .sort((a, b) => tieSafe(b.textScore!) - tieSafe(a.textScore!) || a.row.version_id.localeCompare(b.row.version_id))
          .map((h) => [h.row.version_id, h.textScore!]);
      const vecRank = (hits: typeof want): [string, number][] =>
        hits!
          .filter((h) => h.vectorScore !== null)
          .sort((a, b) => tieSafe(b.vectorScore!) - tieSafe(a.vectorScore!) || a.row.version_id.localeCompare(b.row.version_id))
          .map((h) => [h.row.version_id, h.vectorScore!]);
      for (const g of got) {
        for (const rank of [textRank, vecRank]) {
          const w = rank(want);
          const h = rank(g);
          const what = `${query} (${rank === textRank ? 'text' : 'vector'})`;
          assert.ok(w.length > 0, `${what}: the reference finds something`);
          assert.equal(h.length, w.length, `${what}: as many hits`);
          const ref = new Map(w);
          h.forEach(([id, score], i) => {
            assert.ok(ref.has(id), `${what}: ${id} is not a reference hit`);
            assert.ok(Math.abs(score - ref.get(id)!) < 1e-6, `${what}: score of ${id}: ${score} vs ${ref.get(id)}`);
            // Same order: where the ids differ, the two scores tie (within 1e-6).
            if (id !== w[i]![0]) assert.ok(Math.abs(score - w[i]![1]) < 1e-6, `${what}: rank ${i} is ${id} (${score}), the reference has ${w[i]![0]} (${w[i]![1]})`);
          });
        }
      }
    }
  });
});
