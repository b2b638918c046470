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
});
