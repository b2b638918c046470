/** LanceStore behaviour beyond the shared contract. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import * as lancedb from '@lancedb/lancedb';
import { FakeEmbedder, InMemoryStore, LanceStore, MemoryEngine, ResidentBudget } from '../../engine/index.js';
import { row } from '../helpers/rows.js';
import { uuidv7 } from '../../engine/index.js';
import { tempDir } from '../helpers/tmp.js';

describe('LanceStore', () => {
  it('reports fragments and unindexed rows, and maintenance folds them in', async () => {
    const store = new LanceStore({ dir: path.join(tempDir('lance-diag-'), 'db'), dim: 8, residentBudget: new ResidentBudget(0) });
    await store.open();
    try {
      for (let i = 0; i < 5; i++) await store.append([row({ content: `diagnostics probe ${i}` })]);
      const before = (await store.diagnostics()).find((d) => d.table === 'current')!;
      assert.equal(before.rows, 5);
      assert.ok(before.fragments >= 5, `one fragment per append (got ${before.fragments})`);
      // The full-text index is built with the first row; the next four are outside it.
      assert.equal(before.unindexed.search_terms, 4);
      assert.equal(before.indexTypes.search_terms, 'FTS');
      const running = store.maintain({ force: true });
      await store.maintenanceIdle();
      assert.equal((await running).compacted, true);
      const after = (await store.diagnostics()).find((d) => d.table === 'current')!;
      // LanceDB keeps the fragment the full-text index was built on apart from newer ones.
      assert.ok(after.fragments <= 2, `compacted (got ${after.fragments})`);
      assert.equal(after.unindexed.search_terms, 0);
    } finally {
      await store.close();
    }
  });

  it('compacts the current view after compactEveryCommits commits and the version log at a quarter of that rate', async () => {
    const store = new LanceStore({ dir: path.join(tempDir('lance-policy-'), 'db'), dim: 8, compactEveryCommits: 3, residentBudget: new ResidentBudget(0) });
    await store.open();
    const fragments = async (): Promise<Record<string, number>> => Object.fromEntries((await store.diagnostics()).map((d) => [d.table, d.fragments]));
    try {
      await store.append([row({ content: 'policy 0' })]);
      await store.append([row({ content: 'policy 1' })]);
      assert.equal((await store.maintain()).compacted, false, 'two commits: nothing due');
      await store.append([row({ content: 'policy 2' })]);
      assert.equal((await store.maintain()).compacted, true);
      const compacted = await fragments();
      assert.equal(compacted.versions, 3, 'the version log is not due yet');
      assert.ok(compacted.current! <= 2, JSON.stringify(compacted));
      for (let i = 3; i < 12; i++) await store.append([row({ content: `policy ${i}` })]);
      assert.equal((await fragments()).versions, 12);
      await store.maintain();
      // LanceDB keeps a fragment covered by the indexes apart from newer ones: at most two remain.
      const after = await fragments();
      assert.ok(after.versions! <= 2 && after.current! <= 2, JSON.stringify(after));
    } finally {
      await store.close();
    }
  });

  it('optimizes a view searched in memory at most once per retention', async () => {
    const store = new LanceStore({ dir: path.join(tempDir('lance-spaced-'), 'db'), dim: 8, compactEveryCommits: 2, retainVersionsMs: 600 });
    await store.open();
    const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
    try {
      assert.ok(store.residentRows() !== null);
      await wait(650);
      for (let i = 0; i < 2; i++) await store.append([row({ content: `spaced ${i}` })]);
      assert.equal((await store.maintain()).compacted, true, 'due: two commits, and the retention has passed since open');
      for (let i = 2; i < 4; i++) await store.append([row({ content: `spaced ${i}` })]);
      assert.equal((await store.maintain()).compacted, false, 'two more commits, but within the retention of the last optimize');
      const fragments = async (): Promise<number> => (await store.diagnostics()).find((d) => d.table === 'current')!.fragments;
      assert.ok((await fragments()) > 2);
      // Past the retention, a pass (the store's own prune pass, or this one) optimizes it.
      await wait(700);
      await store.maintenanceIdle();
      await store.maintain();
      assert.ok((await fragments()) <= 2, `compacted (got ${await fragments()})`);
      for (let i = 4; i < 6; i++) await store.append([row({ content: `spaced ${i}` })]);
      assert.equal((await store.maintain({ force: true })).compacted, true, 'a forced pass is never held back');
    } finally {
      await store.close();
    }
  });

  it('deletes what a compaction replaced once past the retention, though no write comes after it', async () => {
    const dir = path.join(tempDir('lance-prune-'), 'db');
    const store = new LanceStore({ dir, dim: 8, retainVersionsMs: 300 });
    const dataBytes = (table: string): number => {
      const d = path.join(dir, `${table}.lance`, 'data');
      return fs.readdirSync(d).reduce((n, f) => n + fs.statSync(path.join(d, f)).size, 0);
    };
    await store.open();
    try {
      for (let i = 0; i < 8; i++) await store.append(Array.from({ length: 50 }, (_, k) => row({ content: `prune probe ${i} ${k} ${'filler '.repeat(20)}` })));
      assert.equal((await store.maintain({ force: true })).compacted, true);
      // The compacted copy and the fragments it replaced are both on disk: the version before the
      // compaction, which still references them, is younger than the retention.
      const compacted = { current: dataBytes('current'), versions: dataBytes('versions') };
      // Nothing calls maintain() again: the store deletes it by itself once past the retention.
      // Each pass deletes what the one before replaced, and LanceDB may fold the last fragments
      // together on the way, so it takes a few passes.
      const files = (table: string): number => fs.readdirSync(path.join(dir, `${table}.lance`, 'data')).length;
      const deadline = Date.now() + 10_000;
      while ((files('current') > 1 || files('versions') > 1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual([files('current'), files('versions')], [1, 1], 'one data file per table is left');
      for (const table of ['current', 'versions'] as const) assert.ok(dataBytes(table) < compacted[table] * 0.5, `${table}: ${compacted[table]} → ${dataBytes(table)} bytes`);
      // The next passes have nothing left to delete, and the data is whole.
      await store.maintain();
      assert.equal((await store.stats()).current, 400);
      const hits = await store.search({ text: 'prune probe', vector: null, model: null, filter: {}, validAt: Date.now(), limit: 5 });
      assert.equal(hits.length, 5);
    } finally {
      await store.close();
    }
  });

  it('works within small cache bounds', async () => {
    const store = new LanceStore({ dir: path.join(tempDir('lance-cache-'), 'db'), dim: 8, indexCacheBytes: 1 << 20, metadataCacheBytes: 1 << 20, residentBudget: new ResidentBudget(0) });
    await store.open();
    try {
      await store.append([row({ content: 'bounded cache wombat' }), row({ content: 'another row' })]);
      await store.maintain({ force: true });
      const hits = await store.search({ text: 'wombat', vector: null, model: null, filter: {}, validAt: Date.now(), limit: 5 });
      assert.deepEqual(
        hits.map((h) => h.row.content),
        ['bounded cache wombat'],
      );
    } finally {
      await store.close();
    }
  });

  it('runs a forced maintenance even when a routine one is already running', async () => {
    const store = new LanceStore({ dir: path.join(tempDir('lance-force-'), 'db'), dim: 8, compactEveryCommits: 2, residentBudget: new ResidentBudget(0) });
    await store.open();
    try {
      for (let i = 0; i < 4; i++) await store.append([row({ content: `force probe ${i}` })]);
      const routine = store.maintain(); // compacts the current view only (versions are not due)
      const forced = store.maintain({ force: true });
      assert.equal((await routine).compacted, true);
      assert.equal((await forced).compacted, true);
      const fragments = Object.fromEntries((await store.diagnostics()).map((d) => [d.table, d.fragments]));
      assert.ok(fragments.versions! <= 2, `the forced pass compacted the version log too (${fragments.versions} fragments)`);
    } finally {
      await store.close();
    }
  });

  it('rebuilds its catalog on reopen: next versions and valid-time reads stay right', async () => {
    const dir = path.join(tempDir('lance-reopen-'), 'db');
    const now = Date.parse('2026-06-01T00:00:00Z');
    const a = row({ content: 'reopen closed fact heron', valid_from: now - 2000, valid_to: now - 500 });
    const b = row({ content: 'reopen future fact heron', valid_from: now + 1000 });
    const c = row({ content: 'reopen open fact heron', valid_from: now - 2000 });
    let store = new LanceStore({ dir, dim: 8 });
    await store.open();
    await store.append([a, b, c]);
    await store.append([{ ...c, version_id: c.version_id.replace(/.{4}$/, 'abcd'), version: 2, tx: 2, content: 'reopen open fact heron v2', recorded_at: c.recorded_at + 1 }]);
    await store.close();

    store = new LanceStore({ dir, dim: 8 });
    await store.open();
    try {
      const versions = await store.maxVersions([a.memory_id, c.memory_id]);
      assert.equal(versions.get(a.memory_id), 1);
      assert.equal(versions.get(c.memory_id), 2);
      const hits = await store.search({ text: 'heron', vector: null, model: null, filter: {}, validAt: now, limit: 10 });
      assert.deepEqual(
        hits.map((h) => h.row.content),
        ['reopen open fact heron v2'],
      );
      const listed = await store.list({}, { limit: 10, validAt: now + 5000 });
      assert.deepEqual(listed.map((r) => r.content).sort(), ['reopen future fact heron', 'reopen open fact heron v2']);
    } finally {
      await store.close();
    }
  });

  it('reads rows of the current view from its one payload column, with float16 vectors, and none in the version log', async () => {
    const dir = path.join(tempDir('lance-payload-'), 'db');
    const now = Date.parse('2026-06-01T00:00:00Z');
    const vec = (x: number): Float32Array => Float32Array.from({ length: 8 }, (_, i) => (i === x ? 0.9 : 0.1 + i / 100));
    const a = row({ content: 'payload probe kestrel one', metadata: { team: 'core', n: 3 }, source: { kind: 'hook', session_id: 's1' } as never, run_id: 'r1', dir: 'src', vector: vec(1), embed_model: 'm' });
    const b = row({ content: 'payload probe kestrel two', space: 'personal', owner_id: 'alice', repo: null, valid_to: now + 10_000, vector: vec(2), embed_model: 'm', block: { group_id: 'g', index: 0, count: 2 } });
    let store = new LanceStore({ dir, dim: 8 });
    await store.open();
    await store.append([a, b]);
    const search = (s: LanceStore): Promise<unknown> =>
      s.search({ text: 'kestrel', vector: vec(1), model: 'm', filter: {}, validAt: now, limit: 10 }).then((hits) => hits.map((h) => h.row).sort((x, y) => x.seq - y.seq));
    const before = { hits: await search(store), listed: await store.list({}, { limit: 10 }), current: await store.currentOf([a.memory_id, b.memory_id]) };
    assert.equal((before.hits as unknown[]).length, 2);
    assert.deepEqual((before.listed[1] ?? before.listed[0])!.metadata, { team: 'core', n: 3 });
    for (const [r, w] of [before.current.find((x) => x.version_id === a.version_id)!, before.current.find((x) => x.version_id === b.version_id)!].map((x, i) => [x, [a, b][i]!] as const)) {
      assert.deepEqual({ ...r, vector: null }, { ...w, seq: r.seq, vector: null }, 'every field comes back from the payload');
      assert.ok(r.vector!.every((v, i) => Math.abs(v - w.vector![i]!) < 1e-3), 'the vector comes back at float16 precision');
    }
    const logged = await store.versionsOf([a.memory_id]);
    assert.ok(logged[0]!.vector, 'a current version read from the log carries the view’s vector');
    await store.close();

    const db = await lancedb.connect(dir);
    const log = await db.openTable('versions');
    assert.deepEqual(
      (await log.schema()).fields.filter((f) => ['vector', 'embed_model'].includes(f.name)),
      [],
      'the version log keeps no vectors',
    );
    const cur = await db.openTable('current');
    const columns = (await cur.schema()).fields.map((f) => f.name);
    for (const copied of ['content', 'content_hash', 'metadata', 'source', 'block']) assert.ok(!columns.includes(copied), `the view holds ${copied} in its payload only`);
    log.close();
    cur.close();
    db.close();

    store = new LanceStore({ dir, dim: 8 });
    await store.open();
    try {
      assert.deepEqual(await search(store), before.hits, 'the same rows after a reopen');
      assert.deepEqual(await store.list({}, { limit: 10 }), before.listed);
      assert.deepEqual(await store.currentOf([a.memory_id, b.memory_id]), before.current);
    } finally {
      await store.close();
    }
  });

  it('repairs a crash between the version log and the current view on open; the row is embedded again in the background', async () => {
    const dir = path.join(tempDir('lance-crash-'), 'db');
    const embedder = new FakeEmbedder(8);
    const content = 'crash repair probe ibis';
    let store = new LanceStore({ dir, dim: 8 });
    await store.open();
    store.setActiveModel(embedder.model);
    const a = row({ content, vector: await embedder.embedQuery(content), embed_model: embedder.model });
    // The process dies once the version log took the row, before the current view did.
    (store as unknown as { replaceCurrent: () => Promise<void> }).replaceCurrent = async () => {
      throw new Error('simulated crash');
    };
    await assert.rejects(store.append([a]), /simulated crash/);
    await store.close();
    store = new LanceStore({ dir, dim: 8 });
    await store.open();
    store.setActiveModel(embedder.model);
    const engine = new MemoryEngine({ store, embedder, background: false });
    try {
      const [cur] = await store.currentOf([a.memory_id]);
      assert.equal(cur?.content, content, 'the current view has the row again');
      assert.equal(cur?.vector, null, 'its vector was never stored: the log keeps none');
      assert.equal((await engine.status()).backlog, 1, 'status counts it as backlog');
      assert.ok((await store.search({ text: 'ibis', vector: null, model: null, filter: {}, validAt: Date.now(), limit: 3 })).some((h) => h.row.version_id === a.version_id), 'full text finds it meanwhile');
      assert.equal(await engine.embedBacklog(), 1);
      const hits = await store.search({ text: null, vector: a.vector, model: embedder.model, filter: {}, validAt: Date.now(), limit: 3 });
      assert.equal(hits[0]?.row.version_id, a.version_id);
      assert.equal((await engine.status()).backlog, 0);
    } finally {
      await store.close();
    }
  });

  it('searches the past: superseded versions by their text, current ones by vector too', async () => {
    for (const budget of [undefined, new ResidentBudget(0)]) {
      const embedder = new FakeEmbedder(8);
      const store = new LanceStore({ dir: path.join(tempDir('lance-past-'), 'db'), dim: 8, ...(budget ? { residentBudget: budget } : {}) });
      await store.open();
      store.setActiveModel(embedder.model);
      try {
        const t0 = Date.parse('2026-03-01T00:00:00Z');
        const old = 'we cache sessions in redis';
        const v1 = row({ content: old, vector: await embedder.embedQuery(old), embed_model: embedder.model, recorded_at: t0, valid_from: t0 });
        const kept = row({ content: 'deploys need approval from on call', vector: await embedder.embedQuery('deploys need approval from on call'), embed_model: embedder.model, recorded_at: t0, valid_from: t0 });
        await store.append([v1, kept]);
        const v2 = { ...v1, version_id: uuidv7(), version: 2, tx: 2, content: 'we cache sessions in postgres', vector: await embedder.embedQuery('we cache sessions in postgres'), recorded_at: t0 + 1000 };
        await store.append([v2]);
        const past = { validAt: t0 + 10, knownAt: t0 + 500, filter: {}, limit: 5 };
        const byText = await store.search({ ...past, text: 'redis sessions', vector: null, model: null });
        assert.deepEqual(
          byText.map((h) => h.row.version_id),
          [v1.version_id],
          'the superseded version, by its text',
        );
        // Scored exactly as InMemoryStore scores the same versions.
        const reference = new InMemoryStore();
        await reference.open();
        await reference.append([v1, kept]);
        await reference.append([v2]);
        for (const text of ['redis sessions', 'sessions cache', 'approval deploys call']) {
          const scores = async (s: LanceStore | InMemoryStore) =>
            (await s.search({ ...past, text, vector: null, model: null }))
              .map((h) => [h.row.version_id, h.textScore!] as const)
              .sort((a, b) => (a[0] < b[0] ? -1 : 1));
          const [got, want] = [await scores(store), await scores(reference)];
          assert.deepEqual(got.map(([id]) => id), want.map(([id]) => id), text);
          got.forEach(([, s], i) => assert.ok(Math.abs(s - want[i]![1]) < 1e-9, `${text}: ${s} vs ${want[i]![1]}`));
        }
        await reference.close();
        const byVector = await store.search({ ...past, text: null, vector: kept.vector, model: embedder.model });
        assert.equal(byVector[0]?.row.version_id, kept.version_id, 'a version still current, by its vector');
        assert.ok(!byVector.some((h) => h.row.version_id === v2.version_id), 'nothing recorded after known_at');
      } finally {
        await store.close();
      }
    }
  });

  it('adds the filter and id indexes a table lacks, and drops those it no longer keeps', async () => {
    const dir = path.join(tempDir('lance-indexes-'), 'db');
    const store = new LanceStore({ dir, dim: 8 });
    await store.open();
    await store.append([row({ content: 'index upgrade probe' })]);
    await store.close();
    // An older store: the view lacks indexes made since, and the log has the filter indexes
    // earlier builds kept on it.
    const db = await lancedb.connect(dir);
    const view = await db.openTable('current');
    for (const idx of ['repo_idx', 'category_idx', 'run_id_idx', 'owner_id_idx']) await view.dropIndex(idx);
    await view.createIndex('version_id', { config: lancedb.Index.btree() });
    view.close();
    const log = await db.openTable('versions');
    for (const column of ['version_id', 'user_id', 'run_id', 'owner_id']) await log.createIndex(column, { config: lancedb.Index.btree() });
    for (const column of ['space', 'repo', 'category']) await log.createIndex(column, { config: lancedb.Index.bitmap() });
    await log.createIndex('search_terms', { config: lancedb.Index.fts({ baseTokenizer: 'whitespace' }) });
    log.close();
    db.close();

    const again = new LanceStore({ dir, dim: 8 });
    await again.open();
    try {
      const diag = Object.fromEntries((await again.diagnostics()).map((d) => [d.table, Object.keys(d.indexTypes).sort()]));
      // Searched in memory, the view has no full-text index either.
      assert.deepEqual(diag.current, ['category', 'memory_id', 'owner_id', 'repo', 'run_id', 'seq', 'space', 'user_id']);
      assert.deepEqual(diag.versions, ['memory_id', 'seq'], 'the log keeps no filter indexes, and no full-text index');
      assert.equal((await again.list({ repo: 'github.com/acme/app' }, { limit: 5 })).length, 1);
      const past = await again.search({ text: 'index probe', vector: null, model: null, filter: { repo: 'github.com/acme/app', user_id: 'alice' }, validAt: Date.now(), knownAt: Date.now(), limit: 5 });
      assert.equal(past.length, 1, 'searches of the past still filter on unindexed columns');
    } finally {
      await again.close();
    }
  });

  it('builds the vector index once large and searched through LanceDB, records its plan, rebuilds an index of an older kind, drops it once in memory', async () => {
    const dir = path.join(tempDir('lance-vindex-'), 'db');
    const embedder = new FakeEmbedder(32);
    const rows = await Promise.all(
      Array.from({ length: 400 }, async (_, i) => {
        const content = `vector index probe ${i} ${['alpha', 'beta', 'gamma', 'delta'][i % 4]} ${i % 7}`;
        return row({ content, vector: await embedder.embedQuery(content), embed_model: embedder.model, run_id: i % 80 === 7 ? 'run-rare' : null });
      }),
    );
    // Searched in memory, the view needs no index.
    let store = new LanceStore({ dir, dim: 32, vectorIndexMinRows: 300 });
    await store.open();
    store.setActiveModel(embedder.model);
    await store.append(rows);
    assert.equal((await store.maintain({ force: true })).vectorIndexBuilt, false, 'no index while the view is searched in memory');
    await store.close();
    store = new LanceStore({ dir, dim: 32, vectorIndexMinRows: 300, residentBudget: new ResidentBudget(0) });
    await store.open();
    store.setActiveModel(embedder.model);
    const built = await store.maintain({ force: true });
    assert.equal(built.vectorIndexBuilt, true);
    assert.equal((await store.stats()).vectorIndex, true);
    assert.equal((await store.maintain({ force: true })).vectorIndexBuilt, false, 'no retraining before the table grows');
    const marker = JSON.parse(fs.readFileSync(path.join(dir, 'current.json'), 'utf8')) as { vectorIndex?: { rows: number; partitions: number } };
    assert.deepEqual(marker.vectorIndex, { rows: 400, partitions: 8 });
    await store.close();

    // A store whose index is IVF_PQ (what earlier versions built) gets it rebuilt as IVF_RQ.
    const db = await lancedb.connect(dir);
    const tbl = await db.openTable('current');
    await tbl.createIndex('vector', { config: lancedb.Index.ivfPq({ distanceType: 'cosine', numPartitions: 4, numSubVectors: 4 }), replace: true });
    tbl.close();
    db.close();
    store = new LanceStore({ dir, dim: 32, vectorIndexMinRows: 300, residentBudget: new ResidentBudget(0) });
    await store.open();
    try {
      store.setActiveModel(embedder.model);
      assert.equal((await store.maintain()).vectorIndexBuilt, true);
      const target = rows[123]!;
      const q = { text: null, vector: target.vector, model: embedder.model, filter: {}, validAt: Date.now(), limit: 5 };
      assert.equal((await store.search({ ...q, exact: true }))[0]?.row.version_id, target.version_id);
      assert.equal((await store.search(q))[0]?.row.version_id, target.version_id);
      // A selective filter still finds every match, wherever its partitions are.
      const filtered = await store.search({ ...q, filter: { run_id: 'run-rare' } });
      assert.deepEqual(
        filtered.map((h) => h.row.content).sort(),
        rows.filter((r) => r.run_id === 'run-rare').map((r) => r.content).sort(),
      );
    } finally {
      await store.close();
    }
    // Held in memory again, the store drops the index that no search reads.
    store = new LanceStore({ dir, dim: 32, vectorIndexMinRows: 300 });
    await store.open();
    try {
      assert.equal(store.residentRows(), 400);
      assert.equal((await store.stats()).vectorIndex, false);
      assert.equal((await store.diagnostics()).find((d) => d.table === 'current')!.indexTypes.vector, undefined);
      assert.equal((await store.maintain({ force: true })).vectorIndexBuilt, false);
    } finally {
      await store.close();
    }
  });
});

describe('LanceStore: the current view in memory', () => {
  const embedder = new FakeEmbedder(16);
  const WORDS = ['postgres', 'redis', 'billing', 'deploy', 'cache', 'queue', 'auth', 'token', 'retry', 'index'];
  const rowsOf = (n: number, tag: string) =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const content = `${tag} ${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]} item${i}`;
        return row({ content, vector: await embedder.embedQuery(content), embed_model: embedder.model, user_id: i % 4 === 0 ? 'bob' : 'alice' });
      }),
    );
  const query = async (text: string, filter = {}) => ({ text, vector: await embedder.embedQuery(text), model: embedder.model, filter, validAt: Date.now(), limit: 8 });
  const open = async (dir: string, budget?: ResidentBudget): Promise<LanceStore> => {
    const s = new LanceStore({ dir, dim: 16, ...(budget ? { residentBudget: budget } : {}) });
    await s.open();
    s.setActiveModel(embedder.model);
    return s;
  };

  it('answers as LanceDB’s indexes do, before and after updates, deletes and a reopen', async () => {
    const rows = await rowsOf(240, 'parity');
    const inMemory = await open(path.join(tempDir('resident-'), 'db'));
    const indexedDir = path.join(tempDir('resident-indexed-'), 'db');
    let indexed = await open(indexedDir, new ResidentBudget(0));
    try {
      for (const s of [inMemory, indexed]) await s.append(rows);
      assert.equal(inMemory.residentRows(), 240);
      assert.equal(indexed.residentRows(), null);
      // Right after a rebuild LanceDB's text statistics are those of the rows it holds, as the view's
      // always are; after deletes it keeps counting removed rows for a while, so scores may differ
      // by a fraction of a percent.
      const compare = async (label: string, tol: number): Promise<void> => {
        await indexed.maintain({ force: true });
        for (const [text, filter] of [['postgres billing', {}], ['token retry item7', { user_id: 'alice' }], ['cache', { user_id: 'bob' }]] as const) {
          const q = await query(text, filter);
          const [a, b] = [await inMemory.search(q), await indexed.search(q)];
          const channel = (hits: typeof a, key: 'vectorScore' | 'textScore') =>
            hits
              .filter((h) => h[key] !== null)
              .sort((x, y) => y[key]! - x[key]!)
              .map((h) => [h.row.version_id, h[key]!] as const);
          for (const key of ['vectorScore', 'textScore'] as const) {
            const [x, y] = [channel(a, key), channel(b, key)];
            assert.equal(x.length, y.length, `${label} ${text} ${key}: as many hits`);
            // Scores agree rank by rank; rows of equal score may come in another order.
            const near = (v: number, w: number) => Math.abs(v - w) <= tol * Math.max(1, Math.abs(w));
            for (let i = 0; i < x.length; i++) assert.ok(near(x[i]![1], y[i]![1]), `${label} ${text} ${key} #${i}: ${x[i]![1]} vs ${y[i]![1]}`);
            const distinct = (s: readonly (readonly [string, number])[]) => s.filter(([, v]) => s.filter(([, w]) => near(v, w)).length === 1).map(([id]) => id);
            assert.deepEqual(distinct(x), distinct(y), `${label} ${text} ${key}: same rows`);
          }
        }
      };
      await compare('fresh', 1e-4);
      const edited = { ...rows[3]!, version_id: uuidv7(), version: 2, content: 'postgres billing postgres rewritten', vector: await embedder.embedQuery('postgres billing rewritten') };
      for (const s of [inMemory, indexed]) {
        await s.append([edited]);
        await s.purge([rows[5]!.memory_id]);
        await s.append([{ ...rows[8]!, version_id: uuidv7(), version: 2, deleted: true, valid_to: Date.now() - 1 }]);
      }
      await compare('edited', 0.01);
      const dir = inMemory['opts'].dir;
      await inMemory.close();
      const reopened = await open(dir);
      assert.equal(reopened.residentRows(), 238);
      await indexed.close();
      indexed = await open(indexedDir, new ResidentBudget(0));
      const hits = await reopened.search(await query('postgres billing'));
      assert.ok(hits.some((h) => h.row.version_id === edited.version_id), 'the new version is found after a reopen');
      assert.ok(!hits.some((h) => h.row.memory_id === rows[5]!.memory_id || h.row.memory_id === rows[8]!.memory_id), 'purged and deleted memories stay gone');
      await reopened.close();
    } finally {
      await indexed.close();
      await inMemory.close();
    }
  });

  it('holds views within one shared budget, and searches a view that outgrew it through the indexes', async () => {
    const budget = new ResidentBudget(50);
    const a = await open(path.join(tempDir('resident-a-'), 'db'), budget);
    await a.append(await rowsOf(30, 'alpha'));
    const bDir = path.join(tempDir('resident-b-'), 'db');
    let b = await open(bDir, budget);
    try {
      await b.append(await rowsOf(30, 'bravo'));
      assert.equal(a.residentRows(), 30);
      assert.equal(b.residentRows(), null, 'b does not fit beside a');
      assert.equal(budget.usedRows, 30);
      assert.ok((await b.search(await query('bravo item29'))).some((h) => h.row.content.endsWith('item29')), 'b is still searched');
      await a.append(await rowsOf(25, 'extra'));
      assert.equal(a.residentRows(), null, 'a outgrew the budget');
      assert.equal(budget.usedRows, 0);
      assert.ok((await a.search(await query('extra item24'))).some((h) => h.row.content === `extra ${WORDS[4]} ${WORDS[8]} ${WORDS[2]} item24`), 'a is searched through its indexes');
      // Held in memory, a had no full-text index; it has one over every row now.
      const textOnly = await a.search({ text: 'alpha item17', vector: null, model: null, filter: {}, validAt: Date.now(), limit: 3 });
      assert.ok(textOnly[0]?.row.content.startsWith('alpha ') && textOnly[0].row.content.endsWith(' item17'), JSON.stringify(textOnly.map((h) => h.row.content)));
      const fts = (await a.diagnostics()).find((d) => d.table === 'current')!;
      assert.equal(fts.indexTypes.search_terms, 'FTS');
      assert.equal(fts.unindexed.search_terms, 0);
      await b.close();
      b = await open(bDir, budget);
      assert.equal(b.residentRows(), 30, 'b fits now');
      assert.equal(budget.usedRows, 30);
    } finally {
      await a.close();
      await b.close();
    }
    assert.equal(budget.usedRows, 0, 'closing gives the rows back');
  });
});
