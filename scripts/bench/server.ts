/**
 * Server benchmark (`npm run bench:server`): seeds a project with 10k memories through the
 * engine's batch path, starts `service serve` as a child process on that data dir, and drives it
 * over HTTP: add and search throughput with p50/p99 latency from autocannon (10 concurrent
 * connections, closed loop), then search at a constant 200 requests/s (and 75% of that) from
 * loadtest (open loop) against the p99 ≤ 50 ms target; then restarts the server on the same data
 * with in-memory search off, for the same searches through LanceDB's indexes side by side. Prints
 * a markdown table and writes it into BENCHMARKS.md between the bench:server markers.
 *
 * Options: --memories N (10000), --duration S (15), --rate R (200), --model DIR
 * (../shared/models/random-minilm-l6), --dtype q8|fp32 (q8), --no-write (do not touch BENCHMARKS.md).
 *
 * `--backend postgres` instead runs the embedded backend and the PostgreSQL one
 * (SERVICE_DATABASE_URL) side by side in one run, PostgreSQL also with two replicas sharing the
 * load: on `--database-url URL`, or on a throwaway PostgreSQL 15 cluster started here. The corpus
 * is embedded once and imported into each backend with its vectors (engine.import, 500 rows a
 * transaction), so `--memories 100000` seeds in minutes.
 *
 * Development options: `--corpus-cache FILE` keeps the embedded corpus's vectors in FILE and reuses
 * them on the next run of the same size and model; `--postgres-only` skips the embedded backend
 * (and writes nothing to BENCHMARKS.md).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadTest, type LoadTestOptions, type LoadTestResult } from 'loadtest';
import { DEFAULT_RESIDENT_ROWS, LanceStore, MemoryEngine, PgStore, pgPoolClient, ResidentBudget, resolveModelSpec, TransformersEmbedder, uuidv7 } from '../../engine/index.js';
import { migrateServer, PgTenancyStore, TenancyStore } from '../../server/index.js';
import { startPostgres, type TestPostgres } from '../../test/helpers/postgres.js';
import { writeBenchSection } from './markdown.js';
import { Rng } from './rng.js';
import { machineDescription } from './machine.js';
import { modelDescription, modelDtype } from './model-choice.js';
import { settle, statusBytes } from './daemon-process.js';
import { startServe, stopChild, type Served } from './serve-process.js';
import { mb } from './stats.js';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
const { values } = parseArgs({
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
const N = Number(values.memories);
const DURATION = Number(values.duration);
const RATE = Number(values.rate);
const MODEL_DIR = path.resolve(values.model!);
const DTYPE = modelDtype(values.dtype);
const CONNECTIONS = 10;
/** A lower fixed rate measured beside RATE: where the latency target holds on this machine. */
const LOWER_RATE = Math.round(RATE * 0.75);
/** Longest wait for a server to finish what an earlier run left it (searches still queued). */
const SETTLE_MAX_MS = 600_000;
/**
 * Before the two-replica search run, both replicas take its load this long, unmeasured: the second
 * replica has just started, and a fresh process spends its first seconds compiling its hot paths
 * (the first replica had the one-replica run). Replicas behind a load balancer run warm.
 */
const WARM_SECONDS = 5;

const TECH = ['postgres', 'redis', 'kafka', 'nats', 'sqlite', 'lancedb', 'pnpm', 'vitest', 'esbuild', 'docker', 'terraform', 'grpc', 'graphql', 'tailwind', 'react', 'express', 'zod', 'prisma', 'rust', 'go'];
const AREA = ['billing', 'search', 'auth', 'onboarding', 'the api gateway', 'background jobs', 'the cli', 'metrics', 'deploys', 'caching', 'logging', 'the mobile app', 'exports', 'webhooks', 'the admin ui'];
const WHY = ['it is faster under load', 'the team already knows it', 'it keeps latency predictable', 'it is simpler to operate', 'licensing is clear', 'tests run in seconds', 'it works offline', 'memory use stays flat'];
const VERB = ['decided to use', 'moved to', 'standardised on', 'stopped using', 'prefer', 'must keep', 'benchmark', 'document'];
function memoryText(r: Rng, i: number): string {
  return `Memory ${i}: we ${r.pick(VERB)} ${r.pick(TECH)} for ${r.pick(AREA)} because ${r.pick(WHY)}; owner team ${r.int(40)}.`;
}
function queryText(r: Rng): string {
  return `why do we ${r.pick(VERB)} ${r.pick(TECH)} for ${r.pick(AREA)}`;
}

