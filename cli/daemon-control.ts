/**
 * Starting, finding and stopping the background daemon from the CLI. The daemon's own modules are
 * loaded only to stop one: finding a running daemon needs nothing but the socket client.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DaemonClient } from '../daemon/client.js';
import { daemonProcessEnv } from '../daemon/process-env.js';
import { comparableSettings, CONFIG_SCHEMA, resolvePaths, type Config, type Env } from '../engine/index.js';
import { CliError, EXIT, type CommandContext } from './command.js';

export function clientFor(config: Config, timeoutMs?: number): DaemonClient {
  return new DaemonClient({ socketPath: resolvePaths(config.home).socket, ...(timeoutMs ? { timeoutMs } : {}) });
}

/** The CLI entry file, to start `daemon run` with the same Node. */
export function cliPath(): string {
  return path.resolve(path.dirname(new URL(import.meta.url).pathname), 'main.js');
}

/** The running daemon's pid and version (its /health answer), or null when none answers. */
export async function daemonHealth(config: Config, timeoutMs = 1000): Promise<{ pid: number; version: string } | null> {
  try {
    return await clientFor(config).request<{ pid: number; version: string }>('GET', '/health', undefined, { timeoutMs });
  } catch {
    return null;
  }
}

/**
 * Make sure a daemon answers; start one in the background if needed. Returns its pid and whether
 * this call started it.
 */
export async function ensureDaemon(config: Config, env: NodeJS.ProcessEnv, timeoutMs = 30_000, opts: { explicit?: boolean } = {}): Promise<{ pid: number | null; started: boolean }> {
  const paths = resolvePaths(config.home);
  const running = await daemonHealth(config);
  if (running) return { pid: running.pid, started: false };
  if (!config.autostart && !opts.explicit) throw new CliError(`the memory daemon is not running (SERVICE_AUTOSTART is off); start it with: service daemon start`, EXIT.DAEMON_UNREACHABLE);
  fs.mkdirSync(paths.logDir, { recursive: true, mode: 0o700 });
  const out = fs.openSync(path.join(paths.logDir, 'daemon.out'), 'a', 0o600);
  const child = spawn(process.execPath, [cliPath(), 'daemon', 'run', '--background'], { detached: true, stdio: ['ignore', out, out], env: daemonProcessEnv({ ...env, SERVICE_HOME: paths.home }) });
  fs.closeSync(out);
  let exited: number | null = null;
  child.on('exit', (code) => (exited = code ?? 1));
  child.unref();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const up = await daemonHealth(config, 500);
    if (up) return { pid: up.pid, started: true };
    if (exited !== null && exited !== 0) throw new CliError(`the daemon failed to start (exit ${exited}); see ${path.join(paths.logDir, 'daemon.out')} and daemon.log`, EXIT.DAEMON_UNREACHABLE);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new CliError(`the daemon did not answer within ${timeoutMs / 1000}s; see ${path.join(paths.logDir, 'daemon.log')}`, EXIT.DAEMON_UNREACHABLE);
}

/** Ask the daemon to stop (SIGTERM, then SIGKILL after `graceMs`). Returns the pid stopped, or null. */
export async function stopDaemon(config: Config, graceMs = 20_000): Promise<number | null> {
  const { looksLikeDaemon, pidAlive, readLock, removeSocket } = await import('../daemon/index.js');
  const paths = resolvePaths(config.home);
  const lock = readLock(paths.lockFile);
  // A lock a crash left behind names a pid that may since run something else: never signal that.
  if (!lock || !pidAlive(lock.pid) || !looksLikeDaemon(lock.pid, paths.home)) {
    fs.rmSync(paths.lockFile, { force: true });
    removeSocket(paths.socket);
    return null;
  }
  process.kill(lock.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && pidAlive(lock.pid)) await new Promise((r) => setTimeout(r, 50));
  if (pidAlive(lock.pid)) {
    process.kill(lock.pid, 'SIGKILL');
    fs.rmSync(paths.lockFile, { force: true });
    removeSocket(paths.socket);
  }
  return lock.pid;
}

/**
 * A client to a running daemon, starting one if needed, after a warning for every setting this
 * shell's environment sets to something else than the daemon runs with (the daemon keeps the
 * environment of whichever process started it; the config file it follows by itself).
 */
export async function readyDaemon(ctx: CommandContext, timeoutMs?: number): Promise<DaemonClient> {
  const config = ctx.config();
  const r = await ensureDaemon(config, ctx.io.env);
  if (r.started) ctx.err(`(started the memory daemon, pid ${r.pid})`);
  const client = clientFor(config, timeoutMs);
  if (!r.started) for (const w of await settingDrift(client, config, ctx.io.env)) ctx.err(w);
  return client;
}

/** Groups of settings the daemon uses (the /v1 server's own settings do not matter to it). */
const DAEMON_GROUPS = new Set(['plugin', 'daemon', 'model', 'extractor', 'sync']);

/** Warnings for settings this environment sets explicitly to another value than the daemon's. */
export async function settingDrift(client: DaemonClient, config: Config, env: Env): Promise<string[]> {
  let theirs: Record<string, string>;
  try {
    theirs = (await client.request<{ settings: Record<string, string> }>('GET', '/v1/local/config', undefined, { timeoutMs: 1000 })).settings;
  } catch {
    return []; // an older daemon without the route, or a busy one: say nothing rather than guess
  }
  const ours = comparableSettings(config);
  const out: string[] = [];
  for (const entry of Object.values(CONFIG_SCHEMA) as { env: string; group: string; kind: string }[]) {
    if (!DAEMON_GROUPS.has(entry.group) || env[entry.env] === undefined || env[entry.env] === '') continue;
    if (!(entry.env in theirs) || theirs[entry.env] === ours[entry.env]) continue;
    const show = (v: string | undefined): string => (entry.kind === 'secret' ? (v ? 'another key' : 'unset') : v === '' || v === undefined ? 'unset' : v);
    out.push(
      entry.kind === 'secret'
        ? `warning: ${entry.env} in this shell differs from the running daemon's (${show(theirs[entry.env])}); the daemon uses its own. Apply yours: service daemon restart (or keep it: service config set ${entry.env} …)`
        : `warning: ${entry.env} is ${show(ours[entry.env])} in this shell but ${show(theirs[entry.env])} in the running daemon, which uses its own. Apply yours: service daemon restart (or keep it: service config set ${entry.env} ${ours[entry.env]})`,
    );
  }
  return out;
}
