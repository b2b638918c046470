/**
 * The daemon under test as a child process (`service daemon run`, as the hooks would start it),
 * with its own SERVICE_HOME, and the hook scripts run the way Claude Code runs them: a new Node
 * process per event, the event JSON on stdin, timed from spawn to exit.
 */
import { ClaudeCodeSim } from '../../test/helpers/claude-code.js';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DaemonClient } from '../../daemon/client.js';
import { daemonProcessEnv, IDLE_COLLECT_MS } from '../../daemon/process-env.js';
import { resolvePaths, type ModelDtypeChoice } from '../../engine/index.js';

export interface BenchDaemon {
  pid: number;
  env: NodeJS.ProcessEnv;
  client: DaemonClient;
  /** Resident set size of the daemon process now, bytes (Linux /proc). */
  rss(): number;
  /** The highest resident set size the daemon process has had (VmHWM), bytes. */
  peakRss(): number;
  /** Spawn → the socket answered (captures are accepted from then on), ms. */
  listeningMs: number;
  /** Wait until the daemon is quiet: its idle collection done and its CPU use settled. */
  quiet(): Promise<void>;
  /** What the daemon wrote to its stderr (its log) so far: shown when a request fails. */
  log(): string;
  stop(): Promise<void>;
}

export function daemonEnv(repoRoot: string, home: string, modelDir: string, userId: string, dtype: ModelDtypeChoice = 'auto'): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SERVICE_HOME: home,
    SERVICE_MODEL_DIR: modelDir,
    SERVICE_MODEL_DTYPE: dtype,
    SERVICE_OFFLINE: 'true',
    SERVICE_USER_ID: userId,
    SERVICE_TELEMETRY: 'false',
    SERVICE_LOG_LEVEL: 'warn',
    // No idle flush in the middle of a timed run.
    SERVICE_IDLE_FLUSH_MS: '3600000',
    SERVICE_CLI: path.join(repoRoot, 'dist', 'cli', 'main.js'),
    // Kept when set, as a user's environment would have it (Claude Code documents it for corporate
    // proxies): it slows every Node start, which the hook commands avoid (see hooks.json).
    ...(process.env.NODE_EXTRA_CA_CERTS !== undefined ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
  };
}

/** Start the daemon, wait until its engine is open and the model answers a recall. */
export async function startDaemon(repoRoot: string, env: NodeJS.ProcessEnv, warm: Record<string, unknown>): Promise<BenchDaemon> {
  const home = env.SERVICE_HOME!;
  fs.mkdirSync(home, { recursive: true });
  // In the foreground (so it is this process's child), with the environment every launcher of the
  // product gives it (`service daemon start`, the hooks).
  const proc: ChildProcess = spawn(process.execPath, [path.join(repoRoot, 'dist', 'cli', 'main.js'), 'daemon', 'run'], { env: daemonProcessEnv(env), stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  process.once('exit', () => proc.kill('SIGKILL'));
  const client = new DaemonClient({ socketPath: resolvePaths(home).socket, timeoutMs: 600_000 });
  const deadline = Date.now() + 120_000;
  const spawnedAt = performance.now();
  while (!(await client.ping(500))) {
    if (proc.exitCode !== null) throw new Error(`daemon exited early (${proc.exitCode}): ${err.slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`daemon did not answer within 120 s: ${err.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const listeningMs = performance.now() - spawnedAt;
  // The first recall waits for the engine to open and the model to load; then one more warms the path.
  await client.recall(warm);
  await client.recall({ ...warm, prompt: `${String(warm.prompt)} again` });
  const quiet = async (): Promise<void> => {
    await new Promise((r) => setTimeout(r, IDLE_COLLECT_MS + 500));
    await settle(proc.pid!);
  };
  await quiet();
  return {
    pid: proc.pid!,
    listeningMs,
    env,
    client,
    rss: () => statusBytes(proc.pid!, 'VmRSS'),
    peakRss: () => statusBytes(proc.pid!, 'VmHWM'),
    quiet,
    log: () => err,
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** CPU time a process has used so far, ms (Linux /proc, user + system). */
export function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;

/** Settled: the daemon used less than this much CPU over one second. */
export const SETTLED_CPU_MS_PER_S = 50;

/**
 * Wait until the daemon is idle: right after it starts on a large store it spends a few seconds
 * of CPU in the background (at 100k memories, ~0.9 s of CPU over the first 10 s: reading the
 * catalog and term statistics, the first upkeep pass), which would land in the first timed runs and
 * slow the hooks and the `node -e 0` floor alike. Hooks meet a daemon that has long been running.
 */
export async function settle(pid: number, maxMs = 60_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    const c0 = cpuMsOf(pid);
    await new Promise((r) => setTimeout(r, 1000));
    if (cpuMsOf(pid) - c0 < SETTLED_CPU_MS_PER_S) return;
  }
}

/** A size field of /proc/<pid>/status (VmRSS, VmHWM), bytes. */
export function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** A process to start: the command, its arguments, and variables to add to the environment. */
export interface HookCommand {
  cmd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * Node started as the built plugin's command hooks start it (dist/plugin/hooks/hooks.json, through
 * /bin/sh with CLAUDE_PLUGIN_ROOT set), with `-e 0` in place of the hook script and in the
 * foreground (the plugin's SessionStart and SessionEnd hand their event to a background process):
 * what any command hook costs before it does anything. The other events are mcp_tool hooks that
 * start no process (`pluginSession`).
 */
export function nodeAsHooksStart(repoRoot: string): HookCommand {
  const plugin = path.join(repoRoot, 'dist', 'plugin');
  const doc = JSON.parse(fs.readFileSync(path.join(plugin, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command?: string }[] }[]> };
  const command = doc.hooks.SessionStart?.[0]?.hooks[0]?.command;
  if (!command) throw new Error('dist/plugin/hooks/hooks.json has no SessionStart command: build first (npm run build)');
  const start = /SERVICE_HOOK_CA_CERTS=\S+ NODE_EXTRA_CA_CERTS= node "\$\{CLAUDE_PLUGIN_ROOT\}\/hooks\/[^"]+"/.exec(command);
  if (!start) throw new Error(`unexpected SessionStart hook command: ${command}`);
  return { cmd: '/bin/sh', args: ['-c', start[0].replace(/"\$\{CLAUDE_PLUGIN_ROOT\}\/hooks\/[^"]+"/, '-e 0')], env: { CLAUDE_PLUGIN_ROOT: plugin } };
}

/**
 * One agent session of the built plugin, its hooks fired as Claude Code fires them (command hooks
 * as processes, mcp_tool hooks as calls to the session's MCP server, connected up front as Claude
 * Code connects it when a session starts).
 */
export async function pluginSession(repoRoot: string, env: NodeJS.ProcessEnv, cwd: string): Promise<ClaudeCodeSim> {
  const sim = new ClaudeCodeSim(path.join(repoRoot, 'dist', 'plugin'), env, cwd);
  await sim.connectHookServers();
  return sim;
}
