/** Streaming reader of NDJSON files that reports each line's byte offset (for on-disk indexes). */
import fs from 'node:fs';

export interface RawLine {
  text: string;
  /** Byte offset of the line's first character. */
  offset: number;
  /** Byte length of the line without its newline. */
  length: number;
  /** False for a last line without a newline: a write torn by a crash. */
  complete: boolean;
}

const CHUNK = 1 << 20;

/** Lines of `file` in order; nothing when the file does not exist. */
export async function* ndjsonLines(file: string): AsyncGenerator<RawLine> {
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    const buf = Buffer.alloc(CHUNK);
    let pos = 0;
    let base = 0;
    let carry = Buffer.alloc(0);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const chunk = carry.length > 0 ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        yield { text: chunk.toString('utf8', start, nl), offset: base + start, length: nl - start, complete: true };
        start = nl + 1;
      }
      base += start;
      carry = Buffer.from(chunk.subarray(start));
    }
    if (carry.length > 0) yield { text: carry.toString('utf8'), offset: base, length: carry.length, complete: false };
  } finally {
    await fh.close();
  }
}
