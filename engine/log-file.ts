/**
 * A log sink appending JSON lines to a file, rotating it when it grows past `maxBytes`
 * (file → file.1 → … → file.<keep>). Writes are synchronous so nothing is lost on a crash.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LogRecord } from './log.js';

export interface FileSinkOptions {
  file: string;
  /** @default 5 MiB */
  maxBytes?: number;
  /** Rotated files kept. @default 3 */
  keep?: number;
}

export function fileSink(opts: FileSinkOptions): (record: LogRecord) => void {
  const maxBytes = opts.maxBytes ?? 5 * 1024 * 1024;
  const keep = opts.keep ?? 3;
  fs.mkdirSync(path.dirname(opts.file), { recursive: true, mode: 0o700 });
  let size = fs.existsSync(opts.file) ? fs.statSync(opts.file).size : 0;
  const rotate = (): void => {
    for (let i = keep - 1; i >= 1; i--) {
      const from = `${opts.file}.${i}`;
      if (fs.existsSync(from)) fs.renameSync(from, `${opts.file}.${i + 1}`);
    }
    if (fs.existsSync(opts.file)) fs.renameSync(opts.file, `${opts.file}.1`);
    size = 0;
  };
  return (record) => {
    const line = JSON.stringify(record) + '\n';
    try {
      if (size + line.length > maxBytes) rotate();
      fs.appendFileSync(opts.file, line, { mode: 0o600 });
      size += Buffer.byteLength(line);
    } catch {
      // Logging must never take the process down.
    }
  };
}
