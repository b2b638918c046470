/**
 * Daemon benchmark (`npm run bench:daemon`, issues 4 and 8): the recall hook's wall time as Claude
 * Code sees it at 1k, 10k and 100k memories, the capture hook's, each p50/p95/p99 beside the
 * `node -e 0` floor; where the recall time goes; flush throughput (events → stored memories per
 * second) with the random-weight MiniLM-shape model; daemon RSS idle and after 100k memories.
 * Prints markdown and rewrites the `bench:daemon` section of BENCHMARKS.md.
 *
 *   npm run bench:daemon                 1k, 10k, 100k (writes BENCHMARKS.md)
 *   npm run bench:daemon -- --quick      1k and 10k, 20 runs each (prints only)
 *   npm run bench:daemon -- --sessions 20   20 concurrent sessions for 60 s (daemon-sessions.ts)
 *   options: --sizes 1000,10000, --runs N, --model-dir DIR, --dtype q8|fp32 (default q8), --write / --no-write,
 *            --sessions N --duration S --seed-memories N (sessions run on a store seeded with N memories, default 10000)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoInfo } from '../../daemon/index.js';
import { post } from '../../hooks/lib/http.js';
import { resolvePaths, type ModelDtypeChoice } from '../../engine/index.js';
import { profileRecall } from './daemon-profile.js';
import { daemonProcessEnv } from '../../daemon/process-env.js';
import type { ClaudeCodeSim, HookRun } from '../../test/helpers/claude-code.js';
import { daemonEnv, nodeAsHooksStart, pluginSession, startDaemon, type BenchDaemon, type HookCommand } from './daemon-process.js';
import { startLauncher, type Launcher } from './launcher.js';
import { renderDaemon, type DaemonResults, type SizeRun } from './daemon-report.js';
import { openSeeder } from './daemon-seed.js';
import { postToolUse, promptText, sessionEvents, userPromptSubmit, type HookContext } from './daemon-workload.js';
import { machineDescription } from './machine.js';
import { modelDtype } from './model-choice.js';
import { writeBenchSection } from './markdown.js';
import { Rng } from './rng.js';
import { runSessions } from './daemon-sessions.js';
import type { RssReport } from './rss-probe.js';
import { summarize } from './stats.js';

const here = path.dirname(new URL(import.meta.url).pathname);
const repoRoot = path.resolve(here, '..', '..', '..');
const USER = 'bench-user';
const REMOTE = 'git@github.com:acme/web-app.git';
const SEED = 20260401;
const CONTEXT_TOKENS = 1500;

function progress(msg: string): void {
  console.log(`· ${msg}`);
}

/** A working directory inside a git repository with an origin remote (the daemon derives the repo from it). */
function makeRepo(root: string): string {
  const dir = path.join(root, 'web-app');
  fs.mkdirSync(path.join(dir, '.git'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.git', 'config'), `[core]\n\tbare = false\n[remote "origin"]\n\turl = ${REMOTE}\n`);
  return dir;
}

async function timeRequests(socket: string, route: string, payloads: readonly unknown[]): Promise<number[]> {
  const out: number[] = [];
  for (const p of payloads) {
    const t0 = performance.now();
    try {
      await post(socket, route, p, 10_000);
    } catch (err) {
      throw new Error(`POST ${route} failed after ${(performance.now() - t0).toFixed(1)} ms: ${String(err)}`);
    }
    out.push(performance.now() - t0);
  }
  return out;
}

/** RSS right after the last timed request, once the daemon is quiet again, and its peak. */
async function afterRuns(d: BenchDaemon): Promise<{ atOnce: number; quiet: number; peak: number }> {
  const atOnce = d.rss();
  await d.quiet();
  return { atOnce, quiet: d.rss(), peak: d.peakRss() };
}

function run(launcher: Launcher, c: HookCommand, env: NodeJS.ProcessEnv, cwd: string, input: string): ReturnType<Launcher['time']> {
  return launcher.time({ cmd: c.cmd, args: c.args, env: { ...env, ...c.env }, cwd, input });
}

/**
 * An environment whose daemon is unreachable and will not be started (a fresh spawn marker holds
 * the hook's start-up back-off): the hook then costs Node start, loading the script, reading stdin
 * and one failed connect.
 */
function unreachableEnv(env: NodeJS.ProcessEnv, dir: string): NodeJS.ProcessEnv {
  const home = path.join(dir, 'no-daemon-home');
  fs.mkdirSync(path.join(home, 'state'), { recursive: true });
  fs.writeFileSync(path.join(home, 'state', 'spawn.at'), String(Date.now() + 86_400_000));
  return { ...env, SERVICE_HOME: home };
}

async function measureSize(launcher: Launcher, d: BenchDaemon, ctx: HookContext, r: Rng, runs: number, size: number, tmp: string): Promise<Omit<SizeRun, 'size' | 'seed' | 'vectorIndex' | 'profile'> & { prompts: string[] }> {
  const env = d.env;
  const noDaemon = unreachableEnv(env, tmp);
  const socket = resolvePaths(env.SERVICE_HOME!).socket;
  const recall: number[] = [];
  const capture: number[] = [];
  const floor: number[] = [];
  const bare: number[] = [];
  const prompts: string[] = [];
  let withContext = 0;
  // UserPromptSubmit and PostToolUse are mcp_tool hooks: a call to the session's MCP server.
  const session = await pluginSession(repoRoot, env, ctx.cwd);
  const unreachable = await pluginSession(repoRoot, noDaemon, ctx.cwd);
  const once = async (sim: ClaudeCodeSim, event: string, payload: Record<string, unknown>): Promise<HookRun> => {
    const [only, ...more] = await sim.fire(event, payload);
    if (!only || more.length > 0) throw new Error(`hooks.json must have one synchronous ${event} handler`);
    if (only.code !== 0) throw new Error(`${event} hook failed: ${only.stderr}`);
    return only;
  };
  const nodeOnly = nodeAsHooksStart(repoRoot);
  const rssStarted = d.rss();
  for (let i = 0; i < runs; i++) {
    const prompt = promptText(r, size + i);
    prompts.push(prompt);
    floor.push((await run(launcher, nodeOnly, env, ctx.cwd, '')).ms);
    const rec = await once(session, 'UserPromptSubmit', userPromptSubmit(ctx, prompt));
    recall.push(rec.ms);
    if (rec.stdout.includes('additionalContext')) withContext++;
    capture.push((await once(session, 'PostToolUse', postToolUse(ctx, r, i))).ms);
    bare.push((await once(unreachable, 'UserPromptSubmit', userPromptSubmit(ctx, prompt))).ms);
  }
  await session.close();
  await unreachable.close();
  const direct = Array.from({ length: Math.min(runs, 50) }, (_, i) => userPromptSubmit(ctx, promptText(r, size + runs + i)));
  const recallRequest = await timeRequests(socket, '/v1/recall', direct);
  // A recall from a directory inside the data dir: the daemon parses it and answers at once
  // (nothing is captured or searched there), so this is the socket, HTTP and routing cost.
  const emptyRequest = await timeRequests(socket, '/v1/recall', direct.map((p) => ({ ...p, cwd: env.SERVICE_HOME })));
  const captureRequest = await timeRequests(socket, '/v1/capture', direct.map((p) => ({ ...p, prompt: `${String(p.prompt)} (capture only)` })));
  return {
    recallHook: summarize(recall),
    withContext,
    captureHook: summarize(capture),
    floor: summarize(floor),
    hookWithoutDaemon: summarize(bare),
    recallRequest: summarize(recallRequest),
    captureRequest: summarize(captureRequest),
    emptyRequest: summarize(emptyRequest),
    rss: { started: rssStarted, ...(await afterRuns(d)) },
    prompts,
  };
}

async function measureFlush(d: BenchDaemon, cwd: string, r: Rng, sessions: number, transcriptDir: string): Promise<{ sessions: number; events: number; memories: number; sec: number }> {
  let events = 0;
  for (let s = 0; s < sessions; s++) {
    const ctx = { session_id: `flush-${s}-${r.int(1e9)}`, cwd, transcript_path: path.join(transcriptDir, `flush-${s}.jsonl`) };
    fs.writeFileSync(ctx.transcript_path, '');
    for (const e of sessionEvents(ctx, r)) {
      await d.client.capture(e);
      events++;
    }
  }
  const t0 = performance.now();
  const out = (await d.client.flush()) as { flushed: { memories: { event: string }[] }[] };
  const sec = (performance.now() - t0) / 1000;
  const memories = out.flushed.reduce((n, f) => n + f.memories.filter((m) => m.event !== 'NOOP').length, 0);
  return { sessions, events, memories, sec };
}

/** A daemon request's failure with the end of the daemon's log, where its request id names the cause. */
async function withDaemonLog<T>(d: BenchDaemon, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n--- the daemon's log, last 4,000 characters ---\n${d.log().slice(-4000)}`, { cause: e });
  }
}

/** RSS of a fresh process as it opens the store, loads the model and searches (rss-probe.ts). */
function probeRss(home: string, modelDir: string, dtype: ModelDtypeChoice): RssReport | null {
  const paths = resolvePaths(home);
  const res = spawnSync(process.execPath, [path.join(here, 'rss-probe.js'), '--db', paths.lanceDir, '--model-dir', modelDir, '--cache', paths.modelCache, '--dtype', dtype, '--searches', '200'], { encoding: 'utf8', env: daemonProcessEnv(process.env) });
  try {
    return JSON.parse(res.stdout.trim().split('\n').pop() ?? '') as RssReport;
  } catch {
    console.error(`rss probe failed: ${(res.stderr || res.stdout).slice(0, 500)}`);
    return null;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      sizes: { type: 'string' },
      runs: { type: 'string' },
      'model-dir': { type: 'string' },
      dtype: { type: 'string', default: 'q8' },
      write: { type: 'boolean' },
      'no-write': { type: 'boolean', default: false },
      sessions: { type: 'string' },
      duration: { type: 'string', default: '60' },
      'seed-memories': { type: 'string', default: '10000' },
    },
  });
  const quick = values.quick ?? false;
  const write = values['no-write'] ? false : (values.write ?? !quick);
  const sizes = (values.sizes ?? (quick ? '1000,10000' : '1000,10000,100000')).split(',').map(Number);
  const runs = Number(values.runs ?? (quick ? 20 : 100));
  const modelDir = path.resolve(values['model-dir'] ?? path.join(repoRoot, '..', 'shared', 'models', 'random-minilm-l6'));
  const dtype = modelDtype(values.dtype);
  const started = performance.now();
  const load = os.loadavg().map((x) => x.toFixed(1)).join(' / ');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-daemon-'));
  const home = path.join(tmp, 'home');
  const cwd = makeRepo(tmp);
  const repo = repoInfo(cwd);
  const env = daemonEnv(repoRoot, home, modelDir, USER, dtype);
  if (values.sessions) {
    try {
      // A store of a daily user's size, so its disk use and recall are measured where they matter.
      const seedMemories = Number(values['seed-memories']);
      if (seedMemories > 0) {
        progress(`seeding ${seedMemories} memories`);
        const seeder = await openSeeder({ home, modelDir, dtype, userId: USER, repo: repo.repo! }, { poolSize: 3000, seed: SEED });
        await seeder.growTo(seedMemories);
        await seeder.close();
      }
      await runSessions({ repoRoot, env, cwd, sessions: Number(values.sessions), durationSec: Number(values.duration), seed: SEED, write: !values['no-write'], model: path.basename(modelDir), seededMemories: seedMemories });
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
    }
    return;
  }
  const r = new Rng(SEED);
  const ctx: HookContext = { session_id: `bench-session-${SEED}`, cwd, transcript_path: path.join(tmp, 'transcript.jsonl') };
  fs.writeFileSync(ctx.transcript_path, '');
  const warm = userPromptSubmit(ctx, 'warm up: how do we handle caching');
  let daemon: BenchDaemon | null = null;
  const launcher = startLauncher();
  try {
    // Node's start with the environment's extra CA file, against the hook commands' start.
    let caCerts: DaemonResults['caCerts'] = null;
    if (env.NODE_EXTRA_CA_CERTS) {
      const plain: number[] = [];
      const hookStart: number[] = [];
      const nodeOnly = nodeAsHooksStart(repoRoot);
      for (let i = 0; i < 30; i++) {
        plain.push((await launcher.time({ cmd: process.execPath, args: ['-e', '0'], env, cwd, input: '' })).ms);
        hookStart.push((await run(launcher, nodeOnly, env, cwd, '')).ms);
      }
      caCerts = { plain: summarize(plain), hookStart: summarize(hookStart) };
    }
    progress(`idle daemon on an empty data dir (${home})`);
    daemon = await startDaemon(repoRoot, env, warm);
    const idleRss = daemon.rss();
    await daemon.stop();
    daemon = null;

    const seeder = await openSeeder({ home, modelDir, dtype, userId: USER, repo: repo.repo! }, { poolSize: 3000, seed: SEED });
    const results: SizeRun[] = [];
    const flush: DaemonResults['flush'] = [];
    for (const [k, size] of sizes.entries()) {
      progress(`seeding to ${size} memories`);
      const seed = await seeder.growTo(size);
      const last = k === sizes.length - 1;
      progress(`daemon on ${size} memories: ${runs} recall hooks, ${runs} capture hooks, ${runs} × node -e 0`);
      daemon = await startDaemon(repoRoot, env, warm);
      const status = await daemon.client.status<{ memories: { total: number }; model: { vector_index: boolean; state: string; backlog: number } }>();
      if (status.memories.total < size) throw new Error(`the daemon sees ${status.memories.total} memories, expected ${size}`);
      // Memories without a vector of the daemon's model would be embedded in the background during the timed runs.
      if (status.model.backlog > 0) throw new Error(`the daemon has ${status.model.backlog} memories to embed: the seeding and the daemon disagree on the model`);
      const m = await measureSize(launcher, daemon, ctx, r, runs, size, tmp);
      progress(`  recall hook p50 ${m.recallHook.p50.toFixed(1)} p95 ${m.recallHook.p95.toFixed(1)} ms (${m.withContext}/${runs} with context); capture p95 ${m.captureHook.p95.toFixed(1)}; floor p50 ${m.floor.p50.toFixed(1)}`);
      if (last || k === 0) {
        progress('flush throughput');
        const f = { ...(await withDaemonLog(daemon, measureFlush(daemon, cwd, r, quick || !last ? 5 : 20, tmp))), atSize: size };
        flush.push(f);
        progress(`  ${f.events} events → ${f.memories} memories in ${f.sec.toFixed(1)} s`);
      }
      await daemon.stop();
      daemon = null;
      // The next daemon starts with an empty journal: no replayed events to flush while timing.
      for (const dir of [resolvePaths(home).journalDir, resolvePaths(home).stateDir]) fs.rmSync(dir, { recursive: true, force: true });
      progress('  in-process breakdown on the same data dir');
      const profile = await profileRecall({ home, modelDir, dtype, userId: USER, repo, prompts: m.prompts.slice(0, 40), contextTokens: CONTEXT_TOKENS });
      const { prompts: _prompts, ...rest } = m;
      results.push({ size, seed, vectorIndex: status.model.vector_index, profile, ...rest });
    }
    await seeder.close();
    progress('memory of a daemon-like process, step by step');
    const rssParts = probeRss(home, modelDir, dtype);
    const out: DaemonResults = {
      command: `npm run bench:daemon${quick ? ' -- --quick' : ''}`,
      date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      machine: machineDescription(),
      load,
      durationSec: (performance.now() - started) / 1000,
      model: path.basename(modelDir),
      dtype,
      runs,
      idleRss,
      sizes: results,
      flush,
      rssParts,
      caCerts,
    };
    const md = renderDaemon(out);
    console.log(`\n${md}\n`);
    if (write) {
      writeBenchSection(path.join(repoRoot, 'BENCHMARKS.md'), 'daemon', md);
    }
  } finally {
    await daemon?.stop();
    launcher.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
