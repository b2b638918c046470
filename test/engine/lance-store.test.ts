/** LanceStore behaviour beyond the shared contract. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import * as lancedb from '@lancedb/lancedb';
import { FakeEmbedder, LanceStore } from '../../engine/index.js';
import { row } from '../helpers/rows.js';
import { tempDir } from '../helpers/tmp.js';

describe('LanceStore', () => {
  it('reports fragments and unindexed rows, and maintenance folds them in', async () => {
    const store = new LanceStore({ dir: path.join(tempDir('lance-diag-'), 'db'), dim: 8 });
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
    const store = new LanceStore({ dir: path.join(tempDir('lance-policy-'), 'db'), dim: 8, compactEveryCommits: 3 });
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

  it('works within small cache bounds', async () => {
    const store = new LanceStore({ dir: path.join(tempDir('lance-cache-'), 'db'), dim: 8, indexCacheBytes: 1 << 20, metadataCacheBytes: 1 << 20 });
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
    const store = new LanceStore({ dir: path.join(tempDir('lance-force-'), 'db'), dim: 8, compactEveryCommits: 2 });
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

  it('reads rows of the current view from its one payload column, and upgrades a current view without it', async () => {
    const dir = path.join(tempDir('lance-payload-'), 'db');
    const now = Date.parse('2026-06-01T00:00:00Z');
    const vec = (x: number): Float32Array => Float32Array.from({ length: 8 }, (_, i) => (i === x ? 1 : 0.1));
    const a = row({ content: 'payload probe kestrel one', metadata: { team: 'core', n: 3 }, source: { kind: 'hook', session_id: 's1' } as never, run_id: 'r1', dir: 'src', vector: vec(1), embed_model: 'm' });
    const b = row({ content: 'payload probe kestrel two', space: 'personal', owner_id: 'alice', repo: null, valid_to: now + 10_000, vector: vec(2), embed_model: 'm' });
    let store = new LanceStore({ dir, dim: 8 });
    await store.open();
    await store.append([a, b]);
    const search = (s: LanceStore): Promise<unknown> =>
      s.search({ text: 'kestrel', vector: vec(1), model: 'm', filter: {}, validAt: now, limit: 10 }).then((hits) => hits.map((h) => h.row).sort((x, y) => x.seq - y.seq));
    const before = { hits: await search(store), listed: await store.list({}, { limit: 10 }), current: await store.currentOf([a.memory_id, b.memory_id]) };
    assert.equal((before.hits as unknown[]).length, 2);
    assert.deepEqual((before.listed[1] ?? before.listed[0])!.metadata, { team: 'core', n: 3 });
    assert.ok(before.current.every((r) => r.vector?.length === 8), 'vectors come back beside the payload');
    await store.close();

    // The payload matches the separate columns it copies.
    const db = await lancedb.connect(dir);
    const cur = await db.openTable('current');
    const records = await cur.query().select(['content', 'metadata', 'valid_to', 'row_json']).toArray();
    for (const r of records) {
      const p = JSON.parse(String(r.row_json)) as Record<string, unknown>;
      assert.equal(p.content, r.content);
      assert.deepEqual(p.metadata, JSON.parse(String(r.metadata)));
      assert.equal(p.valid_to, r.valid_to === null ? null : Number(r.valid_to));
    }
    // An older store: its current view has no payload column.
    await cur.dropColumns(['row_json']);
    cur.close();
    db.close();

    store = new LanceStore({ dir, dim: 8 });
    await store.open();
    try {
      assert.deepEqual(await search(store), before.hits, 'the same rows after the upgrade');
      assert.deepEqual(await store.list({}, { limit: 10 }), before.listed);
      assert.deepEqual(await store.currentOf([a.memory_id, b.memory_id]), before.current);
    } finally {
      await store.close();
    }
    const db2 = await lancedb.connect(dir);
    const upgraded = await db2.openTable('current');
    assert.ok((await upgraded.schema()).fields.some((f) => f.name === 'row_json'), 'the current view has its payload column again');
    assert.equal(await upgraded.countRows(), 2);
    upgraded.close();
    db2.close();
  });

  it('adds the filter and id indexes to a store that lacks them', async () => {
    const dir = path.join(tempDir('lance-indexes-'), 'db');
    const store = new LanceStore({ dir, dim: 8 });
    await store.open();
    await store.append([row({ content: 'index upgrade probe' })]);
    await store.close();
    // An older store: created before the repo, category, run_id, version_id and owner_id indexes existed.
    const db = await lancedb.connect(dir);
    for (const name of ['versions', 'current']) {
      const tbl = await db.openTable(name);
      for (const idx of ['repo_idx', 'category_idx', 'run_id_idx', 'version_id_idx', 'owner_id_idx']) await tbl.dropIndex(idx);
      tbl.close();
    }
    db.close();

    const again = new LanceStore({ dir, dim: 8 });
    await again.open();
    try {
      const diag = await again.diagnostics();
      for (const t of diag) {
        for (const column of ['repo', 'category', 'run_id', 'version_id', 'owner_id', 'space', 'user_id', 'memory_id', 'seq', 'search_terms']) {
          assert.ok(column in t.unindexed, `${t.table} has an index on ${column}`);
        }
      }
      assert.equal((await again.list({ repo: 'github.com/acme/app' }, { limit: 5 })).length, 1);
    } finally {
      await again.close();
    }
  });

  it('builds the vector index once large, records its plan, and rebuilds an index of an older kind', async () => {
    const dir = path.join(tempDir('lance-vindex-'), 'db');
    const embedder = new FakeEmbedder(32);
    const rows = await Promise.all(
      Array.from({ length: 400 }, async (_, i) => {
        const content = `vector index probe ${i} ${['alpha', 'beta', 'gamma', 'delta'][i % 4]} ${i % 7}`;
        return row({ content, vector: await embedder.embedQuery(content), embed_model: embedder.model, run_id: i % 80 === 7 ? 'run-rare' : null });
      }),
    );
    let store = new LanceStore({ dir, dim: 32, vectorIndexMinRows: 300 });
    await store.open();
    store.setActiveModel(embedder.model);
    await store.append(rows);
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
    store = new LanceStore({ dir, dim: 32, vectorIndexMinRows: 300 });
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
  });
});
