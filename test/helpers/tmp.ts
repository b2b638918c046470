import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh temp directory removed when the process exits (or by calling the returned cleanup). */
export function tempDir(prefix = 'ms-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.once('exit', () => {
    // A daemon that is still closing may write a last file while the tree goes: retry, and never
    // fail a test file over its leftovers in the temp dir.
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch {
      // left for the OS to clean
    }
  });
  return dir;
}

/** Absolute path of the shared folder beside the repository (models, benchmark data). */
export function sharedDir(...parts: string[]): string {
  const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
  return path.resolve(repo, '..', 'shared', ...parts);
}

/** Root of the repository (the compiled tests run from dist/test). */
export function repoRoot(...parts: string[]): string {
  return path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..', ...parts);
}

/** Every regular file under `dir`, recursively (for greps of a data dir). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}
