/**
 * A real PostgreSQL for tests: Debian's postgresql-15 binaries, a fresh cluster in a temp dir on a
 * loopback port, started by the test file that needs it and stopped at its end.
 *
 * As root (CI containers) the cluster runs as the `postgres` user, since initdb refuses root. On a
 * developer machine without PostgreSQL the suites skip with the install command; with CI=true they
 * fail instead, so a missing database never passes silently.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import pg from 'pg';

export const PG_INSTALL_HINT = 'install PostgreSQL 15 to run these tests: sudo apt-get install -y postgresql-15';

const CANDIDATE_BINS = [process.env.PG_BIN, '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'].filter((d): d is string => !!d);

export interface TestPostgres {
  /** Connection string of the superuser on the `postgres` database. */
  url: string;
  port: number;
  /** A new empty database; returns its connection string. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

/** Directory holding initdb/pg_ctl/postgres, or null when none is installed. */
export function postgresBin(): string | null {
  for (const d of CANDIDATE_BINS) if (fs.existsSync(path.join(d, 'pg_ctl')) && fs.existsSync(path.join(d, 'initdb'))) return d;
  return null;
}

/**
 * The `skip` option for a describe() that needs PostgreSQL: false when it is installed, else the
 * reason (or an error under CI=true, where the suites must run).
 */
export function skipWithoutPostgres(): false | string {
  if (postgresBin()) return false;
  if (process.env.CI === 'true') throw new Error(`CI=true but PostgreSQL is not installed: ${PG_INSTALL_HINT}`);
  return PG_INSTALL_HINT;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Run a PostgreSQL binary, as the `postgres` user when we are root. */
function runPg(bin: string, args: string[]): void {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${path.basename(bin)} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
}

let counter = 0;

/** Start a throwaway cluster. Stopped by `stop()` (and, as a last resort, at process exit). */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error(PG_INSTALL_HINT);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-'));
  const data = path.join(dir, 'data');
  const sock = path.join(dir, 'sock');
  fs.mkdirSync(sock);
  if (asRoot) {
    fs.chmodSync(dir, 0o755);
    execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  }
  runPg(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const opts = `-c listen_addresses=127.0.0.1 -p ${port} -k ${sock} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=64MB`;
  runPg(path.join(bin, 'pg_ctl'), ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
  let stopped = false;
  const stopNow = (): void => {
    if (stopped) return;
    stopped = true;
    try {
      runPg(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // Already gone.
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopNow);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    createDatabase: async (name) => {
      const db = name ?? `t${process.pid}_${++counter}_${Date.now() % 100000}`;
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${db}`);
      } finally {
        await c.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${db}`;
    },
    stop: async () => stopNow(),
  };
}

/**
 * One cluster for the whole test file: started on first use, stopped after the file's tests.
 * Call at module level; await the returned getter inside before()/it().
 */
export function sharedPostgres(): () => Promise<TestPostgres> {
  let started: Promise<TestPostgres> | null = null;
  after(async () => {
    if (started) await (await started.catch(() => null))?.stop();
  });
  return () => (started ??= startPostgres());
}