/**
 * The seeded memories: texts from a fixed seed, embedded once in batches and shared by every
 * backend the run seeds (the model is deterministic, so each backend gets the vectors it would
 * have made itself).
 */
interface Corpus {
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

async function corpus(): Promise<Corpus> {
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

/**
 * Seed a project through the engine's batch path (`engine.import`, what POST /v1/imports runs:
 * one check of the whole set, then appends of 500 rows a transaction) with the corpus's vectors
 * attached, so the import embeds nothing. The server records the versions' events when it opens
 * the project.
 */
async function seed(dataDir: string, c: Corpus, databaseUrl = ''): Promise<{ key: string; projectId: string; dim: number; seedMs: number; indexMs: number }> {
  const db = databaseUrl ? pgPoolClient(databaseUrl) : null;
  if (db) await migrateServer(db);
  const boot = db ? await (await PgTenancyStore.open(db, dataDir)).bootstrapShared() : new TenancyStore(dataDir).bootstrap();
  if (!boot) throw new Error(`${dataDir} is not empty`);
  const engine = new MemoryEngine({
    store: db
      ? new PgStore({ db, store: boot.project.project_id, dim: c.dim })
      : new LanceStore({ dir: path.join(dataDir, 'projects', boot.project.project_id, 'lance'), dim: c.dim }),
    embedder: null,
    background: false,
  });
  await engine.open();
  const t0 = performance.now();
  const now = Date.now() - N; // one ms apart, all in the past
  const byMemory = new Map<string, number>();
  const lines = c.rows.map((x, i) => {
    const at = new Date(now + i).toISOString();
    const memory_id = uuidv7(now + i);
    byMemory.set(memory_id, i);
    return JSON.stringify({
      kind: 'version', version_id: uuidv7(now + i), memory_id, version: 1, tx: 1, content: x.content, user_id: x.user_id, agent_id: 'bench', app_id: null, run_id: null,
      owner_id: null, space: 'project', repo: 'github.com/acme/app', dir: null, category: 'note', metadata: {}, source: { kind: 'api' },
      valid_from: at, valid_to: null, recorded_at: at, created_at: at, deleted: false, block: null,
    });
  });
  await engine.import(lines, { rewrite: (row) => ({ ...row, vector: c.vectors[byMemory.get(row.memory_id)!]!, embed_model: c.model }) });
  const seedMs = performance.now() - t0;
  const t1 = performance.now();
  await engine.maintain(true); // compaction and the vector index, as the server's upkeep would
  const indexMs = performance.now() - t1;
  await engine.close();
  await db?.close();
  return { key: boot.secret, projectId: boot.project.project_id, dim: c.dim, seedMs, indexMs };
}

function startServer(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<Served> {
  return startServe(dataDir, { ...process.env, SERVICE_HOME: path.join(dataDir, 'home'), SERVICE_MODEL_DIR: MODEL_DIR, SERVICE_MODEL_DTYPE: DTYPE, SERVICE_OFFLINE: 'true', SERVICE_RATE_LIMIT_PER_MINUTE: '10000000', SERVICE_LOG_LEVEL: 'warn', ...env });
}

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  /** What the errors were: requests past autocannon's 10 s timeout (counted in its errors), non-2xx answers, other connection errors. */
  errorKinds: string;
}

async function load(name: string, url: string, key: string, path_: string, body: () => string, opts: { overallRate?: number; connections?: number } = {}): Promise<Row> {
  const result = await autocannon({
    url: url + path_,
    method: 'POST',
    connections: opts.connections ?? CONNECTIONS,
    duration: DURATION,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: body() }) }],
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
  });
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total, errors: result.errors + result.non2xx, errorKinds: errorKinds(result) };
}

