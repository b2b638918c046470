/**
 * Every benchmark of the project, in the order `npm run bench` runs them (scripts/bench/all.ts).
 *
 * To add one: write `scripts/bench/<name>.ts` (or anywhere under scripts/) so that it
 * - rewrites only its own `<!-- bench:<section>:start -->…<!-- bench:<section>:end -->` block of
 *   BENCHMARKS.md on a full run (markdown.ts `withSection`), and prints its tables;
 * - runs a reduced version with the quick arguments below and then writes nothing;
 * then add one entry here. An entry whose compiled script is not in this tree (a benchmark still
 * on another branch) is listed as absent and skipped.
 */
export interface Benchmark {
  name: string;
  /** Compiled entry, relative to dist/. */
  script: string;
  /** Arguments of the full run (which writes its sections). */
  args: string[];
  /** Arguments of the reduced run (prints only). */
  quickArgs: string[];
  /** BENCHMARKS.md sections it writes. */
  sections: string[];
  /** What it measures, for the run summary. */
  about: string;
}

export const SUITE: readonly Benchmark[] = [
  { name: 'engine', script: 'scripts/bench/engine.js', args: [], quickArgs: ['--quick', '--no-write'], sections: ['engine'], about: 'engine add throughput, search latency at 1k/10k/100k, index recall, memory' },
  { name: 'server', script: 'scripts/bench/server.js', args: [], quickArgs: ['--memories', '1000', '--duration', '3', '--no-write'], sections: ['server'], about: 'the /v1 server over HTTP under load' },
  { name: 'daemon', script: 'scripts/bench/daemon.js', args: [], quickArgs: ['--quick', '--no-write'], sections: ['daemon'], about: 'hooks end to end at 1k/10k/100k, flush throughput, daemon memory' },
  { name: 'sync', script: 'scripts/bench/sync.js', args: [], quickArgs: ['--quick', '--no-write'], sections: ['sync'], about: 'sync push, pull and bootstrap of a new machine over HTTP' },
  { name: 'sessions', script: 'scripts/eval/sessions.js', args: [], quickArgs: ['--quick', '--no-write'], sections: ['sessions'], about: 'real Claude Code transcripts replayed through hooks.json: facts recovered, precision, question hit@5, junk injected' },
  { name: 'locomo', script: 'scripts/eval/locomo.js', args: ['--peer'], quickArgs: ['--quick', '--peer', '--no-write'], sections: ['locomo', 'peer'], about: 'LoCoMo retrieval quality, and mem0 side by side' },
];

/** Wall-clock budgets of the whole suite on the reference machine (issue 8). */
export const BUDGET_SEC = { full: 20 * 60, quick: 3 * 60 };
