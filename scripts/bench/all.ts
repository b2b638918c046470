/**
 * `npm run bench`: every benchmark of the project (suite.ts), one after the other, each in its own
 * process. A full run lets each rewrite its own sections of BENCHMARKS.md, then writes the
 * `bench:run` section: the machine, the date, the exact commands, how long each took and whether
 * it succeeded. `npm run bench -- --quick` runs the reduced versions and writes nothing.
 *
 *   npm run bench                        full suite (budget: 20 minutes on the reference machine)
 *   npm run bench -- --quick             reduced suite (budget: 3 minutes), prints only
 *   options: --only engine,daemon (a subset)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machineDescription } from './machine.js';
import { table, withSection } from './markdown.js';
import { BUDGET_SEC, SUITE, type Benchmark } from './suite.js';

const here = path.dirname(new URL(import.meta.url).pathname);
const repoRoot = path.resolve(here, '..', '..', '..');

export interface RunRecord {
  bench: Benchmark;
  command: string;
  status: 'ok' | 'failed' | 'absent';
  sec: number;
  code?: number | null;
}

function run(bench: Benchmark, args: string[]): Promise<{ code: number | null; sec: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [path.join(repoRoot, 'dist', bench.script), ...args], { cwd: repoRoot, stdio: 'inherit' });
    child.on('close', (code) => resolve({ code, sec: (performance.now() - t0) / 1000 }));
  });
}

const loadavg = (): string => os.loadavg().map((x) => x.toFixed(1)).join(' / ');

export function renderRun(records: readonly RunRecord[], info: { quick: boolean; date: string; machine: string; loadStart: string; loadEnd: string; totalSec: number }): string {
  const budget = info.quick ? BUDGET_SEC.quick : BUDGET_SEC.full;
  return [
    '## How these numbers were measured',
    '',
    `- Machine: ${info.machine}`,
    `- Date: ${info.date}; load average (1/5/15 min) ${info.loadStart} at the start, ${info.loadEnd} at the end. This machine is shared with other work: compare runs made on the same machine, and read p95/p99 with that in mind.`,
    `- Whole suite: \`npm run build && npm run bench${info.quick ? ' -- --quick' : ''}\`, ${(info.totalSec / 60).toFixed(1)} minutes (budget ${budget / 60} minutes: ${info.totalSec <= budget ? 'within' : '**over**'}). Each benchmark below can be re-run alone with its command; it rewrites only its own sections.`,
    '',
    table(
      ['benchmark', 'command', 'what it measures', 'sections', 'time', 'result'],
      records.map((r) => [r.bench.name, r.status === 'absent' ? '—' : `\`${r.command}\``, r.bench.about, r.bench.sections.join(', '), r.status === 'absent' ? '—' : `${r.sec.toFixed(0)} s`, r.status === 'absent' ? 'not in this tree yet' : r.status === 'ok' ? 'ok' : `**failed** (exit ${r.code})`]),
    ),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } } });
  const quick = values.quick ?? false;
  const only = values.only ? new Set(values.only.split(',')) : null;
  const started = performance.now();
  const loadStart = loadavg();
  const records: RunRecord[] = [];
  for (const bench of SUITE) {
    if (only && !only.has(bench.name)) continue;
    const args = quick ? bench.quickArgs : bench.args;
    const command = `node dist/${bench.script}${args.length > 0 ? ` ${args.join(' ')}` : ''}`;
    if (!fs.existsSync(path.join(repoRoot, 'dist', bench.script))) {
      console.log(`\n=== ${bench.name}: not in this tree (${bench.script}), skipped`);
      records.push({ bench, command, status: 'absent', sec: 0 });
      continue;
    }
    console.log(`\n=== ${bench.name}: ${command}`);
    const { code, sec } = await run(bench, args);
    records.push({ bench, command, status: code === 0 ? 'ok' : 'failed', sec, code });
    console.log(`=== ${bench.name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${sec.toFixed(0)} s`);
  }
  const totalSec = (performance.now() - started) / 1000;
  const md = renderRun(records, { quick, date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC', machine: machineDescription(), loadStart, loadEnd: loadavg(), totalSec });
  console.log(`\n${md}\n`);
  if (!quick && !only) {
    const file = path.join(repoRoot, 'BENCHMARKS.md');
    fs.writeFileSync(file, withRunFirst(withSection(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null, 'run', md)));
    console.log(`· wrote the run section of ${file}`);
  }
  if (records.some((r) => r.status === 'failed')) process.exitCode = 1;
}

/** Keep the run section right under the title, above every benchmark's section. */
export function withRunFirst(doc: string): string {
  const start = '<!-- bench:run:start -->';
  const end = '<!-- bench:run:end -->';
  const a = doc.indexOf(start);
  const b = doc.indexOf(end);
  if (a < 0 || b < a) return doc;
  const block = doc.slice(a, b + end.length);
  const rest = (doc.slice(0, a) + doc.slice(b + end.length)).replace(/\n{3,}/g, '\n\n');
  const firstSection = rest.indexOf('<!-- bench:');
  const at = firstSection < 0 ? rest.length : firstSection;
  return `${rest.slice(0, at).trimEnd()}\n\n${block}\n\n${rest.slice(at).trimStart()}`.trimEnd() + '\n';
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  await main();
}