/**
 * Requests at a constant rate, open loop (loadtest's requestsPerSecond: one request every
 * 1000/rate ms whatever the answers, a new connection when none is free), latency from each
 * request's send. autocannon's `overallRate` is not that: each connection sends back to back until
 * it has made its share of the second, then waits for the next second, so every second starts with
 * a burst of up to `connections` requests, and its latency histogram adds corrected values for a
 * 1 ms expected interval.
 */
async function fixedRate(name: string, url: string, key: string, path_: string, rate: number, body: () => string, seconds = DURATION): Promise<Row> {
  // Without a callback loadtest returns a promise (its typings only describe the callback form).
  const run = loadTest as unknown as (options: LoadTestOptions) => Promise<LoadTestResult & { effectiveRps: number }>;
  const r = await run({
    url: url + path_,
    method: 'POST',
    requestsPerSecond: rate,
    maxSeconds: seconds,
    headers: { authorization: `Bearer ${key}` },
    contentType: 'application/json',
    // loadtest calls a function body once per request (its typings only list string and object).
    body: body as unknown as string,
    agentKeepAlive: true,
    quiet: true,
  });
  const statuses = Object.entries(r.errorCodes ?? {}).map(([code, n]) => `${n}× ${code}`);
  return { name, rps: r.effectiveRps, p50: r.percentiles[50] ?? NaN, p99: r.percentiles[99] ?? NaN, requests: r.totalRequests, errors: r.totalErrors, errorKinds: statuses.length > 0 ? ` (${statuses.join(', ')})` : '' };
}

