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
import { DEFAULT_RESIDENT_ROWS, LanceStore, ResidentBudget } from '../../engine/index.js';
import { settle, statusBytes } from './daemon-process.js';
import type { Row } from './http-load.js';
import { machineDescription } from './machine.js';
import { writeBenchSection } from './markdown.js';
import { modelDescription } from './model-choice.js';
import { Rng } from './rng.js';
import { stopChild } from './serve-process.js';
import { compareBackends } from './server-backends.js';
import { corpus, memoryText, queryText } from './server-corpus.js';
import { seed } from './server-seed.js';
import { mb } from './stats.js';
import { CONNECTIONS, DTYPE, DURATION, fixedRate, load, LOWER_RATE, MODEL_DIR, N, RATE, repo, startServer, values } from './server-settings.js';

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

if (values.backend === 'postgres') await compareBackends();
else if (values.backend === 'embedded') await main();
else throw new Error(`--backend takes embedded or postgres, not ${values.backend}`);
