/**
 * `bench:server --backend postgres`: the embedded backend and the PostgreSQL one side by side in one
 * run, PostgreSQL also with two replicas sharing the load (server.ts documents the options).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPostgres, type TestPostgres } from '../../test/helpers/postgres.js';
import { settle } from './daemon-process.js';
import { combined, type Row } from './http-load.js';
import { machineDescription } from './machine.js';
import { writeBenchSection } from './markdown.js';
import { modelDescription } from './model-choice.js';
import { Rng } from './rng.js';
import { stopChild } from './serve-process.js';
import { corpus, memoryText, queryText, type Corpus } from './server-corpus.js';
import { seed } from './server-seed.js';
import { CONNECTIONS, DTYPE, DURATION, fixedRate, load, MODEL_DIR, N, RATE, repo, SETTLE_MAX_MS, startServer, values, WARM_SECONDS } from './server-settings.js';

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

export async function compareBackends(): Promise<void> {
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
