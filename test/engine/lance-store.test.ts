/** LanceStore behaviour beyond the shared contract. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LanceStore } from '../../engine/index.js';
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
      assert.equal(before.unindexed.content, 5);
      assert.equal(before.indexTypes.content, 'FTS');
      const running = store.maintain({ force: true });
      await store.maintenanceIdle();
      assert.equal((await running).compacted, true);
      const after = (await store.diagnostics()).find((d) => d.table === 'current')!;
      assert.equal(after.fragments, 1);
      assert.equal(after.unindexed.content, 0);
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
});
