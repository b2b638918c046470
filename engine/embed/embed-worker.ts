/**
 * The worker thread of WorkerEmbedder: a TransformersEmbedder whose inference runs here, off the
 * host's main thread. Its state, log records, vectors and errors go back as messages.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EngineError } from '../errors.js';
import { createLogger } from '../log.js';
import { TransformersEmbedder } from './transformers.js';
import type { FromWorker, ToWorker, WorkerInit } from './worker-protocol.js';

const port = parentPort!;
const init = workerData as WorkerInit;
const post = (m: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);
const logger = createLogger((r) => {
  const { time: _time, level, ns, msg, ...fields } = r;
  post({ type: 'log', level, ns, msg, fields });
}, 'debug', 'worker');
const embedder = new TransformersEmbedder({ spec: init.spec, cacheDir: init.cacheDir, offline: init.offline, logger });
embedder.onState((state) => post({ type: 'state', state, dim: embedder.dim }));

function failed(id: number, err: unknown): void {
  post({ type: 'failed', id, code: err instanceof EngineError ? err.code : null, message: err instanceof Error ? err.message : String(err) });
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'warm') embedder.warm();
  else if (m.type === 'ready') embedder.ready().then(() => post({ type: 'done', id: m.id, vectors: [] }), (err: unknown) => failed(m.id, err));
  else {
    const work = m.kind === 'query' ? embedder.embedQuery(m.texts[0] ?? '').then((v) => [v]) : embedder.embedDocuments(m.texts);
    work.then(
      // Each vector is its own copy (a slice), so its buffer can move to the main thread.
      (vectors) => post({ type: 'done', id: m.id, vectors }, vectors.map((v) => v.buffer as ArrayBuffer)),
      (err: unknown) => failed(m.id, err),
    );
  }
});
