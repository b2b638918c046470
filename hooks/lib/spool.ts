/**
 * The hooks' durable spool: an event a hook could not hand to the daemon (not running, starting,
 * or reset mid-request) is written to `<data dir>/spool/` as one file, fsync'd and renamed into
 * place (0600 in a 0700 dir), so it survives a crash of either side. The daemon ingests the
 * spool when it starts and while it runs (daemon/spool.ts), in file-name order (time first).
 * Mirrors engine/paths.ts `spoolDir`; test/hooks/spool.test.ts keeps the two in agreement.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The field that carries an event's capture id: the daemon journals an id once, however often it is sent. */
export const CAPTURE_ID_FIELD = 'memory_capture_id';

export function spoolDir(home: string): string {
  return path.join(home, 'spool');
}

/** A new capture id: time, pid and randomness (no node:crypto load in a hook). */
export function newCaptureId(): string {
  return `${Date.now().toString(36)}-${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Write the event to the spool durably. Returns the file, or null when even that failed. */
export function spoolEvent(home: string, payload: Record<string, unknown>): string | null {
  const dir = spoolDir(home);
  const id = typeof payload[CAPTURE_ID_FIELD] === 'string' ? (payload[CAPTURE_ID_FIELD] as string) : newCaptureId();
  const name = `${Date.now().toString().padStart(15, '0')}-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const tmp = path.join(dir, `${name}.tmp`);
  const file = path.join(dir, `${name}.json`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // A spool dir made by an older build (or by hand) may be open to others: close it first.
    if ((fs.statSync(dir).mode & 0o777) !== 0o700) fs.chmodSync(dir, 0o700);
    const fd = fs.openSync(tmp, 'wx', 0o600);
    try {
      fs.writeSync(fd, JSON.stringify({ ...payload, [CAPTURE_ID_FIELD]: id }));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    const dfd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(dfd);
    } finally {
      fs.closeSync(dfd);
    }
    return file;
  } catch {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // nothing more to do
    }
    return null;
  }
}
