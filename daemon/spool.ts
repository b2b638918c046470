/**
 * Ingest the hooks' spool (hooks/lib/spool.ts): events a hook could not hand over, one file each,
 * oldest first. Each is captured (journaled, redacted like every capture) before its file is
 * removed, so a crash in between sends it again, and its capture id makes the second time a no-op.
 * A file that is not an event is set aside as `.bad`; one the daemon refuses as invalid as
 * `.rejected`: both are kept for diagnosis only as redacted copies (0600), never as the hook wrote
 * them. A journal that cannot be written stops the round and leaves the rest for the next one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { redact, redactValue } from '../engine/index.js';
import { JournalWriteError } from './journal.js';

/** The field that carries a hook event's capture id (hooks/lib/spool.ts `CAPTURE_ID_FIELD`). */
export const CAPTURE_ID_FIELD = 'memory_capture_id';

/** Temp files of a hook that died mid-write are removed after this long. */
const STALE_TMP_MS = 60_000;

export interface SpoolReport {
  ingested: number;
  /** Set aside: not an event (`.bad`) or refused as invalid (`.rejected`). */
  setAside: number;
  /** Left for the next round (the journal refused the write). */
  left: number;
}

export async function ingestSpool(dir: string, capture: (payload: Record<string, unknown>) => Promise<unknown>): Promise<SpoolReport> {
  const report: SpoolReport = { ingested: 0, setAside: 0, left: 0 };
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return report; // no spool yet
  }
  const now = Date.now();
  for (const n of names.filter((x) => x.endsWith('.tmp'))) {
    try {
      if (now - fs.statSync(path.join(dir, n)).mtimeMs > STALE_TMP_MS) fs.rmSync(path.join(dir, n), { force: true });
    } catch {
      // gone meanwhile
    }
  }
  const events = names.filter((x) => x.endsWith('.json')).sort();
  for (let i = 0; i < events.length; i++) {
    const file = path.join(dir, events[i]!);
    let payload: unknown;
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
      payload = JSON.parse(text);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // another round took it
      payload = null;
    }
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
      setAside(file, '.bad', redact(text).text);
      report.setAside++;
      continue;
    }
    try {
      await capture(payload as Record<string, unknown>);
    } catch (err) {
      if (err instanceof JournalWriteError) {
        report.left = events.length - i;
        break;
      }
      setAside(file, '.rejected', JSON.stringify(redactValue(payload)));
      report.setAside++;
      continue;
    }
    fs.rmSync(file, { force: true });
    report.ingested++;
  }
  return report;
}

/** Keep a redacted copy of a file the daemon could not ingest, and remove the original. */
function setAside(file: string, ext: string, redacted: string): void {
  const aside = file.replace(/\.json$/, ext);
  try {
    fs.writeFileSync(`${aside}.tmp`, redacted, { mode: 0o600 });
    fs.renameSync(`${aside}.tmp`, aside);
  } catch {
    fs.rmSync(`${aside}.tmp`, { force: true });
  }
  fs.rmSync(file, { force: true });
}
