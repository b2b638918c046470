/**
 * The real Claude Code client (the two pinned versions in devDependencies) in an isolated world:
 * a temp HOME with its own CLAUDE_CONFIG_DIR, a SERVICE_HOME, a scratch git repository, the
 * Messages API stand-in on 127.0.0.1 (messages-api.ts), and a bin folder with `service` (and, when
 * asked, `claude`) on PATH. Nothing non-essential is switched on and nothing leaves loopback.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CLI, testEnv } from './daemon.js';
import { startMessagesApi, type MessagesApi } from './messages-api.js';
import { repoRoot, tempDir } from './tmp.js';

export interface ClaudeVersion {
  /** The devDependency alias it is installed under. */
  pkg: string;
  version: string;
  bin: string;
}

/** What `npm i` resolves on Node 20, and the latest release (package.json devDependencies). */
export const CLAUDE_VERSIONS: ClaudeVersion[] = [
  { pkg: 'claude-code-node20', version: '2.1.197', bin: repoRoot('node_modules', 'claude-code-node20', 'bin', 'claude.exe') },
  { pkg: 'claude-code-latest', version: '2.1.331', bin: repoRoot('node_modules', 'claude-code-latest', 'bin', 'claude.exe') },
];

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** `--output-format json`'s result object (null when stdout was not one). */
  result: { session_id?: string; result?: string; is_error?: boolean; permission_denials?: unknown[] } | null;
  session_id: string;
  ms: number;
  /** performance.now() when the process exited. */
  exitedAt: number;
}

export interface ClaudeWorld {
  root: string;
  home: string;
  configDir: string;
  settings: string;
  data: string;
  repo: string;
  bin: string;
  env: NodeJS.ProcessEnv;
  api: MessagesApi;
  claude: ClaudeVersion;
  /** `claude -p <prompt> --output-format json` in the repository, with a fresh session id. */
  run(prompt: string, args?: string[], opts?: { sessionId?: string | null; env?: Record<string, string>; timeoutMs?: number }): Promise<ClaudeRun>;
  /** The `service` CLI as the user runs it (PATH, the world's env). */
  service(args: string[], opts?: { cwd?: string; env?: Record<string, string> }): Promise<{ code: number | null; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

/** Environment switches that keep Claude Code to the essential (documented in its settings reference). */
export const QUIET_CLAUDE_ENV: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_BUG_COMMAND: '1',
  CLAUDE_CODE_DISABLE_TERMINAL_TITLE: '1',
};

function exec(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<{ code: number | null; stdout: string; stderr: string; exitedAt: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('exit', () => {
      const exitedAt = performance.now();
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr, exitedAt, ms: exitedAt - t0 });
      });
    });
  });
}

/** `api`: a stand-in to share (it is then left open by close()); else the world starts its own. */
export async function claudeWorld(claude: ClaudeVersion, opts: { claudeOnPath: boolean; settings?: unknown; env?: Record<string, string>; api?: MessagesApi }): Promise<ClaudeWorld> {
  if (!fs.existsSync(claude.bin)) throw new Error(`Claude Code ${claude.version} is not installed at ${claude.bin}; run npm ci (it is a devDependency, ${claude.pkg})`);
  const root = tempDir('claude-world-');
  const home = path.join(root, 'home');
  const configDir = path.join(home, '.claude');
  const settings = path.join(configDir, 'settings.json');
  const data = path.join(root, 'data');
  const repo = path.join(root, 'shop');
  const bin = path.join(root, 'bin');
  for (const d of [configDir, repo, bin]) fs.mkdirSync(d, { recursive: true });
  if (opts.settings !== undefined) fs.writeFileSync(settings, JSON.stringify(opts.settings, null, 2) + '\n');
  fs.writeFileSync(path.join(repo, 'README.md'), '# shop\n\nA small shop service.\n');
  for (const args of [['init', '-q'], ['remote', 'add', 'origin', 'git@github.com:acme/shop.git']]) spawnSync('git', args, { cwd: repo });
  // `service` as an installed CLI would be; `claude` only when the test wants it found on PATH.
  fs.writeFileSync(path.join(bin, 'service'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  if (opts.claudeOnPath) fs.symlinkSync(claude.bin, path.join(bin, 'claude'));
  const api = opts.api ?? (await startMessagesApi());
  const base = testEnv(data, { HOME: home });
  delete base.SERVICE_CLI;
  const env: NodeJS.ProcessEnv = {
    ...base,
    PATH: [bin, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'sk-ant-api03-standin-not-a-real-key',
    ...QUIET_CLAUDE_ENV,
    ...opts.env,
  };
  const world: ClaudeWorld = {
    root,
    home,
    configDir,
    settings,
    data,
    repo,
    bin,
    env,
    api,
    claude,
    async run(prompt, args = [], o = {}) {
      // null: no --session-id (with --resume, the resumed session's id is kept).
      const sessionId = o.sessionId === null ? null : (o.sessionId ?? randomUUID());
      const r = await exec(claude.bin, ['-p', prompt, '--output-format', 'json', ...(sessionId ? ['--session-id', sessionId] : []), ...args], { cwd: repo, env: { ...env, ...o.env }, timeoutMs: o.timeoutMs ?? 120_000 });
      let result: ClaudeRun['result'] = null;
      try {
        result = JSON.parse(r.stdout) as ClaudeRun['result'];
      } catch {
        result = null;
      }
      return { ...r, result, session_id: sessionId ?? result?.session_id ?? '' };
    },
    async service(args, o = {}) {
      return exec(path.join(bin, 'service'), args, { cwd: o.cwd ?? repo, env: { ...env, ...o.env } });
    },
    async close() {
      await exec(process.execPath, [CLI, 'daemon', 'stop'], { cwd: root, env }).catch(() => null);
      if (!opts.api) await api.close();
    },
  };
  return world;
}
