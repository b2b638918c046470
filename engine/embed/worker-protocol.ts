/** Messages between WorkerEmbedder (main thread) and its worker (embed-worker.ts). */
import type { LogLevel } from '../log.js';
import type { ModelSpec } from './model-spec.js';
import type { EmbedderState } from './types.js';

export interface WorkerInit {
  spec: ModelSpec;
  cacheDir: string;
  offline: boolean;
}

export type ToWorker = { type: 'warm' } | { type: 'ready'; id: number } | { type: 'embed'; id: number; kind: 'query' | 'documents'; texts: string[] };

export type FromWorker =
  | { type: 'state'; state: EmbedderState; dim: number }
  | { type: 'done'; id: number; vectors: Float32Array[] }
  | { type: 'failed'; id: number; code: string | null; message: string }
  | { type: 'log'; level: LogLevel; ns: string; msg: string; fields: Record<string, unknown> };
