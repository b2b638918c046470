import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cosine, resolveModelSpec, TransformersEmbedder } from '../../engine/index.js';
import { sharedDir, tempDir } from '../helpers/tmp.js';

test('queries that arrive while one runs are embedded together, each getting its own vector', async () => {
  const spec = resolveModelSpec({ model: '', modelDir: sharedDir('models', 'random-bert-tiny'), cacheDir: '' });
  const embedder = new TransformersEmbedder({ spec, cacheDir: tempDir('embed-batch-'), offline: true });
  try {
    const texts = Array.from({ length: 12 }, (_, i) => `query ${i} about ${['postgres', 'redis', 'deploys', 'billing'][i % 4]} and the ${i % 3 === 0 ? 'cli' : 'api gateway'} setup`);
    const alone: Float32Array[] = [];
    for (const t of texts) alone.push(await embedder.embedQuery(t));
    assert.equal(embedder.runs.inferences, 12, 'one at a time: one run each');

    const before = { ...embedder.runs };
    const together = await Promise.all(texts.map((t) => embedder.embedQuery(t)));
    const runs = embedder.runs.inferences - before.inferences;
    assert.equal(embedder.runs.texts - before.texts, 12);
    // Asked for in the same turn of the event loop: one batch.
    assert.equal(runs, 1, `${runs} runs for 12 concurrent queries`);
    // One more, asked for while a batch runs: the next batch.
    const first = embedder.embedQuery(texts[0]!);
    await new Promise((r) => setImmediate(r));
    const late = await Promise.all([embedder.embedQuery(texts[1]!), embedder.embedQuery(texts[2]!)]);
    await first;
    assert.equal(embedder.runs.inferences - before.inferences, 3, 'a run, then the two that came during it');
    assert.ok(cosine(late[1]!, alone[2]!) > 0.9999);
    for (let i = 0; i < texts.length; i++) assert.ok(cosine(alone[i]!, together[i]!) > 0.9999, `query ${i} got its own vector`);
  } finally {
    await embedder.close();
  }
});

test('a failed batch rejects every query in it, and later queries still run', async () => {
  const spec = resolveModelSpec({ model: '', modelDir: sharedDir('models', 'random-bert-tiny'), cacheDir: '' });
  const embedder = new TransformersEmbedder({ spec, cacheDir: tempDir('embed-batch-'), offline: true });
  try {
    await embedder.ready();
    const inner = embedder as unknown as { embed: (texts: string[]) => Promise<Float32Array[]> };
    const real = inner.embed.bind(embedder);
    let fail = true;
    inner.embed = async (texts) => {
      if (fail) {
        fail = false;
        throw new Error('inference failed');
      }
      return real(texts);
    };
    const results = await Promise.allSettled([embedder.embedQuery('a'), embedder.embedQuery('b'), embedder.embedQuery('c')]);
    // All three were in the failed batch; the next query runs normally.
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected', 'rejected']);
    assert.equal((await embedder.embedQuery('d')).length, embedder.dim);
  } finally {
    await embedder.close();
  }
});

test('an embedder burns no CPU while idle after a query (ONNX Runtime threads do not spin)', async () => {
  // Spinning workers burn ~30 ms of a core after every run: the store's search and the hook
  // processes that run right after a query would share the machine with them.
  const spec = resolveModelSpec({ model: '', modelDir: sharedDir('models', 'random-bert-tiny'), cacheDir: '' });
  const embedder = new TransformersEmbedder({ spec, cacheDir: tempDir('embed-idle-'), offline: true });
  try {
    for (let i = 0; i < 3; i++) await embedder.embedQuery(`warm up ${i}`);
    const burned: number[] = [];
    for (let i = 0; i < 5; i++) {
      await embedder.embedQuery(`how do we deploy the billing service, take ${i}`);
      const c0 = process.cpuUsage();
      await new Promise((r) => setTimeout(r, 40));
      const c = process.cpuUsage(c0);
      burned.push((c.user + c.system) / 1000);
    }
    burned.sort((a, b) => a - b);
    // With spinning: 25-35 ms of CPU in each 40 ms window. The median window here must be quiet.
    assert.ok(burned[2]! < 10, `CPU ms used in 40 ms idle windows after a query: ${burned.map((x) => x.toFixed(1)).join(', ')}`);
  } finally {
    await embedder.close();
  }
});
