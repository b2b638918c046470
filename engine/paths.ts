/**
 * Every on-disk location, resolved in one place from the data directory (`SERVICE_HOME`).
 * hooks/ cannot import this file (zero dependencies); hooks/lib/paths.ts mirrors `socketPath`
 * and a test keeps the two in agreement.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

/** Unix socket paths are limited to 108 bytes on Linux (104 on macOS); stay safely under. */
const MAX_SOCKET_PATH = 100;

export interface Paths {
  home: string;
  socket: string;
  pidFile: string;
  lockFile: string;
  lanceDir: string;
  journalDir: string;
  /** Events hooks could not deliver, one file each; the daemon ingests them (hooks/lib/spool.ts). */
  spoolDir: string;
  stateDir: string;
  logDir: string;
  modelCache: string;
  exportsDir: string;
  /** Sync cursors, parked versions and the purge outbox (survives restarts). */
  syncStateFile: string;
  /** Server data (orgs, keys, events…) when `service serve --data` points here. */
  serverDir: string;
  schemaFile: string;
}

/**
 * The data dir layout version this build writes (schema.json). A data dir the daemon creates is
 * stamped with it; older ones are migrated by `service plugin install|update`, whose migration
 * list (cli/plugin/migrations.ts) ends at this version (tested).
 */
export const DATA_SCHEMA_VERSION = 1;

/**
 * The daemon's socket, always inside a directory only this user may enter (mode 0700, checked by
 * the daemon before it listens and by every client before it sends): the data dir itself, or, when
 * that path is too long for a socket, a private directory under `$XDG_RUNTIME_DIR` (per user by
 * definition) or else `memory-service-<uid>` in the temp dir. That last name is predictable, but
 * it is per user and verified: a directory another user made there is refused, never used.
 */
export function socketPath(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const inside = path.join(home, 'daemon.sock');
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return inside;
  const hash = createHash('sha256').update(path.resolve(home)).digest('hex').slice(0, 16);
  return path.join(privateRuntimeDir(env), `${hash}.sock`);
}

/** The per-user directory for sockets of long data dirs (see `socketPath`). */
export function privateRuntimeDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg && path.isAbsolute(xdg) && Buffer.byteLength(xdg) <= 60) return path.join(xdg, 'memory-service');
  return path.join(os.tmpdir(), `memory-service-${typeof process.getuid === 'function' ? process.getuid() : 'user'}`);
}

export function resolvePaths(home: string): Paths {
  const h = path.resolve(home);
  return {
    home: h,
    socket: socketPath(h),
    pidFile: path.join(h, 'daemon.pid'),
    lockFile: path.join(h, 'daemon.lock'),
    lanceDir: path.join(h, 'lance'),
    journalDir: path.join(h, 'journal'),
    spoolDir: path.join(h, 'spool'),
    stateDir: path.join(h, 'state'),
    logDir: path.join(h, 'logs'),
    modelCache: path.join(h, 'models'),
    exportsDir: path.join(h, 'exports'),
    syncStateFile: path.join(h, 'state', 'sync.json'),
    serverDir: path.join(h, 'server'),
    schemaFile: path.join(h, 'schema.json'),
  };
}
