/** The engine benchmark's results as the markdown section of BENCHMARKS.md. */
import path from 'node:path';
import type { LanceDiagnostics, ModelDtypeChoice } from '../../engine/index.js';
import type { AddThroughput } from './add-throughput.js';
import type { ChurnWindow } from './churn.js';
import { table } from './markdown.js';
import { modelDescription } from './model-choice.js';
import type { RecallResult } from './recall.js';
import type { RssReport } from './rss-probe.js';
import type { SearchCase, SearchResult } from './search-latency.js';
import { mb, ms, type Summary } from './stats.js';

export interface SizeResult {
  size: number;
  seedPerSecond: number;
  maintenanceMs: number;
  vectorIndex: boolean;
  /** Where the store answered searches at this size: its in-memory view or its LanceDB indexes. */
  searchedIn: 'memory' | 'indexes';
  diagnostics: LanceDiagnostics[];
  searches: { case: SearchCase; result: SearchResult }[];
  recall: RecallResult[];
  rss: number;
}

export interface BenchResults {
  command: string;
  date: string;
  machine: string;
  quick: boolean;
  durationSec: number;
  model: { id: string; dir: string; dtype: ModelDtypeChoice; loadMs: number; meanTokens: number };
  pool: { size: number; embedSec: number; fidelity: number };
  queryEmbedding: Summary;
  adds: AddThroughput;
  sizes: SizeResult[];
  churn: ChurnWindow[];
  rss: { afterSeed: number; afterSearches: number; probe: RssReport | null; probeError?: string };
  /** 1/5/15-minute load averages at the start and the end. */
  load: { start: string; end: string };
  notes: string[];
}

export const TARGETS = { searchP95Ms: 10, batchPerSecond: 300, recall: 0.95, size: 100_000 };

function verdict(ok: boolean | null): string {
  return ok === null ? 'not measured' : ok ? '**met**' : '**missed**';
}

function n(x: number): string {
  return x >= 1000 ? `${x / 1000}k` : String(x);
}

function targets(r: BenchResults): string {
  const big = r.sizes.find((s) => s.size === TARGETS.size);
  const p95 = (label: string): number | null => big?.searches.find((s) => s.case.label === label)?.result.latency.p95 ?? null;
  const hyb = p95('hybrid');
  const hybRepo = p95('hybrid, repo scope');
  const worstHybrid = hyb === null || hybRepo === null ? null : Math.max(hyb, hybRepo);
  const rec = big?.recall.find((x) => x.filter === 'none')?.recall ?? null;
  return table(
    ['target (issue 2)', 'measured', 'verdict'],
    [
      [`search p95 ≤ ${TARGETS.searchP95Ms} ms at 100k, hybrid, query embedding excluded`, worstHybrid === null ? 'n/a' : `${ms(hyb!)} ms unfiltered, ${ms(hybRepo!)} ms repo scope`, verdict(worstHybrid === null ? null : worstHybrid <= TARGETS.searchP95Ms)],
      [`batch add ≥ ${TARGETS.batchPerSecond} memories/s, MiniLM-shape model, embedding included`, `${r.adds.batch.perSecond.toFixed(0)} memories/s`, verdict(r.adds.batch.perSecond >= TARGETS.batchPerSecond)],
      [`approximate-index recall@10 ≥ ${TARGETS.recall} at 100k`, rec === null ? 'n/a' : rec.toFixed(3), verdict(rec === null ? null : rec >= TARGETS.recall)],
    ],
  );
}

function adds(r: BenchResults): string {
  const a = r.adds;
  return table(
    ['how', 'memories', 'memories/s', 'per add p50 / p95'],
    [
      ['single adds, sequential `engine.add`', a.single.n, a.single.perSecond.toFixed(0), `${ms(a.single.latency.p50)} / ${ms(a.single.latency.p95)} ms`],
      ['batch: concurrent `engine.add` (group commit)', a.batch.n, a.batch.perSecond.toFixed(0), ''],
      ['model alone on the batch texts (ceiling)', a.embedOnly.n, a.embedOnly.perSecond.toFixed(0), ''],
    ],
  );
}

function searches(r: BenchResults): string {
  const rows: string[][] = [];
  for (const s of r.sizes) {
    for (const { case: c, result } of s.searches) {
      const l = result.latency;
      rows.push([n(s.size), c.label, s.searchedIn === 'memory' ? 'in memory' : 'LanceDB indexes', ms(l.p50), ms(l.p95), ms(l.p99), ms(l.mean), ms(result.cpuMs), result.meanResults.toFixed(1)]);
    }
  }
  return table(['memories', 'search', 'searched in', 'p50 ms', 'p95 ms', 'p99 ms', 'mean ms', 'CPU ms', 'results'], rows);
}

