/** Atomic in-place edit of an NDJSON file: stream it into a temp file, fsync, rename over it. */
import fs from 'node:fs';
import path from 'node:path';
import { syncDir } from './atomic-file.js';
import { ndjsonLines } from './ndjson-lines.js';

const BUFFER_BYTES = 1 << 20;

/**
 * Rewrite the first `count` complete lines of `file` (lines are numbered from 1), replacing a line
 * where `change` returns text and keeping it where it returns null; later lines are dropped.
 * Returns each kept line's new [offset, length] and the new file size. A crash before the rename
 * leaves the old file untouched.
 */
export async function rewriteLines(file: string, count: number, change: (lineNo: number, text: string) => string | null): Promise<{ placed: [number, number][]; size: number }> {
  const tmp = `${file}.rewrite`;
  const out = await fs.promises.open(tmp, 'w', 0o600);
  const placed: [number, number][] = [];
  let size = 0;
  try {
    let buf: string[] = [];
    let bufLen = 0;
    let n = 0;
    for await (const l of ndjsonLines(file)) {
      if (!l.complete || ++n > count) break;
      const text = change(n, l.text) ?? l.text;
      const length = Buffer.byteLength(text);
      placed.push([size, length]);
      size += length + 1;
      buf.push(text, '\n');
      bufLen += length + 1;
      if (bufLen > BUFFER_BYTES) {
        await out.write(buf.join(''));
        buf = [];
        bufLen = 0;
      }
    }
    if (buf.length > 0) await out.write(buf.join(''));
    await out.sync();
  } finally {
    await out.close();
  }
  await fs.promises.rename(tmp, file);
  syncDir(path.dirname(file));
  return { placed, size };
}
