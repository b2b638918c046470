/** `service serve` as a child process for the HTTP benchmarks (server, sync). */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');

export interface Served {
  child: ChildProcess;
  url: string;
  /** The API key a first start prints (only waited for with `withKey`). */
  key: string | null;
}

/**
 * Start the server on a loopback port over `dataDir`; resolves once it listens (and, with `withKey`,
 * once it printed its first key). Its output is always read (a pipe left full would block the
 * server's writes); with BENCH_SERVE_LOG_DIR set, each server's stdout and stderr are appended to
 * `<dir>/serve-<pid>.log` there, and BENCH_SERVE_NODE_ARGS (e.g. "--trace-gc") goes to its Node.
 */
export function startServe(dataDir: string, env: NodeJS.ProcessEnv, opts: { withKey?: boolean } = {}): Promise<Served> {
  const nodeArgs = (process.env.BENCH_SERVE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(repo, 'dist', 'cli', 'main.js'), 'serve', '--port', '0', '--data', dataDir], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logDir = process.env.BENCH_SERVE_LOG_DIR;
  const log = logDir ? fs.createWriteStream(path.join(logDir, `serve-${child.pid}.log`), { flags: 'a' }) : null;
  let err = '';
  child.stderr!.on('data', (b: Buffer) => {
    log?.write(b);
    err = (err + b.toString()).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      log?.write(b);
      if (out.length > 100_000) return;
      out += b.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const key = /^\s+(\S{20,})\s*$/m.exec(out)?.[1] ?? null;
      if (url && (key || !opts.withKey)) resolve({ child, url, key });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}${err}`)));
  });
}

/** SIGTERM a child process and wait for it to exit. */
export async function stopChild(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
