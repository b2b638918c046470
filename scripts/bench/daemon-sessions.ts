/**
 * Concurrent sessions against one daemon (`npm run bench:daemon -- --sessions 20`, issue 20): N
 * agent sessions for D seconds, each a loop of turns as Claude Code runs its hooks (UserPromptSubmit
 * recall, two PostToolUse captures, Stop), through the built plugin's hooks.json as Claude Code
 * fires them (mcp_tool hooks through each session's own MCP server), with think time between them; a `search` over the socket every few seconds. Reports hook wall time
 * p50/p95/max per event, errors (hook exits, recalls over Claude Code's 3 s timeout, events lost or
 * flushed twice, error lines in the daemon log), the daemon's RSS, its cold start, and disk use
 * against the size of an export of everything stored.
 *
 * Every event carries unique text, so each is exactly one turn when flushed; the daemon logs the
 * turns of every flush. After a final flush, turns flushed = events sent, or an event was lost
 * (fewer) or taken twice (more).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolvePaths } from '../../engine/index.js';
import type { ClaudeCodeSim } from '../../test/helpers/claude-code.js';
import { nodeAsHooksStart, pluginSession, startDaemon } from './daemon-process.js';
import { timeProcess } from './launcher.js';
import { table, writeBenchSection } from './markdown.js';
import { fragment } from './corpus.js';
import { machineDescription } from './machine.js';
import { Rng } from './rng.js';
import { ms, summarize, type Summary } from './stats.js';
import { promptText, type HookContext } from './daemon-workload.js';

/** After the run the store's size is polled this often; it has settled once this many polls in a row see no change (or after IDLE_MAX_MS). */
const IDLE_POLL_MS = 5_000;
const IDLE_SETTLED_POLLS = 4;
const IDLE_MAX_MS = 180_000;

export interface SessionsOptions {
  repoRoot: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  sessions: number;
  durationSec: number;
  seed: number;
  write: boolean;
  model: string;
  /** Memories imported into the store before the daemon started (0: an empty store). */
  seededMemories: number;
}

type EventName = 'UserPromptSubmit' | 'PostToolUse' | 'Stop';
const EVENTS: readonly EventName[] = ['UserPromptSubmit', 'PostToolUse', 'Stop'];
/** Claude Code's timeout for the UserPromptSubmit hook in plugin/hooks/hooks.json (seconds). */
const RECALL_HOOK_TIMEOUT_MS = 3000;
const SEARCH_EVERY_MS = 3000;

function du(dir: string): number {
  let total = 0;
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) total += fs.statSync(p).size;
    }
  };
  if (!fs.existsSync(dir)) return 0;
  if (!fs.statSync(dir).isDirectory()) return fs.statSync(dir).size;
  walk(dir);
  return total;
}

function flushedTurns(home: string): Map<string, number> {
  const out = new Map<string, number>();
  const log = path.join(resolvePaths(home).logDir, 'daemon.log');
  for (const line of fs.readFileSync(log, 'utf8').split('\n')) {
    if (!line.includes('"flushed"')) continue;
    const r = JSON.parse(line) as { session?: string; turns?: number };
    if (r.session) out.set(r.session, (out.get(r.session) ?? 0) + (r.turns ?? 0));
  }
  return out;
}

function logErrors(home: string): string[] {
  const log = path.join(resolvePaths(home).logDir, 'daemon.log');
  return fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"level":"error"'))
    .map((l) => l.slice(0, 300));
}

