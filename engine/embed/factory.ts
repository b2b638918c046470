import type { Logger } from '../log.js';
import { resolveModelSpec, type ModelDtypeChoice } from './model-spec.js';
import { TransformersEmbedder } from './transformers.js';
import type { Embedder } from './types.js';

/** The embedder a host should use for its configuration (model id or local folder). */
export function createEmbedder(opts: { model: string; modelDir: string; offline: boolean; cacheDir: string; dtype?: ModelDtypeChoice; logger?: Logger }): Embedder {
  const spec = resolveModelSpec(opts);
  return new TransformersEmbedder({ spec, cacheDir: opts.cacheDir, offline: opts.offline, ...(opts.logger ? { logger: opts.logger } : {}) });
}
