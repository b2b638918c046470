import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConcurrencyGate, EngineError, FakeEmbedder, InMemoryStore, MemoryEngine, type Embedder } from '../../engine/index.js';

async function engine(embedder: Embedder | null = new FakeEmbedder(32)): Promise<MemoryEngine> {
  const e = new MemoryEngine({ store: new InMemoryStore(), embedder, background: false });
  await e.open();
  return e;
}

describe('MemoryEngine', () => {
  it('commits concurrent single adds in one batch', async () => {
    const e = await engine();
    let appends = 0;
    const orig = e.store.append.bind(e.store);
    e.store.append = async (rows) => {
      appends++;
      return orig(rows);
    };
    await Promise.all(Array.from({ length: 50 }, (_, i) => e.add({ content: `memory ${i}`, user_id: 'u' })));
    assert.equal(appends, 1);
    assert.equal(await e.count({}), 50);
  });

  it('runs searches through its gate, and drops one whose signal aborts while it waits (the store never sees it)', async () => {
    const e = new MemoryEngine({ store: new InMemoryStore(), embedder: new FakeEmbedder(32), background: false, searchGate: new ConcurrencyGate(1) });
    await e.open();
    await e.add({ content: 'the gateway runs on port 8443', user_id: 'u' });
    let searches = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const orig = e.store.search.bind(e.store);
    e.store.search = async (req) => {
      searches++;
      if (searches === 1) await held;
      return orig(req);
    };
    const first = e.search({ query: 'gateway port' });
    const gone = new AbortController();
    const dropped = e.search({ query: 'gateway port', signal: gone.signal });
    const third = e.search({ query: 'gateway port' });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(searches, 1, 'one search at a time');
    gone.abort();
    await assert.rejects(dropped, (err: unknown) => err instanceof EngineError && err.code === 'CANCELLED');
    release();
    assert.equal((await first).results.length, 1);
    assert.equal((await third).results.length, 1);
    assert.equal(searches, 2, 'the dropped search never reached the store');
  });

  it('adds new memories without reading stored rows', async () => {
    const e = await engine();
    let reads = 0;
    const orig = e.store.versionsOf.bind(e.store);
    e.store.versionsOf = async (ids) => {
      reads++;
      return orig(ids);
    };
    await Promise.all(Array.from({ length: 20 }, (_, i) => e.add({ content: `fresh memory ${i}`, user_id: 'u' })));
    await e.add({ content: 'one more fresh memory', user_id: 'u' });
    assert.equal(reads, 0);
    const [m] = await e.add({ content: 'explicit id', user_id: 'u', memory_id: '01890a5d-ac96-774b-bcce-b302099a8057' });
    await assert.rejects(e.add({ content: 'same id again', user_id: 'u', memory_id: m!.memory_id }), (err: unknown) => err instanceof EngineError && err.code === 'CONFLICT');
  });

  it('runs background upkeep after a burst of commits, not only on its timer', async () => {
    const calls = { on: 0, off: 0 };
    for (const background of [true, false]) {
      const store = new InMemoryStore();
      const orig = store.maintain.bind(store);
      store.maintain = async () => {
        calls[background ? 'on' : 'off']++;
        return orig();
      };
      const e = new MemoryEngine({ store, embedder: new FakeEmbedder(16), background, maintenanceIntervalMs: 3_600_000 });
      await e.open();
      for (let i = 0; i < 40; i++) await e.add({ content: `burst ${i}`, user_id: 'u' });
      await e.close();
    }
    assert.equal(calls.on, 2);
    assert.equal(calls.off, 0);
  });

  it('looks for a backlog of unembedded rows after a burst of commits only when it stored such rows', async () => {
    const run = async (embedder: Embedder): Promise<{ stats: number; backlog: number }> => {
      const store = new InMemoryStore();
      const counts = { stats: 0, backlog: 0 };
      const stats = store.stats.bind(store);
      store.stats = async () => {
        counts.stats++;
        return stats();
      };
      const unembedded = store.unembedded.bind(store);
      store.unembedded = async (model, limit) => {
        counts.backlog++;
        return unembedded(model, limit);
      };
      const e = new MemoryEngine({ store, embedder, background: true, maintenanceIntervalMs: 3_600_000 });
      await e.open();
      for (let i = 0; i < 40; i++) await e.add({ content: `burst ${i}`, user_id: 'u' });
      await e.close();
      return counts;
    };
    const ready = await run(new FakeEmbedder(16));
    assert.equal(ready.stats, 0, 'every row got its vector: no count of the store after commits');
    const failing = new FakeEmbedder(16);
    failing.embedDocuments = async () => {
      throw new Error('model fault');
    };
    const broken = await run(failing);
    assert.ok(broken.stats >= 1, 'rows stored without a vector: the backlog is looked for');
    assert.ok(broken.backlog >= 1);
  });

  it('applies the scopes of DESIGN §4', async () => {
    const e = await engine();
    await e.add({ content: 'repo decision about caching', user_id: 'u', repo: 'r1', dir: 'api', space: 'project', run_id: 's1' });
    await e.add({ content: 'other repo caching', user_id: 'u', repo: 'r2', space: 'project' });
    await e.add({ content: 'personal caching preference', user_id: 'u', space: 'personal', repo: null });
    await e.add({ content: 'someone else personal caching', user_id: 'v', space: 'personal' });
    const q = async (scope: 'repo' | 'dir' | 'user' | 'session', ctx: Record<string, string>): Promise<string[]> =>
      (await e.search({ query: 'caching', scope, ...ctx, top_k: 10 })).results.map((r) => r.row.content).sort();
    assert.deepEqual(await q('repo', { repo: 'r1' }), ['repo decision about caching']);
    assert.deepEqual(await q('dir', { repo: 'r1', dir: 'api' }), ['repo decision about caching']);
    assert.deepEqual(await q('user', { user_id: 'u' }), ['personal caching preference']);
    assert.deepEqual(await q('session', { run_id: 's1' }), ['repo decision about caching']);
    await assert.rejects(e.search({ query: 'x', scope: 'repo' }), (err: unknown) => err instanceof EngineError && err.code === 'VALIDATION');
  });

  it('collapses exact and near duplicate results', async () => {
    const e = await engine();
    await e.add({ content: 'Use pnpm for installs', user_id: 'u' });
    await e.add({ content: 'use   PNPM for installs', user_id: 'u' });
    await e.add({ content: 'Use pnpm for installs.', user_id: 'u' });
    await e.add({ content: 'Node 20 is required', user_id: 'u' });
    const r = await e.search({ query: 'pnpm installs', top_k: 10 });
    assert.equal(r.results.filter((x) => /pnpm/i.test(x.row.content)).length, 1);
  });

  it('scores in 0..1 and honours threshold and top_k', async () => {
    const e = await engine();
    for (let i = 0; i < 20; i++) await e.add({ content: `service ${i} uses redis for sessions ${i % 3 === 0 ? 'and queues' : ''}`, user_id: 'u' });
    const all = await e.search({ query: 'redis queues', top_k: 7 });
    assert.equal(all.results.length, 7);
    for (const r of all.results) assert.ok(r.score > 0 && r.score <= 1);
    const strict = await e.search({ query: 'redis queues', top_k: 20, threshold: 0.9 });
    for (const r of strict.results) assert.ok(r.score >= 0.9);
    assert.ok(strict.results.length < 20);
  });

  it('runs on full text alone without a model and reports it', async () => {
    const e = await engine(null);
    await e.add({ content: 'lexical only memory about kafka', user_id: 'u' });
    const r = await e.search({ query: 'kafka' });
    assert.equal(r.mode, 'text');
    assert.equal(r.results.length, 1);
    const s = await e.status();
    assert.equal(s.mode, 'text');
  });

  it('embeds the backlog once a model appears', async () => {
    const store = new InMemoryStore();
    const lexical = new MemoryEngine({ store, embedder: null, background: false });
    await lexical.open();
    await lexical.add({ content: 'written while no model was ready', user_id: 'u' });
    await lexical.flushWrites();
    const fake = new FakeEmbedder(32);
    const withModel = new MemoryEngine({ store, embedder: fake, background: false });
    store.setActiveModel(fake.model);
    assert.equal((await store.stats()).unembedded, 1);
    assert.equal(await withModel.embedBacklog(), 1);
    assert.equal((await store.stats()).unembedded, 0);
    const r = await withModel.search({ query: 'written while no model was ready', mode: 'vector' });
    assert.equal(r.mode, 'vector');
    assert.equal(r.results.length, 1);
  });

  it('refuses an update longer than a block and metadata over the bound', async () => {
    const e = await engine();
    const [m] = await e.add({ content: 'short', user_id: 'u' });
    await assert.rejects(e.update(m!.memory_id, { content: 'x'.repeat(5000) }), (err: unknown) => err instanceof EngineError && err.code === 'CONTENT_TOO_LARGE');
    await assert.rejects(e.add({ content: 'x', user_id: 'u', metadata: { a: 'y'.repeat(20000) } }), (err: unknown) => err instanceof EngineError && err.code === 'CONTENT_TOO_LARGE');
    assert.equal((await e.get(m!.memory_id)).content, 'short');
  });

  it('keeps writes to one memory in order within a batch', async () => {
    const e = await engine();
    const [m] = await e.add({ content: 'v1', user_id: 'u' });
    await Promise.all([e.update(m!.memory_id, { content: 'v2' }), e.update(m!.memory_id, { content: 'v3' }), e.delete(m!.memory_id)]);
    const h = await e.history(m!.memory_id);
    assert.deepEqual(
      h.map((v) => [v.version, v.event]),
      [
        [1, 'ADD'],
        [2, 'UPDATE'],
        [3, 'UPDATE'],
        [4, 'DELETE'],
      ],
    );
  });
});
