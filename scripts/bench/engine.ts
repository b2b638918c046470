/**
 * Engine benchmark (issue 2): add throughput, search latency at 1k/10k/100k memories (hybrid and
 * full-text, with and without a repo filter), approximate-index recall@10, search under many single
 * adds, and memory. Prints markdown and rewrites its section of BENCHMARKS.md.
 *
 *   npm run bench:engine                 full run (writes BENCHMARKS.md)
 *   npm run bench:engine -- --quick      reduced run, up to 10k (prints only; add --write to record)
 *   options: --no-write, --model-dir DIR, --keep (leave the temp dir)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder, LanceStore, MemoryEngine, type ModelDtypeChoice } from '../../engine/index.js';
import { measureAdds } from './add-throughput.js';
import { measureChurn, SEARCH_GAP_MS } from './churn.js';
import { fragmentPool, memoryText, pairOf, query, REPOS } from './corpus.js';
import { machineDescription } from './machine.js';
import { writeBenchSection } from './markdown.js';
import { PooledEmbedder } from './pooled-embedder.js';
import { measureRecall } from './recall.js';
import { modelDtype } from './model-choice.js';
import { renderReport, TARGETS, type BenchResults, type SizeResult } from './report.js';
import type { RssReport } from './rss-probe.js';
import { Rng } from './rng.js';
import { measureQueryEmbedding, measureSearch, SEARCH_CASES, type BenchQuery } from './search-latency.js';
import { seeder } from './seed.js';

interface Plan {
  sizes: number[];
  poolSize: number;
  singleAdds: number;
  batchAdds: number;
  queries: number;
  passes: number;
  recallQueries: number;
  churnAdds: number;
  churnWindow: number;
}

const FULL: Plan = { sizes: [1_000, 10_000, 100_000], poolSize: 3000, singleAdds: 300, batchAdds: 3000, queries: 200, passes: 3, recallQueries: 100, churnAdds: 2000, churnWindow: 400 };
const QUICK: Plan = { sizes: [1_000, 10_000], poolSize: 1000, singleAdds: 50, batchAdds: 600, queries: 60, passes: 2, recallQueries: 40, churnAdds: 300, churnWindow: 100 };
const SEED = 20260301;

const here = path.dirname(new URL(import.meta.url).pathname);
const repoRoot = path.resolve(here, '..', '..', '..');

function loadAverage(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');
}

function progress(msg: string): void {
  console.log(`· ${msg}`);
}

async function meanTokens(modelName: string, texts: readonly string[]): Promise<number> {
  const t = await import('@huggingface/transformers');
  const tok = await t.AutoTokenizer.from_pretrained(modelName);
  let sum = 0;
  for (const s of texts) sum += tok.encode(s).length;
  return sum / texts.length;
}

function runProbe(db: string, modelDir: string, cache: string, dtype: ModelDtypeChoice): { probe: RssReport | null; error?: string } {
  const res = spawnSync(process.execPath, [path.join(here, 'rss-probe.js'), '--db', db, '--model-dir', modelDir, '--cache', cache, '--dtype', dtype], { encoding: 'utf8' });
  const line = res.stdout.trim().split('\n').pop() ?? '';
  try {
    return { probe: JSON.parse(line) as RssReport };
  } catch {
    return { probe: null, error: (res.stderr || line || `exit ${res.status}`).slice(0, 300) };
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      write: { type: 'boolean' },
      'no-write': { type: 'boolean', default: false },
      'model-dir': { type: 'string' },
      dtype: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  });
  const quick = values.quick ?? false;
  const write = values['no-write'] ? false : (values.write ?? !quick);
  const plan = quick ? QUICK : FULL;
  const started = performance.now();
  const loadStart = loadAverage();
  const modelDir = path.resolve(values['model-dir'] ?? path.join(repoRoot, '..', 'shared', 'models', 'random-minilm-l6'));
  const dtype = modelDtype(values.dtype);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-engine-'));
  const cacheDir = path.join(tmp, 'model-cache');

  progress(`model ${modelDir}`);
  const embedder = createEmbedder({ model: '', modelDir, dtype, offline: true, cacheDir });
  const tLoad = performance.now();
  await embedder.ready();
  const loadMs = performance.now() - tLoad;

  const qr = new Rng(SEED + 3);
  const queries: BenchQuery[] = Array.from({ length: plan.queries }, () => ({ text: query(qr), repo: REPOS[qr.skewed(REPOS.length)]! }));
  const queryEmbedding = await measureQueryEmbedding(embedder, queries);

  progress(`add throughput: ${plan.singleAdds} single, ${plan.batchAdds} concurrent`);
  const adds = await measureAdds(embedder, { dir: tmp, single: plan.singleAdds, batch: plan.batchAdds, seed: SEED + 5 });
  progress(`single ${adds.single.perSecond.toFixed(0)}/s, batch ${adds.batch.perSecond.toFixed(0)}/s, model alone ${adds.embedOnly.perSecond.toFixed(0)}/s`);

  const pool = fragmentPool(SEED, plan.poolSize);
  const pooled = new PooledEmbedder(embedder, pool);
  const tPool = performance.now();
  await pooled.prepare();
  const poolSec = (performance.now() - tPool) / 1000;
  const samplePairs = Array.from({ length: 100 }, (_, i) => pairOf(i * 997, pool.length));
  const fidelity = await pooled.fidelity(samplePairs);
  const tokens = await meanTokens(path.basename(modelDir), samplePairs.map((_, i) => memoryText(pool, i * 997)));
  progress(`pool of ${pool.length} fragments embedded in ${poolSec.toFixed(1)} s; stand-in fidelity ${fidelity.toFixed(3)}`);

  const db = path.join(tmp, 'db');
  const store = new LanceStore({ dir: db, dim: embedder.dim });
  const engine = new MemoryEngine({ store, embedder: pooled });
  await engine.open();
  const grow = seeder(engine, pooled, pool, SEED + 1);
  const sizes: SizeResult[] = [];
  for (const size of plan.sizes) {
    const seedPerSecond = await grow.growTo(size);
    const tm = performance.now();
    await store.maintain({ force: true });
    const maintenanceMs = performance.now() - tm;
    const st = await store.stats();
    progress(`${size} memories (seeded at ${seedPerSecond.toFixed(0)}/s, maintenance ${(maintenanceMs / 1000).toFixed(1)} s, vector index ${st.vectorIndex})`);
    const searches = [];
    for (const c of SEARCH_CASES) {
      const result = await measureSearch(engine, queries, c, plan.passes);
      progress(`  ${c.label}: p50 ${result.latency.p50.toFixed(2)} p95 ${result.latency.p95.toFixed(2)} ms, CPU ${result.cpuMs.toFixed(2)} ms`);
      searches.push({ case: c, result });
    }
    const searchedIn = store.residentRows() === null ? 'indexes' : 'memory';
    const recall = [];
    // In memory every search is exact: the approximate index is measured where it answers.
    if (st.vectorIndex && searchedIn === 'indexes') {
      for (const f of ['none', 'repo'] as const) {
        const r = await measureRecall(store, embedder, queries.slice(0, plan.recallQueries), f);
        progress(`  recall@10 (${f}): ${r.recall.toFixed(3)}`);
        recall.push(r);
      }
    }
    sizes.push({ size, seedPerSecond, maintenanceMs, vectorIndex: st.vectorIndex, searchedIn, diagnostics: await store.diagnostics(), searches, recall, rss: process.memoryUsage().rss });
  }
  const afterSeed = sizes[sizes.length - 1]!.rss;

  progress(`${plan.churnAdds} single adds with searches beside them`);
  const churn = await measureChurn(engine, store, queries.slice(0, 50), { adds: plan.churnAdds, window: plan.churnWindow, seed: SEED + 9 });
  const afterSearches = process.memoryUsage().rss;
  await engine.close();

  progress('daemon-like memory probe');
  const probe = runProbe(db, modelDir, cacheDir, dtype);
  await embedder.close();

  const results: BenchResults = {
    command: quick ? 'npm run bench:engine -- --quick' : 'npm run bench:engine',
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine: machineDescription(),
    quick,
    durationSec: (performance.now() - started) / 1000,
    model: { id: embedder.model, dir: modelDir, dtype, loadMs, meanTokens: tokens },
    pool: { size: pool.length, embedSec: poolSec, fidelity },
    queryEmbedding,
    adds,
    sizes,
    churn,
    rss: { afterSeed, afterSearches, probe: probe.probe, ...(probe.error ? { probeError: probe.error } : {}) },
    load: { start: loadStart, end: loadAverage() },
    notes: [],
  };
  results.notes = notes(results, plan);
  const md = renderReport(results);
  console.log(`\n${md}\n`);
  if (write) {
    writeBenchSection(path.join(repoRoot, 'BENCHMARKS.md'), 'engine', md);
  }
  if (values.keep) progress(`kept ${tmp}`);
  else fs.rmSync(tmp, { recursive: true, force: true });
}

function notes(r: BenchResults, plan: Plan): string[] {
  const out = [
    `Seeding reuses a pool of ${r.pool.size} embedded sentences (embedded in ${r.pool.embedSec.toFixed(1)} s): each memory is two pool sentences, and its vector is the token-weighted mean of theirs. Mean pooling makes that close to the model's own vector (mean cosine ${r.pool.fidelity.toFixed(3)} on 100 sampled memories). Add throughput above runs the model on every text.`,
    'The models in ../shared/models have random weights: their vectors behave like a lexical stand-in, so recall here measures the index against exact search, not retrieval quality.',
    `Timed searches: ${plan.queries} distinct queries, ${plan.passes} passes after a warm-up pass (which also fills the query-embedding cache), top_k 5; repo scope = that repo's project memories (repos are skewed like real activity, so a scope holds 2–28% of the memories). CPU ms is the process's CPU time per search over all threads; on 2 cores a search cannot take less wall time than half of it.`,
    `Single adds on the largest store: ${plan.churnAdds} sequential adds with real embedding and a repo-scoped search every ${SEARCH_GAP_MS} ms beside them, with the engine's own background upkeep (after every 16 commits and every 15 s). "Quiet" probes wait for the adds and any running compaction to finish. What more single adds would grow is the fragment count and the unindexed rows: both stay bounded (the current view is optimized every 32 commits, the version log every 128), so 100k single adds leave search where these rows show it; that is the extrapolation.`,
    `Shared machine: load average ${r.load.start} at the start, ${r.load.end} at the end (other work on the same 2 cores inflates wall times; CPU ms is steadier).`,
  ];
  const big = r.sizes.find((s) => s.size === TARGETS.size);
  const slow = big?.searches.filter((s) => s.case.mode === 'hybrid' && s.result.latency.p95 > TARGETS.searchP95Ms) ?? [];
  if (slow.length > 0) {
    const cpu = slow.map((s) => `${s.case.label} ${s.result.cpuMs.toFixed(1)} ms`).join(', ');
    out.push(
      `Search target missed: at 100k a hybrid search costs ${cpu} of CPU (the vector channel probes 60% of the IVF partitions for recall ≥ 0.95 with these low-contrast vectors, and each channel reads whole rows, one random access per column in LanceDB), so two cores leave little room under 10 ms at the 95th percentile, less so with other load on the machine.`,
    );
  }
  if (r.adds.batch.perSecond < TARGETS.batchPerSecond) {
    out.push(
      `Batch add target missed: the model alone embeds these texts (${r.model.meanTokens.toFixed(0)} tokens on average) at ${r.adds.embedOnly.perSecond.toFixed(0)}/s here, so embedding bounds the add rate; the store takes the rest.`,
    );
  }
  const p = r.rss.probe;
  if (p) {
    const mb = (x: number): string => `${Math.round(x / 1048576)} MB`;
    out.push(
      `Memory: in the daemon-like process the store adds ${mb(p.opened - p.start)} on open, loading the model ${mb(p.modelReady - p.opened)}, and serving ${p.searches} searches ${mb(p.afterSearches - p.modelReady)} more (query inference buffers, LanceDB's index and metadata caches, allocator slack). LanceDB's live caches are not the large part (~36 MB at 100k); the store bounds them (256 MiB index, 64 MiB metadata) so that pages of index versions replaced by compaction do not pile up in a long-running process, which is what the benchmark process's own growth during the single-add run shows.`,
    );
  }
  const rec = big?.recall.find((x) => x.filter === 'none');
  if (rec && rec.recall < TARGETS.recall) out.push(`Recall target missed at 100k: ${rec.recall.toFixed(3)}.`);
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
