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
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startMessagesApi } from '../../test/helpers/messages-api.js';
import { CLAUDE_VERSIONS, claudeWorld, type ClaudeWorld } from '../../test/helpers/real-claude.js';
import { repoRoot } from '../../test/helpers/tmp.js';
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

/**
 * Milliseconds from spawning the plugin's MCP server to its answer to `initialize`, started as
 * `.mcp.json` says (sh, NODE_EXTRA_CA_CERTS emptied) or, as before, with plain `node` and the
 * environment's NODE_EXTRA_CA_CERTS.
 */
function mcpStart(plugin: string, how: 'mcp.json' | 'plain node', caFile: string): Promise<number> {
  const server = path.join(plugin, 'mcp', 'server.cjs');
  const doc = JSON.parse(fs.readFileSync(path.join(plugin, '.mcp.json'), 'utf8')) as { mcpServers: { memory: { command: string; args: string[] } } };
  const spec = doc.mcpServers.memory;
  const [cmd, args] = how === 'mcp.json' ? [spec.command, spec.args.map((a) => a.replace('${CLAUDE_PLUGIN_ROOT}', plugin))] : ['node', [server]];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile, SERVICE_HOME: path.join(os.tmpdir(), 'plugin-overhead-mcp') }, stdio: ['pipe', 'pipe', 'ignore'] });
    child.on('error', reject);
    child.stdout.once('data', () => {
      resolve(performance.now() - t0);
      child.kill();
    });
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) + '\n');
  });
}

const CA_FILE = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'].find((f) => fs.existsSync(f)) ?? '';
const plugin = repoRoot('dist', 'plugin');
const mcp = { 'mcp.json': [] as number[], 'plain node': [] as number[] };
for (let i = 0; i < RUNS * 2; i++) {
  for (const how of (i % 2 === 0 ? ['mcp.json', 'plain node'] : ['plain node', 'mcp.json']) as ('mcp.json' | 'plain node')[]) mcp[how].push(await mcpStart(plugin, how, CA_FILE));
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
  `The MCP server on the critical path (Claude Code starts it before its first request): spawn to its \`initialize\` answer, ${RUNS * 2} alternating starts each, with NODE_EXTRA_CA_CERTS=${CA_FILE || '(none on this machine)'} in the environment. The server is ${Math.round(fs.statSync(path.join(plugin, 'mcp', 'server.cjs')).size / 1024)} KB of \`node:\` built-ins and the hooks' socket client (a 1.3 MB bundle of the MCP SDK, zod and the engine's config until 2026-11-25).`,
  '',
  table(
    ['started', 'p50 (ms)', 'p90 (ms)'],
    (['plain node', 'mcp.json'] as const).map((how) => [how === 'mcp.json' ? 'as `.mcp.json` starts it: sh, NODE_EXTRA_CA_CERTS emptied' : 'plain `node`, NODE_EXTRA_CA_CERTS kept', ms(percentile(sorted(mcp[how]), 0.5)), ms(percentile(sorted(mcp[how]), 0.9))]),
  ),
  '',
  'Reproduce: `npm run bench:plugin -- --runs 15`.',
].join('\n');
console.log(body);
if (!values['no-write']) writeBenchSection('BENCHMARKS.md', 'plugin-overhead', body);
