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

/** The daemon's socket: inside the home, or a short hashed name in the temp dir for long homes. */
export function socketPath(home: string): string {
  const inside = path.join(home, 'daemon.sock');
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return inside;
  const hash = createHash('sha256').update(path.resolve(home)).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), `memory-service-${hash}.sock`);
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
