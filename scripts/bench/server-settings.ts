/**
 * The settings of a `bench:server` run (its command line, server.ts documents the options) and the
 * constants derived from them, shared by the embedded run (server.ts) and the backend comparison
 * (server-backends.ts); and the server as the run starts it.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadRunners } from './http-load.js';
import { modelDtype } from './model-choice.js';
import { startServe, type Served } from './serve-process.js';

export const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
export const { values } = parseArgs({
  options: {
    memories: { type: 'string', default: '10000' },
    duration: { type: 'string', default: '15' },
    rate: { type: 'string', default: '200' },
    model: { type: 'string', default: path.resolve(repo, '..', 'shared', 'models', 'random-minilm-l6') },
    dtype: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
    backend: { type: 'string', default: 'embedded' },
    'database-url': { type: 'string' },
    /** Development: keep the embedded corpus in this file and reuse it on the next run with the same size, model and dtype. */
    'corpus-cache': { type: 'string' },
    /** Development: skip the embedded backend in a `--backend postgres` run (nothing is written to BENCHMARKS.md). */
    'postgres-only': { type: 'boolean', default: false },
  },
});
export const N = Number(values.memories);
export const DURATION = Number(values.duration);
export const RATE = Number(values.rate);
export const MODEL_DIR = path.resolve(values.model!);
export const DTYPE = modelDtype(values.dtype);
export const CONNECTIONS = 10;
/** A lower fixed rate measured beside RATE: where the latency target holds on this machine. */
export const LOWER_RATE = Math.round(RATE * 0.75);
/** Longest wait for a server to finish what an earlier run left it (searches still queued). */
export const SETTLE_MAX_MS = 600_000;
/**
 * Before the two-replica search run, both replicas take its load this long, unmeasured: the second
 * replica has just started, and a fresh process spends its first seconds compiling its hot paths
 * (the first replica had the one-replica run). Replicas behind a load balancer run warm.
 */
export const WARM_SECONDS = 5;

export const { load, fixedRate } = loadRunners({ duration: DURATION, connections: CONNECTIONS });

export function startServer(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<Served> {
  return startServe(dataDir, { ...process.env, SERVICE_HOME: path.join(dataDir, 'home'), SERVICE_MODEL_DIR: MODEL_DIR, SERVICE_MODEL_DTYPE: DTYPE, SERVICE_OFFLINE: 'true', SERVICE_RATE_LIMIT_PER_MINUTE: '10000000', SERVICE_LOG_LEVEL: 'warn', ...env });
}
