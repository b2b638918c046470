/**
 * Owner-only permissions for a whole data directory. The daemon's home and the server's data dir
 * hold memories, exports, journals, logs and state; one created by an older build (or by hand,
 * or under a loose umask) may have 0755 directories and 0644 files that any local user can read.
 * On start both walk their tree once and close it: directories 0700, files 0600. Symlinks are
 * not followed, sockets and entries owned by someone else are left as they are.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface TightenReport {
  /** Directories and files whose mode was changed. */
  changed: number;
  /** Entries that could not be changed (not ours, gone meanwhile): path and reason. */
  skipped: { path: string; reason: string }[];
}

/** Close `root` and everything under it to its owner. A missing root is created 0700. */
export function tightenTree(root: string): TightenReport {
  const report: TightenReport = { changed: 0, skipped: [] };
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  const me = typeof process.getuid === 'function' ? process.getuid() : null;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    tighten(dir, 0o700, me, report);
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch (err) {
      report.skipped.push({ path: dir, reason: (err as NodeJS.ErrnoException).code ?? String(err) });
      continue;
    }
    for (const name of names) {
      const p = path.join(dir, name);
      let st: fs.Stats;
      try {
        st = fs.lstatSync(p);
      } catch {
        continue; // removed meanwhile
      }
      if (st.isDirectory()) stack.push(p);
      else if (st.isFile()) tighten(p, 0o600, me, report, st);
    }
  }
  return report;
}

function tighten(p: string, mode: number, me: number | null, report: TightenReport, known?: fs.Stats): void {
  try {
    const st = known ?? fs.lstatSync(p);
    if ((st.mode & 0o077) === 0) return; // already closed to group and others
    if (me !== null && st.uid !== me) {
      report.skipped.push({ path: p, reason: `owned by uid ${st.uid}` });
      return;
    }
    fs.chmodSync(p, mode);
    report.changed++;
  } catch (err) {
    report.skipped.push({ path: p, reason: (err as NodeJS.ErrnoException).code ?? String(err) });
  }
}
