/**
 * A store that cannot open is moved aside and rebuilt from what survives: the versions still
 * readable in the damaged copy (the version log, then the current view), re-imported losslessly.
 * The daemon adds the rest: the journal replays what was not flushed, transcripts are read again
 * from their start (consolidation drops what is already stored), and sync pulls the server's
 * whole feed when it is on.
 */
import fs from 'node:fs';
import { exportLine, salvageLanceVersions, type MemoryEngine } from '../engine/index.js';

export interface RebuildReport {
  /** Where the damaged store was moved. */
  aside: string;
  /** Versions read back from it and imported into the new store. */
  recovered: number;
  /** What could not be read. */
  failures: string[];
}

/** Errors that moving the store aside cannot fix (the disk, the permissions): retry later instead. */
export function environmental(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code && ['ENOSPC', 'EACCES', 'EPERM', 'EROFS', 'EMFILE', 'ENFILE', 'EDQUOT'].includes(code)) return true;
  return /no space left|os error (28|13|30|24|122)\b|permission denied|read-only file system|too many open files|quota exceeded/i.test(err instanceof Error ? err.message : String(err));
}

/** Move `dir` aside (`<dir>.damaged-<time>`) and return where it went. */
export function moveAside(dir: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  let aside = `${dir}.damaged-${stamp}`;
  for (let i = 1; fs.existsSync(aside); i++) aside = `${dir}.damaged-${stamp}-${i}`;
  fs.renameSync(dir, aside);
  return aside;
}

/** Import every version readable in the damaged store at `aside` into `engine` (open, empty or not). */
export async function importSalvage(aside: string, engine: MemoryEngine): Promise<RebuildReport> {
  const salvage = await salvageLanceVersions(aside);
  let recovered = 0;
  if (salvage.rows.length > 0) {
    const lines = salvage.rows.map((r) => JSON.stringify(exportLine(r)));
    const r = await engine.import(lines);
    recovered = r.imported;
  }
  return { aside, recovered, failures: salvage.failures };
}
