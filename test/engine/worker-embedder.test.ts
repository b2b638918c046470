import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cosine, EngineError, resolveModelSpec, TransformersEmbedder, WorkerEmbedder, type EmbedderState } from '../../engine/index.js';
import { repoRoot, sharedDir, tempDir } from '../helpers/tmp.js';

const spec = () => resolveModelSpec({ model: '', modelDir: sharedDir('models', 'random-bert-tiny'), cacheDir: '' });

describe('WorkerEmbedder (the model in a worker thread)', () => {
  it('gives the same vectors as the in-thread embedder, reports its state, and batches documents', async () => {
    const inThread = new TransformersEmbedder({ spec: spec(), cacheDir: tempDir('embed-main-'), offline: true });
    const worker = new WorkerEmbedder({ spec: spec(), cacheDir: tempDir('embed-worker-'), offline: true });
    const states: EmbedderState['status'][] = [];
    worker.onState((s) => states.push(s.status));
    try {
      await worker.ready();
      assert.equal(worker.state().status, 'ready');
      // Loading a local folder also reports read progress ('downloading'), as in-thread.
      assert.equal(states[0], 'loading');
      assert.equal(states.at(-1), 'ready');
      assert.ok(!states.includes('unavailable'));
      assert.equal(worker.dim, inThread.dim);
      const texts = ['we deploy with blue-green releases', 'prefer pnpm over npm', 'postgres is the system of record'];
      const [a, b] = await Promise.all([worker.embedDocuments(texts), inThread.embedDocuments(texts)]);
      assert.equal(a.length, 3);
      a.forEach((v, i) => assert.ok(cosine(v, b[i]!) > 0.9999, `document ${i}`));
      const queries = await Promise.all(texts.map((t) => worker.embedQuery(t)));
      for (let i = 0; i < texts.length; i++) assert.ok(cosine(queries[i]!, await inThread.embedQuery(texts[i]!)) > 0.9999, `query ${i}`);
      assert.deepEqual(await worker.embedDocuments([]), []);
    } finally {
      await worker.close();
      await inThread.close();
    }
    await assert.rejects(worker.embedQuery('after close'), (err: unknown) => err instanceof EngineError && err.code === 'MODEL_MISSING');
  });

  it('a model that cannot load rejects with MODEL_MISSING and reports unavailable', async () => {
    const missing = resolveModelSpec({ model: '', modelDir: path.join(tempDir('no-model-'), 'nothing-here'), cacheDir: '' });
    const worker = new WorkerEmbedder({ spec: missing, cacheDir: tempDir('embed-worker-'), offline: true });
    try {
      await assert.rejects(worker.embedQuery('hello'), (err: unknown) => err instanceof EngineError && err.code === 'MODEL_MISSING');
      assert.equal(worker.state().status, 'unavailable');
    } finally {
      await worker.close();
    }
  });

  it('an idle worker does not keep the process alive', () => {
    const script = `
      const { WorkerEmbedder, resolveModelSpec } = await import(${JSON.stringify(repoRoot('dist', 'engine', 'index.js'))});
      const w = new WorkerEmbedder({ spec: resolveModelSpec({ model: '', modelDir: ${JSON.stringify(sharedDir('models', 'random-bert-tiny'))}, cacheDir: '' }), cacheDir: ${JSON.stringify(tempDir('embed-exit-'))}, offline: true });
      const v = await w.embedQuery('one query, then nothing');
      console.log('dim', v.length);
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /dim \d+/, 'the query was answered, and the process then exited by itself');
  });
});
