import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeEmbedder } from '../../engine/index.js';
import { startEmbeddingsEndpoint, type EmbeddingsEndpoint } from '../../scripts/eval/embeddings-endpoint.js';

describe('OpenAI-compatible embeddings endpoint for the peer benchmark', () => {
  const embedder = new FakeEmbedder(16);
  let ep: EmbeddingsEndpoint;
  before(async () => {
    ep = await startEmbeddingsEndpoint(embedder, { model: 'fake' });
  });
  after(async () => {
    await ep.close();
  });

  const post = async (route: string, body: unknown): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${ep.baseURL}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, json: await res.json() };
  };

  it('answers with the embedder\'s own vectors, in input order, for a string or a list', async () => {
    const one = await post('/embeddings', { input: 'redis holds sessions', model: 'x' });
    assert.equal(one.status, 200);
    assert.deepEqual(one.json.data[0].embedding, Array.from((await embedder.embedDocuments(['redis holds sessions']))[0]!));
    const texts = ['a long text about billing queues and jobs', 'b', 'c c c'];
    const many = await post('/embeddings', { input: texts });
    const want = await embedder.embedDocuments(texts);
    assert.deepEqual(
      many.json.data.map((d: { index: number; embedding: number[] }) => [d.index, d.embedding]),
      want.map((v, i) => [i, Array.from(v)]),
    );
  });

  it('embeds concurrent requests and hands each its own vectors', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `text number ${i} about topic ${i % 3}`);
    const outs = await Promise.all(texts.map((t) => post('/embeddings', { input: t })));
    const want = await embedder.embedDocuments(texts);
    outs.forEach((o, i) => assert.deepEqual(o.json.data[0].embedding, Array.from(want[i]!)));
    assert.ok(ep.stats.texts >= 12 + 4);
  });

  it('counts and refuses an LLM call', async () => {
    const before = ep.stats.llmCalls;
    const r = await post('/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.status, 503);
    assert.equal(ep.stats.llmCalls, before + 1);
  });
});
