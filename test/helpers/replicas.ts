/** `service serve` as a child process on a PostgreSQL database: one replica of several. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot, sharedDir } from './tmp.js';

export interface Replica {
  child: ChildProcess;
  url: string;
  /** What it printed up to listening (the first replica on an empty database prints the admin key). */
  out: string;
}

/** Start a replica on `databaseUrl` with the tiny model; resolves once it listens. */
export function serveReplica(dataDir: string, databaseUrl: string, env: NodeJS.ProcessEnv = {}): Promise<Replica> {
  const child = spawn(process.execPath, [repoRoot('dist', 'cli', 'main.js'), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir], {
    env: {
      ...process.env,
      SERVICE_HOME: path.join(dataDir, 'home'),
      SERVICE_DATABASE_URL: databaseUrl,
      SERVICE_MODEL_DIR: sharedDir('models', 'random-bert-tiny'),
      SERVICE_OFFLINE: 'true',
      SERVICE_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ child, url, out });
    });
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => reject(new Error(`service serve exited with ${code}: ${out}`)));
  });
}

/** SIGTERM a replica and wait for it to exit. */
export async function stopReplica(r: Replica | undefined): Promise<void> {
  if (!r || r.child.exitCode !== null || r.child.signalCode !== null) return;
  const gone = new Promise((res) => r.child.once('exit', res));
  r.child.kill('SIGTERM');
  await gone;
}
