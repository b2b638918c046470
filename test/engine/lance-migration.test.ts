/**
 * A data dir written by the build before vectors left the version log
 * (test/fixtures/lance-before-vector-move: float32 vectors in both tables, an object payload and
 * copies of every text column in the current view) opens with this build and is upgraded in place.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import * as lancedb from '@lancedb/lancedb';
import { createLogger, FakeEmbedder, LanceStore, MemoryEngine, type LogRecord } from '../../engine/index.js';
import { repoRoot, tempDir } from '../helpers/tmp.js';

const FIXTURE = repoRoot('test', 'fixtures', 'lance-before-vector-move');
const MODEL = 'fake-legacy-16';

/** A copy of the fixture's data dir (opening upgrades it in place). */
function copyFixture(): string {
  const dir = path.join(tempDir('lance-migrate-'), 'lance');
  fs.cpSync(path.join(FIXTURE, 'lance'), dir, { recursive: true });
  return dir;
}

async function openEngine(dir: string, logs: LogRecord[] = []): Promise<{ engine: MemoryEngine; store: LanceStore; embedder: FakeEmbedder }> {
  const embedder = new FakeEmbedder(16, MODEL);
  const store = new LanceStore({ dir, dim: 16, retainVersionsMs: 0, logger: createLogger((r) => logs.push(r)) });
  const engine = new MemoryEngine({ store, embedder, background: false });
  await engine.open();
  return { engine, store, embedder };
}

async function exported(engine: MemoryEngine): Promise<string> {
  const lines: string[] = [];
  for await (const l of engine.exportLines()) lines.push(JSON.stringify(l));
  return `${lines.join('\n')}\n`;
}

async function tableColumns(dir: string): Promise<Record<string, string[]>> {
  const db = await lancedb.connect(dir);
  const out: Record<string, string[]> = {};
  for (const name of ['versions', 'current']) {
    const t = await db.openTable(name);
    out[name] = (await t.schema()).fields.map((f) => f.name);
    t.close();
  }
  db.close();
  return out;
}

describe('LanceStore: a data dir from before vectors left the version log', () => {
  it('opens, keeps every version and every vector, and moves the vectors out of the log', async () => {
    const dir = copyFixture();
    assert.ok((await tableColumns(dir)).versions!.includes('vector'), 'the fixture is a legacy store');
    const before = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'stats.json'), 'utf8')) as { versions: number; current: number; unembedded: number; lastSeq: number; memories: number };
    const logs: LogRecord[] = [];
    let { engine, store, embedder } = await openEngine(dir, logs);
    try {
      assert.ok(logs.some((l) => l.msg.startsWith('moving vectors out of the version log')), 'the upgrade ran');
      assert.equal(await exported(engine), fs.readFileSync(path.join(FIXTURE, 'export.ndjson'), 'utf8'), 'the export is the old build’s, byte for byte');
      const s = await store.stats();
      assert.deepEqual({ versions: s.versions, current: s.current, unembedded: s.unembedded, lastSeq: s.lastSeq }, { versions: before.versions, current: before.current, unembedded: before.unembedded, lastSeq: before.lastSeq });
      assert.equal(embedder.calls, 0, 'the vectors came from the old log: nothing was embedded again');
      // Every current row found by its own vector.
      for (const r of await store.list({}, { limit: 20 })) {
        if (!r.embed_model) continue;
        const hits = await store.search({ text: null, vector: await new FakeEmbedder(16, MODEL).embedQuery(r.content), model: MODEL, filter: { memory_ids: [r.memory_id] }, validAt: r.valid_from, limit: 3 });
        assert.ok(hits.some((h) => h.row.version_id === r.version_id && h.vectorScore! > 0.999), `${r.content}: found by its vector`);
      }
      // History: what was believed before the correction.
      const session = (await store.list({ run_id: 'run-1' }, { limit: 5 }))[0]!;
      const past = await engine.search({ query: 'session store Redis', filter: { run_id: 'run-1' }, known_at: session.recorded_at - 1 });
      assert.deepEqual(
        past.results.map((r) => r.row.content),
        ['The session store uses Redis with a one hour TTL'],
      );
      const columns = await tableColumns(dir);
      assert.ok(!columns.versions!.includes('vector') && !columns.versions!.includes('embed_model'), 'the log lost its vector columns');
      assert.ok(!columns.current!.includes('content'), 'the current view is in the new format');
      // The row stored without a vector is embedded in the background as before.
      assert.equal(await engine.embedBacklog(), 1);
      assert.equal((await store.stats()).unembedded, 0);
    } finally {
      await engine.close();
    }
    // A second open has nothing left to upgrade.
    logs.length = 0;
    ({ engine, store, embedder } = await openEngine(dir, logs));
    try {
      assert.ok(!logs.some((l) => /upgrad|moving vectors|repairing/.test(l.msg)), JSON.stringify(logs.map((l) => l.msg)));
      assert.equal(await exported(engine), fs.readFileSync(path.join(FIXTURE, 'export.ndjson'), 'utf8'));
      assert.equal((await store.stats()).unembedded, 0);
    } finally {
      await engine.close();
    }
  });

  it('finishes an upgrade that a crash interrupted on the next open, vectors included', async () => {
    const dir = copyFixture();
    const proto = LanceStore.prototype as unknown as { repairCurrent: (afterSeq: number) => Promise<void> };
    const repair = proto.repairCurrent;
    // The process dies while the current view is being rebuilt: the old view is gone, the new one empty.
    proto.repairCurrent = async () => {
      throw new Error('simulated crash');
    };
    try {
      await assert.rejects(openEngine(dir), /simulated crash/);
    } finally {
      proto.repairCurrent = repair;
    }
    const columns = await tableColumns(dir);
    assert.ok(columns.versions!.includes('vector'), 'the log keeps its vectors until the view is whole');
    const { engine, store, embedder } = await openEngine(dir);
    try {
      const before = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'stats.json'), 'utf8')) as { current: number; unembedded: number };
      const s = await store.stats();
      assert.deepEqual({ current: s.current, unembedded: s.unembedded }, { current: before.current, unembedded: before.unembedded });
      assert.equal(embedder.calls, 0);
      assert.equal(await exported(engine), fs.readFileSync(path.join(FIXTURE, 'export.ndjson'), 'utf8'));
      assert.ok(!(await tableColumns(dir)).versions!.includes('vector'));
    } finally {
      await engine.close();
    }
  });
});