function state(r: BenchResults): string {
  return table(
    ['memories', 'seed rate (pooled vectors)', 'maintenance', 'vector index', 'fragments current / versions', 'process RSS'],
    r.sizes.map((s) => {
      const c = s.diagnostics.find((d) => d.table === 'current');
      const v = s.diagnostics.find((d) => d.table === 'versions');
      return [n(s.size), `${s.seedPerSecond.toFixed(0)}/s`, `${(s.maintenanceMs / 1000).toFixed(1)} s`, c?.indexTypes.vector ?? 'none (flat search)', `${c?.fragments ?? '?'} / ${v?.fragments ?? '?'}`, mb(s.rss)];
    }),
  );
}

function recall(r: BenchResults): string {
  const rows: string[][] = [];
  for (const s of r.sizes) {
    for (const x of s.recall) rows.push([n(s.size), x.filter === 'repo' ? 'repo scope' : 'none', x.recall.toFixed(3), x.worst.toFixed(1), ms(x.approx.p50), ms(x.exact.p50)]);
  }
  if (rows.length === 0) return '_No approximate index at these sizes._';
  return table(['memories', 'filter', 'recall@10', 'worst query', 'index p50 ms', 'exact p50 ms'], rows);
}

function churn(r: BenchResults): string {
  return table(
    ['single adds so far', 'adds/s', 'search p50 / p95 during adds', 'quiet search p50 / p95', 'fragments current / versions', 'unindexed rows vector / text'],
    r.churn.map((w) => [
      w.adds,
      Number.isFinite(w.addsPerSecond) ? w.addsPerSecond.toFixed(0) : '',
      w.during.n > 0 ? `${ms(w.during.p50)} / ${ms(w.during.p95)} ms` : '',
      `${ms(w.quiet.p50)} / ${ms(w.quiet.p95)} ms`,
      `${w.fragments.current} / ${w.fragments.versions}`,
      `${w.unindexed.vector} / ${w.unindexed.text}`,
    ]),
  );
}

function memory(r: BenchResults): string {
  const p = r.rss.probe;
  const rows: string[][] = [
    ['benchmark process after seeding (holds its own corpus too)', mb(r.rss.afterSeed)],
    ['benchmark process after every search run', mb(r.rss.afterSearches)],
  ];
  if (p) {
    rows.push(
      ['daemon-like process: Node alone', mb(p.start)],
      ['… store opened', mb(p.opened)],
      ['… model loaded', mb(p.modelReady)],
      [`… after ${p.searches} searches`, `${mb(p.afterSearches)} (JS heap ${mb(p.heapUsed)})`],
    );
  } else rows.push(['daemon-like process', `failed: ${r.rss.probeError ?? 'unknown'}`]);
  return table(['process', 'RSS'], rows);
}

export function renderReport(r: BenchResults): string {
  const biggest = r.sizes[r.sizes.length - 1]?.size ?? 0;
  return [
    `## Engine (\`scripts/bench/engine.ts\`)${r.quick ? ' — quick run' : ''}`,
    '',
    `- Command: \`${r.command}\` (${r.durationSec.toFixed(0)} s)`,
    `- Date: ${r.date}`,
    `- Machine: ${r.machine}`,
    `- Model: ${modelDescription(path.basename(r.model.dir), r.model.dtype)}, loaded in ${ms(r.model.loadMs)} ms; memory texts average ${r.model.meanTokens.toFixed(1)} tokens`,
    `- Store: LanceDB in a temp dir, background maintenance on; seeded through \`engine.add\` up to ${n(biggest)} memories`,
    '',
    '### Targets',
    '',
    targets(r),
    '',
    '### Add throughput (real embedding)',
    '',
    adds(r),
    '',
    '### Search latency (`engine.search`, top_k 5, query embedding excluded)',
    '',
    `Query embedding on its own, reported apart: p50 ${ms(r.queryEmbedding.p50)} ms, p95 ${ms(r.queryEmbedding.p95)} ms (cached queries skip it).`,
    '',
    searches(r),
    '',
    state(r),
    '',
    '### Approximate vector index: recall@10 against exact search',
    '',
    recall(r),
    '',
    '### Single adds on the largest store, background maintenance on',
    '',
    churn(r),
    '',
    '### Memory',
    '',
    memory(r),
    '',
    '### Notes',
    '',
    ...r.notes.map((x) => `- ${x}`),
  ].join('\n');
}
