/** Prefix search while typing: the last word of a query being typed also matches as a prefix. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MemoryEngine, type MemoryStore } from '../../engine/index.js';
import { LanceStore } from '../../engine/store/lance-store.js';
import { InMemoryStore } from '../../engine/store/memory-store.js';
import { completeTerm, typedPrefix, withCompletions } from '../../engine/text/complete.js';
import { tempDir } from '../helpers/tmp.js';

describe('prefix completion', () => {
  it('takes the word still being typed, never one followed by a space or a single letter', () => {
    assert.equal(typedPrefix('session postg'), 'postg');
    assert.equal(typedPrefix('session postg '), null);
    assert.equal(typedPrefix('p'), null);
    assert.equal(typedPrefix('request_i'), null);
    assert.equal(typedPrefix('request_id'), 'id');
    assert.equal(typedPrefix('the build-too'), 'too');
  });

  it('completes from the vocabulary, commonest first, and adds only new terms', () => {
    const vocab = new Map([['postgre', 3], ['postgresql', 1], ['post', 9], ['redis', 4]]);
    assert.deepEqual(completeTerm(vocab, 'postg'), ['postgre', 'postgresql']);
    assert.deepEqual(completeTerm(vocab, 'x'), []);
    assert.equal(withCompletions('db postg', ['postgre'], 'postg'), 'db postg postgre');
    assert.equal(withCompletions('db post', ['post'], 'post'), 'db post');
  });
});

const stores: [string, () => MemoryStore][] = [
  ['in-memory store', () => new InMemoryStore()],
  ['LanceDB', () => new LanceStore({ dir: path.join(tempDir('prefix-'), 'db'), dim: 8 })],
];

for (const [name, make] of stores) {
  describe(`prefix search over the ${name}`, () => {
    it('finds "postgres" from "postg" only when asked, and keeps whole-word search as it was', async () => {
      const engine = new MemoryEngine({ store: make(), embedder: null, background: false });
      await engine.open();
      try {
        await engine.add({ content: 'We use PostgreSQL for the session store; postgres runs in docker.', user_id: 'u', category: 'decision' });
        await engine.add({ content: 'Redis caches the product pages.', user_id: 'u', category: 'fact' });
        const typed = await engine.search({ query: 'postg', user_id: 'u', prefix: true });
        assert.deepEqual(typed.results.map((h) => h.row.content.slice(0, 6)), ['We use']);
        assert.equal((await engine.search({ query: 'postg', user_id: 'u' })).results.length, 0, 'without prefix, no partial word matches');
        const twoWords = await engine.search({ query: 'product pag', user_id: 'u', prefix: true });
        assert.match(twoWords.results[0]!.row.content, /Redis caches/);
        assert.equal((await engine.search({ query: 'postg ', user_id: 'u', prefix: true })).results.length, 0, 'a finished word is a whole word');
      } finally {
        await engine.close();
      }
    });
  });
}
