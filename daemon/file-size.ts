import fs from 'node:fs';

/** A file's size in bytes, 0 when it cannot be read (a transcript not written yet, or removed). */
export function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
