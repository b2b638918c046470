/**
 * Disk use of a LanceStore against the size of its export (issue 20: ≤ 2× once upkeep settled),
 * at the production vector size (384 dimensions), with the benchmark corpus. The bounds leave room
 * for noise (ids and times differ between runs) and fail on what matters: a vector back in the
 * version log (≥ 768 bytes a version, float16 or wider), float32 vectors in the view (+768 bytes a
 * row), or a regression of the rest by more than ~10% of the export.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import * as lancedb from '@lancedb/lancedb';
import { FakeEmbedder, LanceStore, MemoryEngine, uuidv7 } from '../../engine/index.js';
import { fragmentPool, memoryText, placement } from '../../scripts/bench/corpus.js';
import { Rng } from '../../scripts/bench/rng.js';
import { tempDir } from '../helpers/tmp.js';

const MEMORIES = 3000;
const DIM = 384;

function du(p: string): number {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.size;
  return fs.readdirSync(p).reduce((n, f) => n + du(path.join(p, f)), 0);
}

describe('LanceStore disk use', () => {
  it('stays within twice its export at 384 dimensions, with no vector in the version log', async () => {
    const dir = path.join(tempDir('lance-disk-'), 'db');
    const store = new LanceStore({ dir, dim: DIM, retainVersionsMs: 0 });
    const engine = new MemoryEngine({ store, embedder: new FakeEmbedder(DIM), background: false });
    await engine.open();
    try {
      const pool = fragmentPool(7, 1500);
      const r = new Rng(8);
      const t0 = Date.parse('2026-01-01T00:00:00Z');
      const lines = Array.from({ length: MEMORIES }, (_, k) => {
        const at = new Date(t0 + k * 60_000).toISOString();
        return JSON.stringify({ kind: 'version', version_id: uuidv7(), memory_id: uuidv7(), version: 1, tx: 1, content: memoryText(pool, k), ...placement(r), agent_id: null, app_id: null, owner_id: null, metadata: {}, source: { kind: 'import' }, valid_from: at, valid_to: null, recorded_at: at, created_at: at, deleted: false, block: null });
      });
      await engine.import(lines);
      // Some history: corrections and forgets, as a store in use has.
      const listed = await store.list({}, { limit: 300 });
      await Promise.all(listed.map((m, i) => (i % 3 === 0 ? engine.delete(m.memory_id) : engine.update(m.memory_id, { content: `${m.content} (revised)` }))));
      // Upkeep settled: compacted, old table versions deleted.
      for (let i = 0; i < 3; i++) await store.maintain({ force: true });
      let exportBytes = 0;
      let versions = 0;
      for await (const l of engine.exportLines()) {
        exportBytes += Buffer.byteLength(JSON.stringify(l)) + 1;
        versions++;
      }
      const log = du(path.join(dir, 'versions.lance'));
      const view = du(path.join(dir, 'current.lance'));
      const total = du(dir);
      const current = (await store.stats()).current;
      const report = `versions ${versions}, current rows ${current}, export ${exportBytes} B (${(exportBytes / versions).toFixed(0)} B/version); log ${(log / versions).toFixed(0)} B/version, view ${(view / current).toFixed(0)} B/row; ${(total / exportBytes).toFixed(2)}× the export`;
      console.log(report);
      const db = await lancedb.connect(dir);
      const logTable = await db.openTable('versions');
      assert.ok(!(await logTable.schema()).fields.some((f) => f.name === 'vector'), 'the version log has no vector column');
      logTable.close();
      db.close();
      assert.ok(log / versions < 500, `the version log holds no vectors: ${report}`);
      assert.ok(view / current < 1500, `the view holds float16 vectors: ${report}`);
      assert.ok(total / exportBytes <= 2, report);
    } finally {
      await engine.close();
    }
  });
});
