/**
 * The memories a `bench:server` run seeds and the queries it searches with: texts from a fixed
 * seed, embedded once (or read from `--corpus-cache`) and shared by every backend of the run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveModelSpec, TransformersEmbedder } from '../../engine/index.js';
import { Rng } from './rng.js';
import { DTYPE, MODEL_DIR, N, values } from './server-settings.js';

const TECH = ['postgres', 'redis', 'kafka', 'nats', 'sqlite', 'lancedb', 'pnpm', 'vitest', 'esbuild', 'docker', 'terraform', 'grpc', 'graphql', 'tailwind', 'react', 'express', 'zod', 'prisma', 'rust', 'go'];
const AREA = ['billing', 'search', 'auth', 'onboarding', 'the api gateway', 'background jobs', 'the cli', 'metrics', 'deploys', 'caching', 'logging', 'the mobile app', 'exports', 'webhooks', 'the admin ui'];
const WHY = ['it is faster under load', 'the team already knows it', 'it keeps latency predictable', 'it is simpler to operate', 'licensing is clear', 'tests run in seconds', 'it works offline', 'memory use stays flat'];
const VERB = ['decided to use', 'moved to', 'standardised on', 'stopped using', 'prefer', 'must keep', 'benchmark', 'document'];
export function memoryText(r: Rng, i: number): string {
  return `Memory ${i}: we ${r.pick(VERB)} ${r.pick(TECH)} for ${r.pick(AREA)} because ${r.pick(WHY)}; owner team ${r.int(40)}.`;
}
export function queryText(r: Rng): string {
  return `why do we ${r.pick(VERB)} ${r.pick(TECH)} for ${r.pick(AREA)}`;
}

/**
 * The seeded memories: texts from a fixed seed, embedded once in batches and shared by every
 * backend the run seeds (the model is deterministic, so each backend gets the vectors it would
 * have made itself).
 */
export interface Corpus {
  rows: { user_id: string; content: string }[];
  vectors: Float32Array[];
  model: string;
  dim: number;
  embedMs: number;
}

const EMBED_BATCH = 256;

/** The cache file's header: what the vectors were made from (any difference: embedded again). */
function cacheKey(): string {
  return JSON.stringify({ n: N, model: MODEL_DIR, dtype: DTYPE, v: 1 });
}

function readCachedCorpus(file: string, rows: Corpus['rows']): Corpus | null {
  if (!fs.existsSync(file)) return null;
  const buf = fs.readFileSync(file);
  const headerLen = buf.readUInt32LE(0);
  const header = JSON.parse(buf.subarray(4, 4 + headerLen).toString('utf8')) as { key: string; model: string; dim: number; embedMs: number };
  if (header.key !== cacheKey()) return null;
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset + 4 + headerLen, buf.byteOffset + buf.length));
  const vectors = Array.from({ length: N }, (_, i) => data.subarray(i * header.dim, (i + 1) * header.dim));
  console.log(`corpus vectors read from ${file} (embedded earlier in ${(header.embedMs / 1000).toFixed(1)} s)`);
  return { rows, vectors, model: header.model, dim: header.dim, embedMs: header.embedMs };
}

function writeCachedCorpus(file: string, c: Corpus): void {
  const header = Buffer.from(JSON.stringify({ key: cacheKey(), model: c.model, dim: c.dim, embedMs: c.embedMs }), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(header.length);
  const data = new Float32Array(N * c.dim);
  c.vectors.forEach((v, i) => data.set(v, i * c.dim));
  fs.writeFileSync(file, Buffer.concat([len, header, Buffer.from(data.buffer)]));
}

export async function corpus(): Promise<Corpus> {
  const r = new Rng(42);
  const rows = Array.from({ length: N }, (_, i) => ({ user_id: `user-${i % 25}`, content: memoryText(r, i) }));
  const cacheFile = values['corpus-cache'];
  const cached = cacheFile ? readCachedCorpus(cacheFile, rows) : null;
  if (cached) return cached;
  const made = await embedCorpus(rows);
  if (cacheFile) writeCachedCorpus(cacheFile, made);
  return made;
}

async function embedCorpus(rows: Corpus['rows']): Promise<Corpus> {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-models-'));
  const embedder = new TransformersEmbedder({ spec: resolveModelSpec({ model: '', modelDir: MODEL_DIR, cacheDir: '', dtype: DTYPE }), cacheDir, offline: true });
  try {
    await embedder.ready();
    const t0 = performance.now();
    const vectors: Float32Array[] = [];
    for (let i = 0; i < N; i += EMBED_BATCH) {
      vectors.push(...(await embedder.embedDocuments(rows.slice(i, i + EMBED_BATCH).map((x) => x.content))));
      process.stdout.write(`\rembedded ${vectors.length}/${N}`);
    }
    process.stdout.write('\n');
    return { rows, vectors, model: embedder.model, dim: embedder.dim, embedMs: performance.now() - t0 };
  } finally {
    await embedder.close();
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
}
