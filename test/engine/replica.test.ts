/**
 * The engine's support for sync: the sequencing rule (engine/replica.ts), the write queue's
 * exclusive section, and `MemoryEngine.replicate` with `MemoryStore.rewrite`, over both stores
 * (LanceDB also across a reopen).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { contentHash, EngineError, exportLine, FakeEmbedder, InMemoryStore, LanceStore, MemoryEngine, renumberAfter, sequenceTransaction, uuidv7, type MemoryStore, type PlannedRow, type VersionRow } from '../../engine/index.js';
import { row } from '../helpers/rows.js';
import { tempDir } from '../helpers/tmp.js';

const T = Date.parse('2026-05-01T00:00:00Z');

function version(memoryId: string, n: number, over: Partial<PlannedRow> = {}): PlannedRow {
  const content = over.content ?? `content of version ${n}`;
  return row({ memory_id: memoryId, version: n, tx: n, recorded_at: T + n * 1000, content, content_hash: contentHash(content), ...over });
}

function stored(rows: PlannedRow[]): VersionRow[] {
  return rows.map((r, i) => ({ ...r, seq: i + 1 }));
}

describe('sequencing a pushed transaction', () => {
  const m = uuidv7();
  const history = stored([version(m, 1), version(m, 2)]);

  it('keeps the numbers of a transaction that follows the last version', () => {
    const out = sequenceTransaction(history, [version(m, 3)], T + 10_000);
    assert.equal(out.status, 'accepted');
    assert.deepEqual(
      out.rows.map((r) => [r.version, r.tx, r.recorded_at]),
      [[3, 3, T + 3000]],
    );
    assert.equal(out.status === 'accepted' && out.renumbered, false);
  });

  it('renumbers a transaction whose numbers another machine took, keeping its rows together', () => {
    const theirs = [version(m, 2, { content: 'mine, clipped' }), { ...version(m, 3, { content: 'mine, new' }), tx: 2 }];
    const out = sequenceTransaction(history, theirs, T + 10_000);
    assert.equal(out.status, 'accepted');
    assert.deepEqual(
      out.rows.map((r) => [r.content, r.version, r.tx]),
      [
        ['mine, clipped', 3, 3],
        ['mine, new', 4, 3],
      ],
    );
    assert.equal(out.status === 'accepted' && out.renumbered, true);
  });

  it('answers exists with the stored numbers for a transaction it already has', () => {
    const retried = { ...history[1]!, version: 7, tx: 7 };
    const out = sequenceTransaction(history, [retried], T);
    assert.equal(out.status, 'exists');
    assert.deepEqual(
      out.rows.map((r) => [r.version_id, r.version]),
      [[history[1]!.version_id, 2]],
    );
  });

  it('re-stamps a transaction recorded before the memory’s last one, so transaction time stays monotone', () => {
    const late = version(m, 3, { recorded_at: T });
    const out = sequenceTransaction(history, [late], T + 50_000);
    assert.equal(out.status === 'accepted' && out.restamped, true);
    assert.equal(out.rows[0]!.recorded_at, T + 50_000);
    const skewed = sequenceTransaction(history, [late], T);
    assert.equal(skewed.rows[0]!.recorded_at, T + 2001, 'never before the last transaction, even with a clock behind');
  });

  it('refuses a partial transaction and rows that are not one transaction', () => {
    const two = [version(m, 3), { ...version(m, 4), tx: 3 }];
    const h = stored([...history, two[0]!]);
    assert.throws(() => sequenceTransaction(h, two, T), (e: unknown) => e instanceof EngineError && e.code === 'CONFLICT');
    assert.throws(() => sequenceTransaction(history, [version(m, 3), version(m, 4)], T), (e: unknown) => e instanceof EngineError && e.code === 'VALIDATION');
  });

  it('renumbers several transactions one after the other', () => {
    const a = [version(m, 3)];
    const b = [version(m, 4), { ...version(m, 5), tx: 4 }];
    assert.deepEqual(
      renumberAfter([a, b], 6).map((tx) => tx.map((r) => [r.version, r.tx])),
      [[[7, 7]], [
        [8, 8],
        [9, 8],
      ]],
    );
  });
});

describe('the write queue’s exclusive section', () => {
  it('runs after earlier writes and before later ones, with nothing committed in between', async () => {
    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
    await engine.open();
    const order: string[] = [];
    const first = engine.add({ content: 'written before', user_id: 'u' }).then(() => order.push('before'));
    const inside = engine.replicate(async (w) => {
      const seqBefore = (await engine.store.stats()).lastSeq;
      await new Promise((r) => setTimeout(r, 30));
      assert.equal((await engine.store.stats()).lastSeq, seqBefore, 'no write committed during the exclusive section');
      order.push('exclusive');
      return w.versionsOf([]);
    });
    const later = engine.add({ content: 'written after', user_id: 'u' }).then(() => order.push('after'));
    await Promise.all([first, inside, later]);
    assert.deepEqual(order, ['before', 'exclusive', 'after']);
    await engine.close();
  });

  it('never strands work queued while the previous drain is finishing', async () => {
    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
    await engine.open();
    const [m] = await engine.add({ content: 'first', user_id: 'u' });
    for (let i = 0; i < 20; i++) {
      await engine.update(m!.memory_id, { content: `edit ${i}` });
      // Queued in the same tick the update resolved in: it used to wait forever.
      const done = engine.replicate(async () => 'ran');
      const timeout = new Promise((r) => setTimeout(() => r('stranded'), 2000).unref());
      assert.equal(await Promise.race([done, timeout]), 'ran');
    }
    await engine.close();
  });
});

describe('imports and replication together', () => {
  it('never store one version twice when an import and a replication step carry the same versions', async () => {
    // A slow model keeps each writer between its existence check and its append for a while.
    class SlowEmbedder extends FakeEmbedder {
      override async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
        await new Promise((r) => setTimeout(r, 30));
        return super.embedDocuments(texts);
      }
    }
    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: new SlowEmbedder(16), background: false });
    await engine.open();
    const rows = Array.from({ length: 50 }, (_, i) => version(uuidv7(), 1, { content: `shared ${i}` }));
    const lines = rows.map((r) => JSON.stringify(exportLine({ ...r, seq: 0 })));
    const [imported, replicated] = await Promise.allSettled([engine.import(lines), engine.replicate((w) => w.append(rows))]);
    assert.ok(imported.status === 'fulfilled' || replicated.status === 'fulfilled');
    const stored = await engine.store.changes(0, 1000);
    assert.equal(stored.length, 50, `${stored.length} rows for 50 versions`);
    await engine.close();
  });
});

function replicaSuite(name: string, make: () => { store: MemoryStore; reopen?: () => MemoryStore }): void {
  describe(`replication writes: ${name}`, () => {
    it('appends versions as numbered elsewhere and rewrites its own numbering, keeping the current view right', async () => {
      const { store, reopen } = make();
      const embedder = new FakeEmbedder(16);
      let engine = new MemoryEngine({ store, embedder, background: false });
      await engine.open();
      const [mine] = await engine.add({ content: 'local edit of the session store', user_id: 'u' });
      const m = mine!.memory_id;
      const local = (await engine.update(m, { content: 'we use sqlite locally' }))[0]!;
      // The server holds another machine's version 2: this machine's moves to 3, theirs goes in at 2.
      const theirs = { ...version(m, 2, { content: 'we use postgres (from the server)', recorded_at: local.recorded_at - 1 }), created_at: mine!.created_at };
      const out = await engine.replicate(async (w) => {
        const moved = await w.rewrite([{ ...local, version: 3, tx: 3 }]);
        const added = await w.append([theirs]);
        return { moved, added };
      });
      assert.ok(out.moved[0]!.seq > local.seq, 'a rewritten version gets a new seq');
      assert.ok(out.moved[0]!.vector, 'a rewrite keeps the vector of unchanged text');
      const history = await engine.history(m);
      assert.deepEqual(
        history.map((v) => [v.version, v.content]),
        [
          [1, 'local edit of the session store'],
          [2, 'we use postgres (from the server)'],
          [3, 'we use sqlite locally'],
        ],
      );
      assert.equal((await engine.get(m)).content, 'we use sqlite locally');
      assert.equal((await engine.search({ query: 'sqlite', top_k: 5 })).results[0]?.row.memory_id, m);
      const changes = await engine.store.changes(0, 100);
      assert.equal(changes.filter((r) => r.version_id === local.version_id).length, 1, 'the old seq is a gap, not a second copy');

      // Refused: a number twice, an unknown version, a version id twice.
      await assert.rejects(engine.replicate((w) => w.append([{ ...version(m, 3), version_id: uuidv7() }])), (e: unknown) => e instanceof EngineError && e.code === 'CONFLICT');
      await assert.rejects(engine.replicate((w) => w.append([theirs])), (e: unknown) => e instanceof EngineError && e.code === 'CONFLICT');
      await assert.rejects(engine.replicate((w) => w.rewrite([version(m, 9)])), (e: unknown) => e instanceof EngineError && e.code === 'NOT_FOUND');
      await assert.rejects(engine.replicate((w) => w.rewrite([{ ...local, version: 2, tx: 2 }])), (e: unknown) => e instanceof EngineError && e.code === 'CONFLICT');
      assert.equal((await engine.history(m)).length, 3, 'refused writes changed nothing');

      if (reopen) {
        await engine.close();
        engine = new MemoryEngine({ store: reopen(), embedder, background: false });
        await engine.open();
        assert.deepEqual(
          (await engine.history(m)).map((v) => v.version),
          [1, 2, 3],
        );
        assert.equal((await engine.get(m)).content, 'we use sqlite locally', 'the current view survives a reopen');
      }
      await engine.close();
    });
  });
}

replicaSuite('InMemoryStore', () => ({ store: new InMemoryStore() }));
replicaSuite('LanceStore', () => {
  const dir = path.join(tempDir('replica-'), 'db');
  return { store: new LanceStore({ dir, dim: 16 }), reopen: () => new LanceStore({ dir, dim: 16 }) };
});
