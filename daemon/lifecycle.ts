/**
 * One daemon per data dir: an exclusive lock file holding the pid. The lock decides who runs,
 * whatever the socket says: a lock whose pid is alive (and runs this data dir's daemon, where /proc
 * tells) is held, even when its socket is gone or silent (the daemon re-creates a vanished socket).
 * Only a lock whose pid is gone (or reused by another program or another data dir's daemon) is
 * stale and taken over; a leftover socket file is removed before listening.
 */
import fs from 'node:fs';
import path from 'node:path';

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

/**
 * Is `pid` (alive) running the daemon (`… daemon run`) of the data dir `home`? False only when /proc
 * says otherwise: a pid that a crash left in a lock, since reused by another program, another Node
 * process, or the daemon of another data dir (its environment names another SERVICE_HOME).
 */
export function looksLikeDaemon(pid: number, home?: string): boolean {
  let cmd: string;
  try {
    cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true; // no /proc here (macOS), or no access: trust the pid
  }
  if (cmd === '') return true; // exiting, or not readable: cannot tell
  const args = cmd.split('\0');
  if (!args.some((a, i) => a === 'daemon' && args[i + 1] === 'run')) return false;
  if (home === undefined) return true;
  let theirs: string | undefined;
  try {
    theirs = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((v) => v.startsWith('SERVICE_HOME='))?.slice('SERVICE_HOME='.length);
  } catch {
    return true;
  }
  // Unset (the default data dir) or relative to a working directory unknown here: cannot tell.
  return theirs === undefined || !path.isAbsolute(theirs) || realPath(theirs) === realPath(home);
}

function realPath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

export type LockResult = { acquired: true } | { acquired: false; holder: LockInfo };

/**
 * Take the lock, or report the live daemon holding it. Stale locks (dead pid, or a pid reused by
 * another program) are removed with their socket. A live holder keeps the lock even when its
 * socket does not answer: two daemons on one data dir would each delete the other's journal.
 */
export async function acquireLock(file: string, info: LockInfo): Promise<LockResult> {
  for (let attempt = 0; attempt < 5; attempt++) {
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
    if (holder && holder.pid !== process.pid && pidAlive(holder.pid) && looksLikeDaemon(holder.pid, path.dirname(file))) return { acquired: false, holder };
    if (!holder) {
      // Gone (its daemon just stopped) or unreadable (a lock is linked into place whole, so that
      // means damaged): let a concurrent starter finish, then look again.
      await new Promise((r) => setTimeout(r, 50));
      if (!fs.existsSync(file) || readLock(file)) continue;
      fs.rmSync(file, { force: true });
      continue;
    }
    // Stale: the holder is gone. Remove the lock and its socket and retry, unless another starter
    // replaced it meanwhile.
    const now = readLock(file);
    if (now && now.pid !== holder.pid) continue;
    removeSocket(holder.socket);
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