function errorKinds(r: { errors: number; timeouts: number; non2xx: number; statusCodeStats?: Partial<Record<string, { count?: number }>> }): string {
  const statuses = Object.entries(r.statusCodeStats ?? {})
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, s]) => `${s?.count ?? 0}× ${code}`);
  const parts = [...(r.timeouts > 0 ? [`${r.timeouts} timed out`] : []), ...statuses, ...(r.errors - r.timeouts > 0 ? [`${r.errors - r.timeouts} connection errors`] : [])];
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-server-'));
  let child: ChildProcess | null = null;
  try {
    console.log(`seeding ${N} memories with ${path.basename(MODEL_DIR)} into ${dataDir}`);
    const s = await seed(dataDir, await corpus());
    const started = await startServer(dataDir);
    child = started.child;
    let { url } = started;
    const warmUp = async (): Promise<void> => {
      const warm = await fetch(`${url}/v1/memories/search`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'warm up the model' }) });
      if (warm.status !== 200) throw new Error(`warm-up search answered ${warm.status}: ${await warm.text()}`);
    };
    await warmUp();
    const rAdd = new Rng(7);
    let added = 0;
    const rows: Row[] = [];
    rows.push(await load(`add (POST /v1/memories), ${CONNECTIONS} connections`, url, s.key, '/v1/memories', () => JSON.stringify({ user_id: `user-${added % 25}`, agent_id: 'bench', content: memoryText(rAdd, N + added++) })));
    // The adds leave maintenance behind (compaction, new rows into the indexes): the searches run on
    // a server started afresh on the result (so its memory is that of searching alone), each run
    // once the one before is fully answered.
    await settle(child.pid!);
    await stopChild(child);
    // Fold what the adds left unindexed into the indexes now, so neither search server below
    // starts with that work (it would count in its memory and its first run).
    const store = new LanceStore({ dir: path.join(dataDir, 'projects', s.projectId, 'lance'), dim: s.dim, residentBudget: new ResidentBudget(0) });
    await store.open();
    await store.maintain({ force: true });
    await store.close();
    const searching = await startServer(dataDir);
    child = searching.child;
    url = searching.url;
    await warmUp();
    await settle(child.pid!);
    const rss = { memory: { started: statusBytes(child.pid!, 'VmRSS'), searched: 0 }, indexes: { started: 0, searched: 0 } };
    const rq = new Rng(9);
    rows.push(await load(`search (POST /v1/memories/search), ${CONNECTIONS} connections`, url, s.key, '/v1/memories/search', () => JSON.stringify({ query: queryText(rq) })));
    await settle(child.pid!);
    rows.push(await fixedRate(`search, ${RATE} requests/s at a constant rate (open loop)`, url, s.key, '/v1/memories/search', RATE, () => JSON.stringify({ query: queryText(rq) })));
    await settle(child.pid!);
    rows.push(await fixedRate(`search, ${LOWER_RATE} requests/s at a constant rate`, url, s.key, '/v1/memories/search', LOWER_RATE, () => JSON.stringify({ query: queryText(rq) })));
    rss.memory.searched = statusBytes(child.pid!, 'VmRSS');
    await settle(child.pid!);
    // The same rate with 50 repeated queries: their embeddings come from the engine's query
    // cache, so this row is the cost of everything but the model (HTTP, auth, LanceDB, ranking).
    const pool = Array.from({ length: 50 }, () => queryText(rq));
    let k = 0;
    rows.push(await fixedRate(`search, ${RATE} requests/s at a constant rate, 50 repeated queries (embedding cached)`, url, s.key, '/v1/memories/search', RATE, () => JSON.stringify({ query: pool[k++ % pool.length] })));
    await stopChild(child);
    // The same data, the same server with its store searched through LanceDB's indexes alone.
    const indexed = await startServer(dataDir, { SERVICE_RESIDENT_SEARCH_ROWS: '0' });
    child = indexed.child;
    const via = 'searched through LanceDB’s indexes (`SERVICE_RESIDENT_SEARCH_ROWS=0`)';
    url = indexed.url;
    await warmUp();
    await settle(child.pid!);
    rss.indexes.started = statusBytes(child.pid!, 'VmRSS');
    rows.push(await load(`search, ${CONNECTIONS} connections, ${via}`, url, s.key, '/v1/memories/search', () => JSON.stringify({ query: queryText(rq) })));
    await settle(child.pid!);
    rows.push(await fixedRate(`search, ${LOWER_RATE} requests/s at a constant rate, ${via}`, url, s.key, '/v1/memories/search', LOWER_RATE, () => JSON.stringify({ query: queryText(rq) })));
    rss.indexes.searched = statusBytes(child.pid!, 'VmRSS');
    const fixed = rows[2]!;
    const pass = fixed.p99 <= 50 && fixed.errors === 0 && fixed.rps >= RATE * 0.95;
    const table = [
      '| workload | requests/s served | p50 ms | p99 ms | requests | errors |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map((r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.requests} | ${r.errors}${r.errorKinds} |`),
    ].join('\n');
    const section = [
      '## Server: /v1 over HTTP (`npm run bench:server`)',
      '',
      `${N.toLocaleString('en-US')} memories in one project (seeded through the engine's batch path in ${(s.seedMs / 1000).toFixed(1)} s, index build ${(s.indexMs / 1000).toFixed(1)} s), model ${modelDescription(path.basename(MODEL_DIR), DTYPE)}, server as a child process, load from autocannon (closed loop, ${CONNECTIONS} connections, each sending its next request when the last is answered) and from loadtest (constant rate, open loop: one request every 1000/rate ms whatever the answers), ${DURATION} s per run, every request a distinct text unless the row says otherwise. Machine: ${machineDescription()}, load generator and server on the same machine.`,
      '',
      table,
      '',
      `Unless a row says otherwise, the project's ${N.toLocaleString('en-US')} memories are searched in memory (the store's resident view, \`SERVICE_RESIDENT_SEARCH_ROWS\` default ${DEFAULT_RESIDENT_ROWS.toLocaleString('en-US')}); the last two rows restart the server on the same data with it off. The add run has a server of its own. Server RSS searching in memory: ${mb(rss.memory.started)} after the warm-up search, ${mb(rss.memory.searched)} after its ${LOWER_RATE}/s run; through the indexes: ${mb(rss.indexes.started)} and ${mb(rss.indexes.searched)}.`,
      '',
      `Target: search p99 ≤ 50 ms at ${RATE} requests/s → **${pass ? 'met' : 'missed'}** (served ${fixed.rps.toFixed(0)} requests/s of the ${RATE} offered, p99 ${fixed.p99} ms).`,
      '',
      'Reproduce: `npm run build && npm run bench:server` (options: `-- --memories 10000 --duration 15 --rate 200 --dtype q8`).',
    ].join('\n');
    console.log(`\n${section}\n`);
    if (!values['no-write']) writeBenchSection(path.join(repo, 'BENCHMARKS.md'), 'server', section);
  } finally {
    await stopChild(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs against several replicas at once as one row: throughput and counts added, latency of the worse. */
function combined(name: string, parts: readonly Row[]): Row {
  return {
    name: `${name}; p99 per replica ${parts.map((r) => r.p99).join(' / ')} ms`,
    rps: parts.reduce((n, r) => n + r.rps, 0),
    p50: Math.max(...parts.map((r) => r.p50)),
    p99: Math.max(...parts.map((r) => r.p99)),
    requests: parts.reduce((n, r) => n + r.requests, 0),
    errors: parts.reduce((n, r) => n + r.errors, 0),
    errorKinds: parts.map((r) => r.errorKinds).join(''),
  };
}

/** One backend's rows: adds (10 connections), then searches at RATE/s through one replica and, on PostgreSQL, through two. */
async function backendRows(backend: 'embedded' | 'postgres', databaseUrl: string, c: Corpus): Promise<{ rows: Row[]; seedMs: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${backend}-`));
  const children: ChildProcess[] = [];
  try {
    console.log(`${backend}: seeding ${N} memories`);
    const s = await seed(dataDir, c, databaseUrl);
    const env = databaseUrl ? { SERVICE_DATABASE_URL: databaseUrl } : {};
    const a = await startServer(dataDir, env);
    children.push(a.child);
    const warm = async (url: string): Promise<void> => {
      const r = await fetch(`${url}/v1/memories/search`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'warm up the model' }) });
      if (r.status !== 200) throw new Error(`warm-up search answered ${r.status}: ${await r.text()}`);
    };
    await warm(a.url);
    const rows: Row[] = [];
    const rAdd = new Rng(7);
    let added = 0;
    rows.push(await load(`add, ${CONNECTIONS} connections, one replica`, a.url, s.key, '/v1/memories', () => JSON.stringify({ user_id: `user-${added % 25}`, agent_id: 'bench', content: memoryText(rAdd, N + added++) })));
    await settle(a.child.pid!, SETTLE_MAX_MS);
    const rq = new Rng(9);
    const q = (): string => JSON.stringify({ query: queryText(rq) });
    rows.push(await fixedRate(`search, ${RATE} requests/s, one replica`, a.url, s.key, '/v1/memories/search', RATE, q));
    if (backend === 'postgres') {
      const b = await startServer(path.join(dataDir, 'replica-b'), env);
      children.push(b.child);
      await warm(b.url);
      await Promise.all([a.url, b.url].map((u) => fixedRate('warm-up', u, s.key, '/v1/memories/search', RATE / 2, q, WARM_SECONDS)));
      // Each run starts on quiet replicas: a run the server could not keep up with leaves requests
      // it is still answering (loadtest stops sending but keeps them open), which the next run
      // would otherwise wait behind.
      await Promise.all([a, b].map((r) => settle(r.child.pid!, SETTLE_MAX_MS)));
      const halves = await Promise.all([a.url, b.url].map((u, i) => fixedRate(`half ${i}`, u, s.key, '/v1/memories/search', RATE / 2, q)));
      rows.push(combined(`search, ${RATE} requests/s split over two replicas (p50/p99: the worse replica)`, halves));
      await Promise.all([a, b].map((r) => settle(r.child.pid!, SETTLE_MAX_MS)));
      let added2 = 0;
      const rAdd2 = new Rng(11);
      const adds = await Promise.all(
        [a.url, b.url].map((u) => load('half', u, s.key, '/v1/memories', () => JSON.stringify({ user_id: `user-${added2 % 25}`, agent_id: 'bench', content: memoryText(rAdd2, 2 * N + added2++) }), { connections: CONNECTIONS / 2 })),
      );
      rows.push(combined(`add, ${CONNECTIONS} connections split over two replicas`, adds));
    }
    return { rows, seedMs: s.seedMs };
  } finally {
    for (const c of children) await stopChild(c);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function compareBackends(): Promise<void> {
  let cluster: TestPostgres | null = null;
  try {
    let url = values['database-url'] ?? '';
    if (!url) {
      cluster = await startPostgres();
      const started = cluster;
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void started.stop().then(() => process.exit(130)));
      url = await cluster.createDatabase('bench');
    }
    console.log(`embedding ${N} memories with ${path.basename(MODEL_DIR)} (once, for both backends)`);
    const c = await corpus();
    const embedded = values['postgres-only'] ? { rows: [], seedMs: NaN } : await backendRows('embedded', '', c);
    const pg = await backendRows('postgres', url, c);
    const all = [...embedded.rows.map((r) => ['embedded (LanceDB + files)', r] as const), ...pg.rows.map((r) => ['PostgreSQL 15, no pgvector (resident view)', r] as const)];
    const tableText = [
      '| backend | workload | requests/s served | p50 ms | p99 ms | requests | errors |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
      ...all.map(([b, r]) => `| ${b} | ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.requests} | ${r.errors}${r.errorKinds} |`),
    ].join('\n');
    const find = (rows: Row[], prefix: string): Row | undefined => rows.find((r) => r.name.startsWith(prefix));
    const one = find(pg.rows, `search, ${RATE} requests/s, one`)!;
    const two = find(pg.rows, `search, ${RATE} requests/s split`)!;
    const adds = [find(pg.rows, 'add, 10 connections, one')!, find(pg.rows, 'add, 10 connections split')!];
    const verdict = (ok: boolean): string => (ok ? 'met' : 'missed');
    const section = [
      '## Server backends side by side (`npm run bench:server -- --backend postgres`)',
      '',
      `${N.toLocaleString('en-US')} memories in one project on each backend (embedded once in ${(c.embedMs / 1000).toFixed(1)} s, then imported through the engine's batch path with those vectors: ${(embedded.seedMs / 1000).toFixed(1)} s embedded, ${(pg.seedMs / 1000).toFixed(1)} s PostgreSQL), model ${modelDescription(path.basename(MODEL_DIR), DTYPE)}, servers as child processes, ${DURATION} s per run (the two-replica search run after ${WARM_SECONDS} s of the same load, unmeasured: the second replica has just started), adds from autocannon (closed loop), searches from loadtest (open loop, constant rate). PostgreSQL: ${values['database-url'] ? 'the given database' : 'a PostgreSQL 15 cluster started by the bench (fsync off)'} on the same machine, which has no pgvector: each replica serves both channels from its resident view, caught up from the database's change log before every search. Machine: ${machineDescription()}, load generator, servers and database on the same 2 cores.`,
      '',
      tableText,
      '',
      `Targets on PostgreSQL: search p99 ≤ 50 ms at ${RATE}/s through one replica → **${verdict(one.p99 <= 50 && one.errors === 0 && one.rps >= RATE * 0.95)}** (p99 ${one.p99} ms, ${one.rps.toFixed(0)}/s served); through two replicas sharing the load → **${verdict(two.p99 <= 50 && two.errors === 0 && two.rps >= RATE * 0.95)}** (p99 ${two.p99} ms); adds ≥ 150/s with 10 writers → **${verdict(Math.max(...adds.map((x) => x.rps)) >= 150)}** (${adds.map((x) => x.rps.toFixed(0)).join(' and ')}/s). The targets name 100k memories; this run has ${N.toLocaleString('en-US')}.`,
      '',
      'Reproduce: `npm run bench:server -- --backend postgres --memories 100000` on a quiet machine (the targets\' size; options: `--memories N --duration S --rate R --database-url postgres://…`).',
    ].join('\n');
    console.log(`\n${section}\n`);
    if (!values['no-write'] && !values['postgres-only']) writeBenchSection(path.join(repo, 'BENCHMARKS.md'), 'server-backends', section);
  } finally {
    await cluster?.stop();
  }
}

if (values.backend === 'postgres') await compareBackends();
else if (values.backend === 'embedded') await main();
else throw new Error(`--backend takes embedded or postgres, not ${values.backend}`);
