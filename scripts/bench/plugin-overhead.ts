/**
 * What the memory plugin adds to a `claude -p` run, with the real Claude Code (both pinned
 * versions): the same prompt against the same Messages API stand-in, in two isolated worlds that
 * differ only in the plugin being installed (its daemon running, as it is once installed).
 * Runs alternate with and without, after one warm-up each, so load on the machine hits both
 * sides alike. Reported: median and p90 wall time of the whole `claude -p` process, and the median
 * of the per-pair differences.
 *
 *   npm run build && node dist/scripts/bench/plugin-overhead.js [--runs 15] [--no-write]
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { startMessagesApi } from '../../test/helpers/messages-api.js';
import { CLAUDE_VERSIONS, claudeWorld, type ClaudeWorld } from '../../test/helpers/real-claude.js';
import { machineDescription } from './machine.js';
import { table, writeBenchSection } from './markdown.js';
import { ms, percentile } from './stats.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' }, 'no-write': { type: 'boolean', default: false } } });
const RUNS = Number(values.runs);
/** A prompt that recalls (UserPromptSubmit) and ends the session normally (Stop, SessionEnd). */
const PROMPT = 'Where do we keep sessions?';

async function timed(world: ClaudeWorld): Promise<number> {
  const r = await world.run(PROMPT);
  if (r.code !== 0) throw new Error(`claude -p failed (${r.code}): ${r.stderr.slice(-500)}`);
  return r.ms;
}

interface Row {
  version: string;
  without: number[];
  withPlugin: number[];
  diffs: number[];
}

const rows: Row[] = [];
const api = await startMessagesApi();
try {
  for (const claude of CLAUDE_VERSIONS) {
    const bare = await claudeWorld(claude, { claudeOnPath: false, settings: {}, api });
    const plugged = await claudeWorld(claude, { claudeOnPath: true, settings: {}, api });
    try {
      const inst = await plugged.service(['plugin', 'install', 'claude-code']);
      if (inst.code !== 0) throw new Error(`plugin install failed: ${inst.stderr}`);
      await plugged.service(['remember', 'We decided to store sessions in PostgreSQL, never in Redis.']);
      await timed(bare);
      await timed(plugged);
      const row: Row = { version: claude.version, without: [], withPlugin: [], diffs: [] };
      for (let i = 0; i < RUNS; i++) {
        // Alternate which side goes first, so neither always follows the other.
        let c: number;
        let d: number;
        if (i % 2 === 0) {
          c = await timed(bare);
          d = await timed(plugged);
        } else {
          d = await timed(plugged);
          c = await timed(bare);
        }
        row.without.push(c);
        row.withPlugin.push(d);
        row.diffs.push(d - c);
        process.stdout.write(`${claude.version} run ${i + 1}/${RUNS}: without ${ms(c)} ms, with ${ms(d)} ms\n`);
      }
      rows.push(row);
    } finally {
      await plugged.close();
      await bare.close();
    }
  }
} finally {
  await api.close();
}

const sorted = (v: number[]): number[] => [...v].sort((x, y) => x - y);
const body = [
  '## Plugin overhead on `claude -p` (`scripts/bench/plugin-overhead.ts`)',
  '',
  `The real Claude Code, same prompt ("${PROMPT}", which recalls a memory), same local Messages API stand-in, with and without the plugin installed (daemon running), ${RUNS} alternating pairs after one warm-up each. Wall time of the whole \`claude -p\` process. Target: the plugin adds ≤ 300 ms (median). ${machineDescription()}, load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')}.`,
  '',
  table(
    ['Claude Code', 'without plugin p50 (ms)', 'with plugin p50 (ms)', 'added, median of pair differences (ms)', 'without p90', 'with p90'],
    rows.map((r) => [r.version, ms(percentile(sorted(r.without), 0.5)), ms(percentile(sorted(r.withPlugin), 0.5)), ms(percentile(sorted(r.diffs), 0.5)), ms(percentile(sorted(r.without), 0.9)), ms(percentile(sorted(r.withPlugin), 0.9))]),
  ),
  '',
  'Reproduce: `npm run build && node dist/scripts/bench/plugin-overhead.js --runs 15`.',
].join('\n');
console.log(body);
if (!values['no-write']) writeBenchSection('BENCHMARKS.md', 'plugin-overhead', body);
