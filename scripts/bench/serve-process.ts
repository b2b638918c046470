/** `service serve` as a child process for the HTTP benchmarks (server, sync). */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');

export interface Served {
  child: ChildProcess;
  url: string;
  /** The API key a first start prints (only waited for with `withKey`). */
  key: string | null;
}

/** Start the server on a loopback port over `dataDir`; resolves once it listens (and, with `withKey`, once it printed its first key). */
export function startServe(dataDir: string, env: NodeJS.ProcessEnv, opts: { withKey?: boolean } = {}): Promise<Served> {
  const child = spawn(process.execPath, [path.join(repo, 'dist', 'cli', 'main.js'), 'serve', '--port', '0', '--data', dataDir], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const key = /^\s+(\S{20,})\s*$/m.exec(out)?.[1] ?? null;
      if (url && (key || !opts.withKey)) resolve({ child, url, key });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

/** SIGTERM a child process and wait for it to exit. */
export async function stopChild(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
