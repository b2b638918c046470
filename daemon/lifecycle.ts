/**
 * One daemon per data dir: an exclusive lock file holding the pid. A lock left by a crashed
 * daemon (its pid gone, or alive but not answering on the socket) is stale and taken over; a
 * leftover socket file is removed before listening.
 */
import fs from 'node:fs';
import { DaemonClient } from './client.js';

export interface LockInfo {
  pid: number;
  started_at: string;
  socket: string;
  version: string;
}

export function readLock(file: string): LockInfo | null {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as LockInfo;
    return typeof v.pid === 'number' ? v : null;
  } catch {
    return null;
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type LockResult = { acquired: true } | { acquired: false; holder: LockInfo };

/**
 * Take the lock, or report the live daemon holding it. Stale locks (dead pid, or a pid that does
 * not answer on the socket within `pingMs`) are removed with their socket.
 */
export async function acquireLock(file: string, info: LockInfo, pingMs = 1500): Promise<LockResult> {
  for (let attempt = 0; attempt < 3; attempt++) {
    // Write the whole lock aside, then link it into place: link() fails atomically when the lock
    // exists, and a lock that is visible is always complete (never half-written).
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(info), { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
      return { acquired: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    const holder = readLock(file);
    if (holder && holder.pid !== process.pid && pidAlive(holder.pid)) {
      const answers = await new DaemonClient({ socketPath: holder.socket }).ping(pingMs);
      if (answers) return { acquired: false, holder };
      // Alive but silent: maybe still starting. Give it one more chance before calling it stale.
      await new Promise((r) => setTimeout(r, pingMs));
      if (await new DaemonClient({ socketPath: holder.socket }).ping(pingMs)) return { acquired: false, holder };
    }
    // Stale: the holder is gone (or the lock is unreadable). Remove it and its socket, retry,
    // unless another starter replaced it meanwhile.
    const now = readLock(file);
    if (now && holder && now.pid !== holder.pid) continue;
    if (holder) removeSocket(holder.socket);
    fs.rmSync(file, { force: true });
  }
  throw new Error(`could not take the daemon lock ${file}; remove it if no daemon is running`);
}

export function releaseLock(file: string): void {
  const holder = readLock(file);
  if (!holder || holder.pid === process.pid) fs.rmSync(file, { force: true });
}

export function removeSocket(socketPath: string): void {
  try {
    if (fs.lstatSync(socketPath).isSocket()) fs.rmSync(socketPath, { force: true });
  } catch {
    // not there
  }
}
