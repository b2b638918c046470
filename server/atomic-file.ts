/**
 * Small durable-file helpers shared by the server's stores: atomic replace (temp file, fsync,
 * rename, directory fsync) and a cross-process lock file for read-modify-write cycles.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Write a file atomically: temp file, fsync, rename, fsync of the directory. Owner-only permissions. */
export function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  syncDir(path.dirname(file));
}

/** fsync a directory so a rename in it survives a power cut (best effort where unsupported). */
export function syncDir(dir: string): void {
  let fd: number | null = null;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/** Read and parse a JSON file, or return `fallback` when it does not exist. */
export function readJson<T>(file: string, fallback: T): T {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw err;
  }
  return JSON.parse(text) as T;
}

/** A lock older than this belongs to a crashed process and is taken over. */
const STALE_LOCK_MS = 10_000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Run `fn` while holding `<file>.lock` (created with O_EXCL), so that processes sharing a data
 * directory apply their read-modify-write cycles one at a time. Waits up to `timeoutMs`.
 */
export function withFileLock<T>(file: string, fn: () => T, timeoutMs = 5000): T {
  const lock = `${file}.lock`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lock, 'wx', 0o600));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > STALE_LOCK_MS) fs.rmSync(lock, { force: true });
      } catch {
        // removed by its owner meanwhile
      }
      if (Date.now() > deadline) throw new Error(`could not lock ${file} within ${timeoutMs} ms; is another process stuck?`);
      Atomics.wait(sleeper, 0, 0, 5);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}
