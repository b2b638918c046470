/** Real daemons, hooks and CLI runs as child processes, each with its own temp SERVICE_HOME. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DaemonClient } from '../../daemon/client.js';
import { resolvePaths } from '../../engine/index.js';
import { repoRoot, sharedDir, tempDir } from './tmp.js';

export const CLI = repoRoot('dist', 'cli', 'main.js');

export function hookFile(event: string): string {
  const name = event.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
  return repoRoot('dist', 'hooks-bundle', `${name}.cjs`);
}

export function testEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SERVICE_HOME: home,
    SERVICE_MODEL_DIR: sharedDir('models', 'random-bert-tiny'),
    SERVICE_OFFLINE: 'true',
    SERVICE_CLI: CLI,
    SERVICE_USER_ID: 'tester',
    SERVICE_TELEMETRY: 'false',
    SERVICE_IDLE_FLUSH_MS: '600000',
    SERVICE_RECALL_DEADLINE_MS: '2000',
    SERVICE_RECALL_TIMEOUT_MS: '4000',
    ...extra,
  };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function run(cmd: string, args: string[], opts: { env: NodeJS.ProcessEnv; input?: string; cwd?: string; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env: opts.env, cwd: opts.cwd ?? process.cwd(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - t0 });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Run a hook script exactly as Claude Code does: event JSON on stdin. */
export function runHook(event: string, payload: unknown, env: NodeJS.ProcessEnv, cwd?: string): Promise<Run> {
  return run(process.execPath, [hookFile(event)], { env, input: JSON.stringify(payload), ...(cwd ? { cwd } : {}) });
}

/** Run the `service` CLI. */
export function cli(args: string[], env: NodeJS.ProcessEnv, cwd?: string, input?: string): Promise<Run> {
  return run(process.execPath, [CLI, ...args], { env, ...(cwd ? { cwd } : {}), ...(input !== undefined ? { input } : {}) });
}

export interface TestDaemon {
  home: string;
  env: NodeJS.ProcessEnv;
  client: DaemonClient;
  proc: ChildProcess;
  /** SIGTERM and wait for exit. */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash). */
  kill9(): Promise<void>;
  /** What the daemon process has said and how it ended, for a failing test's message. */
  diagnose(): string;
}

export async function startTestDaemon(opts: { home?: string; env?: Record<string, string> } = {}): Promise<TestDaemon> {
  const home = opts.home ?? path.join(tempDir('daemon-'), 'home');
  fs.mkdirSync(home, { recursive: true });
  const env = testEnv(home, opts.env);
  const proc = spawn(process.execPath, [CLI, 'daemon', 'run'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  proc.stdout!.resume();
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const client = new DaemonClient({ socketPath: resolvePaths(home).socket, timeoutMs: 60_000 });
  const deadline = Date.now() + 30_000;
  while (!(await client.ping(500))) {
    if (proc.exitCode !== null) throw new Error(`daemon exited early (${proc.exitCode}): ${err}`);
    if (Date.now() > deadline) throw new Error(`daemon did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  // Never let a daemon outlive the test process, however the test file ends.
  process.once('exit', () => proc.kill('SIGKILL'));
  return {
    home,
    env,
    client,
    proc,
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      return exited;
    },
    kill9: async () => {
      proc.kill('SIGKILL');
      await exited;
    },
    diagnose: () => {
      const state = proc.exitCode === null && proc.signalCode === null ? `running (pid ${proc.pid})` : `exited (code ${proc.exitCode}, signal ${proc.signalCode})`;
      let log = '';
      try {
        log = fs.readFileSync(path.join(resolvePaths(home).logDir, 'daemon.log'), 'utf8').split('\n').slice(-40).join('\n');
      } catch {
        log = '(no daemon.log)';
      }
      return `daemon ${state}\n--- stderr (last 4 KB) ---\n${err.slice(-4096)}\n--- daemon.log (last 40 lines) ---\n${log}`;
    },
  };
}

/** A working directory inside a git repository with an origin remote. */
export function makeRepo(remote = 'git@github.com:acme/shop.git'): string {
  const root = path.join(tempDir('repo-'), 'shop');
  fs.mkdirSync(path.join(root, '.git'), { recursive: true });
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.writeFileSync(path.join(root, '.git', 'config'), `[core]\n\tbare = false\n[remote "origin"]\n\turl = ${remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`);
  return root;
}

export interface SessionFixture {
  session_id: string;
  steps: ({ append: Record<string, unknown>[] } | { hook: string; payload: Record<string, unknown> })[];
}

export function loadSession(name: string): SessionFixture {
  return JSON.parse(fs.readFileSync(repoRoot('test', 'fixtures', 'sessions', `${name}.json`), 'utf8')) as SessionFixture;
}

function substitute<T>(value: T, vars: Record<string, string>): T {
  return JSON.parse(JSON.stringify(value).replace(/\$\{(\w+)\}/g, (m, k: string) => (k in vars ? JSON.stringify(vars[k]).slice(1, -1) : m))) as T;
}

/**
 * Play a recorded session: transcript lines are appended as Claude Code writes them, hook events
 * go through the real hook scripts. Returns each hook's run, in order.
 */
export async function replaySession(fixture: SessionFixture, opts: { env: NodeJS.ProcessEnv; cwd: string; transcript: string; sessionId?: string }): Promise<{ event: string; run: Run }[]> {
  const vars = { SESSION_ID: opts.sessionId ?? fixture.session_id, CWD: opts.cwd, TRANSCRIPT: opts.transcript };
  const out: { event: string; run: Run }[] = [];
  fs.mkdirSync(path.dirname(opts.transcript), { recursive: true });
  for (const step of fixture.steps) {
    if ('append' in step) {
      fs.appendFileSync(opts.transcript, step.append.map((e) => JSON.stringify(substitute(e, vars)) + '\n').join(''));
    } else {
      out.push({ event: step.hook, run: await runHook(step.hook, substitute(step.payload, vars), opts.env, opts.cwd) });
    }
  }
  return out;
}
