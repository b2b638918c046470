/**
 * Times processes the way Claude Code runs hooks: spawned, fed stdin, waited for until they exited
 * and their output closed. It runs in a small process of its own (`startLauncher`): on Linux a
 * spawn forks the parent first, and forking the benchmark process itself (over 1 GB once it has
 * seeded 100k memories) added ~15 ms to every timed process, the `node -e 0` floor included.
 */
import { fork, spawn } from 'node:child_process';
import path from 'node:path';

export interface Timed {
  ms: number;
  code: number | null;
  stdout: string;
}

export interface TimeRequest {
  cmd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  input: string;
}

/** Run a command with `input` on stdin; wall time from spawn until it exited and its output closed. */
export function timeProcess(req: TimeRequest): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(req.cmd, req.args, { env: req.env, cwd: req.cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - t0, code, stdout }));
    child.stdin.end(req.input);
  });
}

export interface Launcher {
  time(req: TimeRequest): Promise<Timed>;
  close(): void;
}

/** Start the launcher process; one request at a time. */
export function startLauncher(): Launcher {
  const child = fork(path.join(path.dirname(new URL(import.meta.url).pathname), 'launcher.js'), ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let pending: { resolve: (t: Timed) => void; reject: (e: Error) => void } | null = null;
  child.on('message', (m: { ok: true; timed: Timed } | { ok: false; error: string }) => {
    const p = pending;
    pending = null;
    if (m.ok) p?.resolve(m.timed);
    else p?.reject(new Error(m.error));
  });
  child.on('exit', () => pending?.reject(new Error('the launcher exited')));
  return {
    time: (req) =>
      new Promise((resolve, reject) => {
        if (pending) throw new Error('the launcher runs one request at a time');
        pending = { resolve, reject };
        child.send(req);
      }),
    close: () => child.kill(),
  };
}

if (process.argv[2] === '--serve') {
  process.on('message', (req: TimeRequest) => {
    timeProcess(req).then(
      (timed) => process.send!({ ok: true, timed }),
      (err: unknown) => process.send!({ ok: false, error: String(err) }),
    );
  });
}
