import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRelevant, MemoryEngine, RELEVANCE_FLOOR, relevance } from '../../engine/index.js';
import { InMemoryStore } from '../../engine/store/memory-store.js';

describe('relevance floor', () => {
  it('needs two informative query terms (or every one of a shorter query), not one shared common word', () => {
    const memory = 'We store sessions in Postgres, not SQLite.';
    assert.equal(isRelevant('use the store for this please', memory), false, 'one common shared word');
    assert.equal(isRelevant('where do we store sessions', memory), true);
    assert.equal(isRelevant('postgres?', memory), true, 'a one-term query matched in full');
    assert.equal(isRelevant('I like your rec, create the plan', 'The plan: migrate the CLI to Rust.'), false);
  });

  it('measures the share against the smaller side, so a long prompt can still recall a short memory', () => {
    const prompt = 'ok so the build is broken again on the laptop, nvcc is missing and I think we need the cuda toolkit installed before we can run anything on the gpu, can you walk me through it';
    const r = relevance(prompt, 'Install CUDA toolkit 12.6 with apt-get install cuda-toolkit-12-6 (nvcc).');
    assert.ok(r.matched.length >= 2, String(r.matched));
    assert.equal(r.relevant, true);
    assert.ok(RELEVANCE_FLOOR.minShare > 0 && RELEVANCE_FLOOR.minTerms === 2);
  });

  it('matches the forms of a word whose stem drops a final e (stored / store, decided / decide)', () => {
    assert.ok(isRelevant('how are sessions stored', 'We decided to store sessions in PostgreSQL, never in Redis.'));
    assert.ok(isRelevant('what was decided about caching', 'We decide on caching per route.'));
    assert.ok(!isRelevant('how are sessions stored', 'Sessions expire after an hour.'), 'one shared term is still not enough');
  });

  it('is applied by engine search when asked, and only then', async () => {
    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
    await engine.open();
    await engine.add({ content: 'We store sessions in Postgres, not SQLite.', user_id: 'u', category: 'decision' });
    await engine.add({ content: 'Tests run with pnpm test.', user_id: 'u', category: 'fact' });
    const plain = await engine.search({ query: 'please store this thing', user_id: 'u' });
    assert.equal(plain.results.length, 1, 'the top full-text hit of one common word');
    const floored = await engine.search({ query: 'please store this thing', user_id: 'u', relevance: true });
    assert.equal(floored.results.length, 0);
    const good = await engine.search({ query: 'which database stores sessions, postgres?', user_id: 'u', relevance: true });
    assert.deepEqual(
      good.results.map((h) => h.row.content),
      ['We store sessions in Postgres, not SQLite.'],
    );
    await engine.close();
  });
});