const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(1)} MB`;

/** Each LanceDB table of a store by part: data files, indexes, deletion files, manifests, transactions. */
function lanceParts(lanceDir: string): string {
  if (!fs.existsSync(lanceDir)) return '';
  const parts: [string, string][] = [
    ['data', 'data'],
    ['indexes', '_indices'],
    ['deletions', '_deletions'],
    ['manifests', '_versions'],
    ['transactions', '_transactions'],
  ];
  return fs
    .readdirSync(lanceDir)
    .filter((f) => f.endsWith('.lance') && !f.startsWith('_'))
    .map((t) => `${t.replace(/\.lance$/, '')}: ${parts.map(([label, sub]) => `${label} ${mb(du(path.join(lanceDir, t, sub)))}`).join(', ')}`)
    .join('; ');
}

export async function runSessions(o: SessionsOptions): Promise<void> {
  const home = o.env.SERVICE_HOME!;
  const env: NodeJS.ProcessEnv = { ...o.env, SERVICE_LOG_LEVEL: 'info' };
  const times: Record<EventName, number[]> = { UserPromptSubmit: [], PostToolUse: [], Stop: [] };
  const floorCmd = nodeAsHooksStart(o.repoRoot);
  const floorMs: number[] = [];
  const sent = new Map<string, number>();
  let hookFailures = 0;
  let recallOverTimeout = 0;
  const searchMs: number[] = [];
  let searchErrors = 0;
  const t0 = performance.now();
  const daemon = await startDaemon(o.repoRoot, env, { session_id: 'warm', cwd: o.cwd, hook_event_name: 'UserPromptSubmit', prompt: 'warm up: how do we handle caching' });
  const coldStartMs = performance.now() - t0;
  const rssStart = daemon.rss();
  const r0 = new Rng(o.seed);
  const hook = async (sim: ClaudeCodeSim, event: EventName, payload: Record<string, unknown>): Promise<void> => {
    const runs = await sim.fire(event, payload);
    if (runs.length !== 1) throw new Error(`hooks.json has ${runs.length} synchronous handlers for ${event}; the bench expects one`);
    const t = runs[0]!;
    times[event].push(t.ms);
    if (t.code !== 0 || t.timedOut) hookFailures++;
    if (event === 'UserPromptSubmit' && t.ms > RECALL_HOOK_TIMEOUT_MS) recallOverTimeout++;
    sent.set(String(payload.session_id), (sent.get(String(payload.session_id)) ?? 0) + 1);
  };
  const deadline = Date.now() + o.durationSec * 1000;
  const session = async (k: number): Promise<void> => {
    const r = new Rng(o.seed + k + 1);
    const ctx: Omit<HookContext, 'transcript_path'> = { session_id: `bench-concurrent-${k}`, cwd: o.cwd };
    const think = (): Promise<void> => new Promise((res) => setTimeout(res, 300 + r.int(1700)));
    await new Promise((res) => setTimeout(res, r.int(2000)));
    const sim = await pluginSession(o.repoRoot, env, o.cwd);
    for (let turn = 0; Date.now() < deadline; turn++) {
      const tag = `s${k}t${turn}`;
      await hook(sim, 'UserPromptSubmit', { ...ctx, permission_mode: 'default', hook_event_name: 'UserPromptSubmit', prompt: `${promptText(r, turn)} We decided: ${fragment(r)} [${tag}]` });
      for (let i = 0; i < 2; i++) {
        await think();
        await hook(sim, 'PostToolUse', { ...ctx, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: `npm test -- --grep ${tag}-${i}` }, tool_response: { stdout: `ok ${tag}-${i}\n${fragment(r)}`, stderr: '' } });
      }
      await think();
      await hook(sim, 'Stop', { ...ctx, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: `Done with ${tag}. Decision: ${fragment(r)}` });
      await think();
    }
    await sim.close();
  };
  // Node started the way hook commands start it, doing nothing: on a loaded machine this floor
  // says how much of each hook's time is the machine rather than the daemon.
  const floor = async (): Promise<void> => {
    while (Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 2000));
      floorMs.push((await timeProcess({ cmd: floorCmd.cmd, args: floorCmd.args, env: { ...env, ...floorCmd.env }, cwd: o.cwd, input: '' })).ms);
    }
  };
  const searcher = async (): Promise<void> => {
    while (Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, SEARCH_EVERY_MS));
      const s0 = performance.now();
      try {
        await daemon.client.localSearch({ query: `${fragment(r0)}`, scope: 'repo', cwd: o.cwd });
        searchMs.push(performance.now() - s0);
      } catch {
        searchErrors++;
      }
    }
  };
  console.log(`· ${o.sessions} sessions for ${o.durationSec} s`);
  try {
    await Promise.all([...Array.from({ length: o.sessions }, (_, k) => session(k)), searcher(), floor()]);
  } catch (err) {
    await daemon.stop();
    throw err;
  }
  const rssEnd = daemon.rss();
  const peak = daemon.peakRss();
  console.log('· final flush');
  await daemon.client.flush({});
  const exportText = await daemon.client.exportAll();
  const exportBytes = Buffer.byteLength(exportText);
  const versions = exportText.split('\n').filter(Boolean).length;
  const paths = resolvePaths(home);
  const lanceBytes = du(paths.lanceDir);
  const lancePartsAfterRun = lanceParts(paths.lanceDir);
  // Once writes stop, the background upkeep optimizes what the burst left and deletes what each
  // optimize replaced once past the retention (15 s): a few passes. Measured when it settles.
  console.log('· idle upkeep (until the store stops shrinking)');
  const idleStart = performance.now();
  const at45 = { bytes: 0 };
  let lanceIdleBytes = lanceBytes;
  let lastChange = idleStart;
  for (let still = 0; still < IDLE_SETTLED_POLLS && performance.now() - idleStart < IDLE_MAX_MS; ) {
    await new Promise((res) => setTimeout(res, IDLE_POLL_MS));
    const now = du(paths.lanceDir);
    still = now === lanceIdleBytes ? still + 1 : 0;
    if (now !== lanceIdleBytes) lastChange = performance.now();
    lanceIdleBytes = now;
    if (at45.bytes === 0 && performance.now() - idleStart >= 45_000) at45.bytes = now;
  }
  const idleSec = (lastChange - idleStart) / 1000;
  if (at45.bytes === 0) at45.bytes = lanceIdleBytes;
  const journalBytes = du(paths.journalDir);
  const homeBytes = du(home) - du(paths.logDir);
  const lancePartsSettled = lanceParts(paths.lanceDir);
  const breakdown = fs.readdirSync(home).map((f) => `${f} ${mb(fs.statSync(path.join(home, f)).isDirectory() ? du(path.join(home, f)) : fs.statSync(path.join(home, f)).size)}`).join(', ');
  await daemon.stop();
  const turns = flushedTurns(home);
  let lost = 0;
  let duplicated = 0;
  for (const [s, n] of sent) {
    const got = turns.get(s) ?? 0;
    if (got < n) lost += n - got;
    if (got > n) duplicated += got - n;
  }
  const errors = logErrors(home);
  const total = [...sent.values()].reduce((a, b) => a + b, 0);
  const stat: Record<EventName, Summary> = { UserPromptSubmit: summarize(times.UserPromptSubmit), PostToolUse: summarize(times.PostToolUse), Stop: summarize(times.Stop) };
  const search = summarize(searchMs);
  const nodeFloor = summarize(floorMs);
  const allErrors = hookFailures + recallOverTimeout + lost + duplicated + errors.length + searchErrors;
  const md = [
    `## Daemon: ${o.sessions} concurrent sessions for ${o.durationSec} s (\`npm run bench:daemon -- --sessions ${o.sessions}\`)`,
    '',
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · ${machineDescription()} · load before ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} · model ${o.model} · ${o.seededMemories > 0 ? `a store seeded with ${o.seededMemories.toLocaleString('en-US')} memories before the daemon starts` : 'an empty store'}. Each session loops: UserPromptSubmit (recall), PostToolUse ×2, Stop, with 0.3–2 s think time between hooks; hooks fired as Claude Code fires them from the built plugin's hooks.json: these events are mcp_tool hooks, a call to the session's own MCP server (started with the session, one per session, as Claude Code starts it), timed from call to answer.`,
    '',
    table(
      ['hook', 'runs', 'p50 ms', 'p95 ms', 'max ms'],
      [...EVENTS.map((e) => [e, stat[e].n, ms(stat[e].p50), ms(stat[e].p95), ms(stat[e].max)]), ['search over the socket', search.n, ms(search.p50), ms(search.p95), ms(search.max)], ['`node -e 0` started as the command hooks start Node, in the foreground (what a command hook pays first)', nodeFloor.n, ms(nodeFloor.p50), ms(nodeFloor.p95), ms(nodeFloor.max)]],
    ),
    '',
    table(
      ['measure', 'value'],
      [
        ['events sent (hooks)', total],
        ['errors (all kinds below)', allErrors],
        ['hook exits ≠ 0', hookFailures],
        [`recall hooks over Claude Code's ${RECALL_HOOK_TIMEOUT_MS / 1000} s timeout`, recallOverTimeout],
        ['events lost / flushed twice', `${lost} / ${duplicated}`],
        ['error lines in the daemon log', errors.length],
        ['daemon cold start: spawn → socket answers (captures accepted)', `${ms(daemon.listeningMs)} ms`],
        ['daemon cold start: spawn → first recall answered (store open, model loaded)', `${ms(coldStartMs)} ms`],
        ['daemon RSS start → end (peak)', `${mb(rssStart)} → ${mb(rssEnd)} (${mb(peak)})`],
        ['memories seeded before the run (imported, not part of the timings)', o.seededMemories],
        ['versions stored / export size', `${versions} / ${mb(exportBytes)}`],
        ['store on disk (lance/) right after the run', `${mb(lanceBytes)} (${(lanceBytes / Math.max(1, exportBytes)).toFixed(2)}× the export)`],
        ['store on disk (lance/) 45 s later (idle upkeep)', `${mb(at45.bytes)} (${(at45.bytes / Math.max(1, exportBytes)).toFixed(2)}× the export)`],
        [`store on disk (lance/) once idle upkeep settled (${idleSec.toFixed(0)} s after the run)`, `${mb(lanceIdleBytes)} (${(lanceIdleBytes / Math.max(1, exportBytes)).toFixed(2)}× the export)`],
        ['store on disk by table and part, right after the run', lancePartsAfterRun],
        ['store on disk by table and part, once settled', lancePartsSettled],
        ['journal left on disk', mb(journalBytes)],
        ['data dir without logs', `${mb(homeBytes)} (${breakdown})`],
      ],
    ),
    '',
    `Reproduce: \`npm run bench:daemon -- --sessions ${o.sessions}\` (options: \`--duration ${o.durationSec}\`, \`--seed-memories ${o.seededMemories}\`, \`--no-write\`).`,
  ].join('\n');
  console.log(`\n${md}\n`);
  if (errors.length > 0) console.log(`daemon log errors:\n${errors.slice(0, 10).join('\n')}`);
  if (o.write) writeBenchSection(path.join(o.repoRoot, 'BENCHMARKS.md'), 'daemon-sessions', md);
}
