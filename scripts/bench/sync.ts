/**
 * Sync benchmark (`npm run bench:sync`): `service serve` as a child process, and in this process
 * two machines (engine on LanceDB in a temp dir + the real SyncService and HTTP transport) that
 * reach the server through a counting TCP proxy, so "bytes on the wire" are the TCP payload bytes
 * (HTTP headers included) in both directions.
 *
 * 1. Machine A holds N new memories (written through the engine's import path, not measured) and
 *    pushes them: versions per second pushed.
 * 2. Machine B starts empty and bootstraps the project: time to hold all N, versions per second pulled.
 * 3. A edits E of them; A pushes the edits and B pulls them (steady state).
 *
 * No embedding model anywhere, so the numbers are sync's and the store's, not the model's: the
 * machines run with a null embedder, the server with SERVICE_OFFLINE=true and no model folder
 * (it stores versions without vectors). `--model DIR` gives all three a local model instead.
 *
 * Options: --memories N (10000), --edits E (1000), --batch B (200), --model DIR, --no-write.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { contentHash, exportLine, LanceStore, MemoryEngine, resolveModelSpec, TransformersEmbedder, uuidv7, type Embedder } from '../../engine/index.js';
import { HttpTransport, SyncService, type RoundReport } from '../../sync/index.js';
import { startFaultProxy, type FaultProxy } from '../../test/helpers/fault-proxy.js';
import { machineDescription } from './machine.js';
import { writeBenchSection } from './markdown.js';
import { startServe, stopChild } from './serve-process.js';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
const { values } = parseArgs({
  options: {
    memories: { type: 'string', default: '10000' },
    edits: { type: 'string', default: '1000' },
    batch: { type: 'string', default: '200' },
    model: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
  },
});
const N = values.quick ? 1000 : Number(values.memories);
const EDITS = Math.min(values.quick ? 100 : Number(values.edits), N);
const BATCH = Number(values.batch);
const MODEL_DIR = values.model ? path.resolve(values.model) : null;

const TECH = ['postgres', 'redis', 'kafka', 'sqlite', 'lancedb', 'pnpm', 'vitest', 'esbuild', 'docker', 'terraform', 'grpc', 'zod'];
const AREA = ['billing', 'search', 'auth', 'onboarding', 'the api gateway', 'background jobs', 'the cli', 'metrics', 'deploys', 'caching'];
function text(i: number): string {
  return `Memory ${i}: we decided to use ${TECH[i % TECH.length]} for ${AREA[(i * 7) % AREA.length]} because it keeps latency predictable; owner team ${i % 40}.`;
}

async function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string; key: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, SERVICE_HOME: path.join(dataDir, 'home'), SERVICE_OFFLINE: 'true', SERVICE_RATE_LIMIT_PER_MINUTE: '10000000', SERVICE_LOG_LEVEL: 'warn', SERVICE_TELEMETRY: 'false' };
  if (MODEL_DIR) env.SERVICE_MODEL_DIR = MODEL_DIR;
  else delete env.SERVICE_MODEL_DIR;
  const s = await startServe(dataDir, env, { withKey: true });
  return { child: s.child, url: s.url, key: s.key! };
}

interface Machine {
  engine: MemoryEngine;
  sync: SyncService;
}

async function machine(dir: string, url: string, key: string, embedder: Embedder | null): Promise<Machine> {
  const engine = new MemoryEngine({ store: new LanceStore({ dir: path.join(dir, 'lance'), dim: embedder?.dim ?? 384 }), embedder, background: false });
  await engine.open();
  const sync = new SyncService({
    engine,
    stateFile: path.join(dir, 'sync.json'),
    transport: new HttpTransport({ baseUrl: url, apiKey: key, timeoutMs: 120_000 }),
    intervalMs: 3_600_000,
    batch: BATCH,
    retryBaseMs: 1000,
    retryMaxMs: 10_000,
    auto: false,
  });
  await sync.start();
  return { engine, sync };
}

function must(r: RoundReport): RoundReport {
  if (!r.ok) throw new Error(`sync round failed: ${r.error?.message}`);
  return r;
}

interface Measure {
  label: string;
  versions: number;
  ms: number;
  up: number;
  down: number;
}

/** Run `fn` and note the proxy's byte counters around it. */
async function measured(proxy: FaultProxy, label: string, versions: number, fn: () => Promise<number>): Promise<Measure> {
  const up0 = proxy.stats.up;
  const down0 = proxy.stats.down;
  const ms = await fn();
  return { label, versions, ms, up: proxy.stats.up - up0, down: proxy.stats.down - down0 };
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-sync-'));
  let child: ChildProcess | null = null;
  let embedder: Embedder | null = null;
  try {
    const server = await startServer(path.join(root, 'server'));
    child = server.child;
    const proxy = await startFaultProxy({ host: '127.0.0.1', port: Number(new URL(server.url).port) });
    if (MODEL_DIR) {
      embedder = new TransformersEmbedder({ spec: resolveModelSpec({ model: '', modelDir: MODEL_DIR, cacheDir: '' }), cacheDir: path.join(root, 'models'), offline: true });
      await embedder.ready();
    }
    const a = await machine(path.join(root, 'a'), proxy.url, server.key, embedder);
    const now = Date.now();
    const lines: string[] = [];
    const ids: string[] = [];
    for (let i = 0; i < N; i++) {
      const memoryId = uuidv7(now + i);
      ids.push(memoryId);
      const content = text(i);
      const t = now - N + i;
      lines.push(
        JSON.stringify({
          ...exportLine({
            version_id: uuidv7(now + i),
            memory_id: memoryId,
            version: 1,
            tx: 1,
            seq: 0,
            content,
            content_hash: contentHash(content),
            user_id: `user-${i % 25}`,
            agent_id: 'bench',
            app_id: null,
            run_id: `session-${i % 300}`,
            owner_id: null,
            space: 'project',
            repo: 'github.com/acme/app',
            dir: 'src',
            category: 'decision',
            metadata: { confidence: 0.9 },
            source: { kind: 'capture', session_id: `session-${i % 300}` },
            valid_from: t,
            valid_to: null,
            recorded_at: t,
            created_at: t,
            deleted: false,
            block: null,
            vector: null,
            embed_model: null,
          }),
        }),
      );
    }
    console.log(`machine A: writing ${N} memories locally`);
    const rows: Measure[] = [];
    must(await a.sync.now({ pull: false })); // the key check, outside the measurements
    await a.engine.import(lines);
    rows.push(
      await measured(proxy, `push ${N.toLocaleString('en-US')} new memories (A → server)`, N, async () => {
        const r = must(await a.sync.now({ pull: false }));
        if (r.push!.accepted !== N) throw new Error(`pushed ${r.push!.accepted} of ${N}`);
        return r.push!.ms;
      }),
    );
    console.log(`pushed in ${(rows[0]!.ms / 1000).toFixed(1)} s`);
    rows.push(
      await measured(proxy, `A reads its own ${N.toLocaleString('en-US')} versions back from the feed (learns they are on the server)`, N, async () => {
        const r = must(await a.sync.now());
        if (r.pull!.events !== N || r.pull!.inserted !== 0) throw new Error(`read back ${r.pull!.events} events, inserted ${r.pull!.inserted}`);
        return r.pull!.ms;
      }),
    );
    const b = await machine(path.join(root, 'b'), proxy.url, server.key, embedder);
    rows.push(
      await measured(proxy, `bootstrap a new machine with ${N.toLocaleString('en-US')} memories (server → B)`, N, async () => {
        const t0 = performance.now();
        const r = must(await b.sync.now());
        if (r.pull!.inserted !== N) throw new Error(`bootstrapped ${r.pull!.inserted} of ${N}`);
        return performance.now() - t0;
      }),
    );
    console.log(`bootstrapped in ${(rows[2]!.ms / 1000).toFixed(1)} s`);
    for (let i = 0; i < EDITS; i += 256) {
      await Promise.all(ids.slice(i, Math.min(i + 256, EDITS)).map((id, k) => a.engine.update(id, { content: `${text(i + k)} Edited: revisited after the incident review.` })));
    }
    rows.push(
      await measured(proxy, `push ${EDITS.toLocaleString('en-US')} edits (A → server)`, EDITS, async () => {
        const r = must(await a.sync.now({ pull: false }));
        if (r.push!.accepted !== EDITS) throw new Error(`pushed ${r.push!.accepted} of ${EDITS} edits`);
        return r.push!.ms;
      }),
    );
    rows.push(
      await measured(proxy, `pull ${EDITS.toLocaleString('en-US')} edits (server → B)`, EDITS, async () => {
        const r = must(await b.sync.now());
        if (r.pull!.inserted !== EDITS) throw new Error(`pulled ${r.pull!.inserted} of ${EDITS} edits`);
        return r.pull!.ms;
      }),
    );
    await a.sync.stop({ drainMs: 0 });
    await b.sync.stop({ drainMs: 0 });
    await a.engine.close();
    await b.engine.close();
    await proxy.close();

    const table = [
      '| step | versions | time | versions/s | bytes on the wire per version (up + down) |',
      '| --- | ---: | ---: | ---: | ---: |',
      ...rows.map((r) => `| ${r.label} | ${r.versions.toLocaleString('en-US')} | ${(r.ms / 1000).toFixed(2)} s | ${Math.round((r.versions / r.ms) * 1000).toLocaleString('en-US')} | ${Math.round((r.up + r.down) / r.versions)} (${Math.round(r.up / r.versions)} + ${Math.round(r.down / r.versions)}) |`),
    ].join('\n');
    const section = [
      '## Sync: push, pull, bootstrap (`npm run bench:sync`)',
      '',
      `Two machines (engine on LanceDB in a temp dir, the real sync loop and undici transport) and \`service serve\` as a child process on loopback, with a counting TCP proxy between them: bytes are TCP payload in both directions, HTTP headers included. Push batches of ${BATCH} versions; pull pages of 1,000 events. ${MODEL_DIR ? `Model \`${path.basename(MODEL_DIR)}\` on both machines and the server.` : 'No embedding model anywhere (null embedder on the machines; the server runs with `SERVICE_OFFLINE=true` and no model, storing versions without vectors), so the numbers are sync’s and the store’s, not the model’s.'} Each memory is one version whose export line is ${Math.round(lines.reduce((n, l) => n + Buffer.byteLength(l), 0) / lines.length)} bytes of JSON (content ~130 characters plus ids, times, source, metadata). Machine: ${machineDescription()}.`,
      '',
      table,
      '',
      'Time is the push or pull phase of a round as the sync loop reports it (the bootstrap row: the whole first round of a new machine, key check included). The feed does not know which machine wrote a version, so a pushing machine reads its own versions back once (second row): that costs it the download, not a second push.',
      '',
      `Reproduce: \`npm run bench:sync\` (options: \`-- --memories ${N} --edits ${EDITS} --batch ${BATCH} [--model ../shared/models/random-bert-tiny]\`).`,
    ].join('\n');
    console.log(`\n${section}\n`);
    if (!values['no-write']) writeBenchSection(path.join(repo, 'BENCHMARKS.md'), 'sync', section);
  } finally {
    await stopChild(child);
    await embedder?.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}


await main();
