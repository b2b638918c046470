import type { Logger } from '../log.js';
import { resolveModelSpec, type ModelDtypeChoice } from './model-spec.js';
import { TransformersEmbedder } from './transformers.js';
import type { Embedder } from './types.js';
import { WorkerEmbedder } from './worker-embedder.js';

/**
 * The embedder a host should use for its configuration (model id or local folder). `inWorker`
 * runs the model in a worker thread (the server: many concurrent searches); the daemon embeds on
 * its own thread (one recall at a time, less memory).
 */
export function createEmbedder(opts: { model: string; modelDir: string; offline: boolean; cacheDir: string; dtype?: ModelDtypeChoice; logger?: Logger; inWorker?: boolean }): Embedder {
  const spec = resolveModelSpec(opts);
  const o = { spec, cacheDir: opts.cacheDir, offline: opts.offline, ...(opts.logger ? { logger: opts.logger } : {}) };
  return opts.inWorker ? new WorkerEmbedder(o) : new TransformersEmbedder(o);
}
