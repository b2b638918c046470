/**
 * Editing JSON files that belong to someone else (Claude Code's settings) safely: refuse a file
 * that does not parse rather than overwrite it, keep every key we do not own, back the old file up
 * beside it, and replace it atomically (temp file, fsync, rename) with its mode kept.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CliError, EXIT } from '../command.js';

export type JsonObject = Record<string, unknown>;

/** The file's object, or null when it does not exist. */
export function readJsonObject(file: string): JsonObject | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`, EXIT.FAILED);
  }
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not valid JSON (${(err as Error).message}); fix it, then run this command again (nothing was changed)`, EXIT.FAILED);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new CliError(`${file} does not hold a JSON object; fix it, then run this command again (nothing was changed)`, EXIT.FAILED);
  return value as JsonObject;
}

/** A timestamp usable in file names: 20261120T231200.123Z. */
function stamp(): string {
  return new Date().toISOString().replace(/[-:]/g, '');
}

/**
 * Write `value` to `file` atomically. When the file existed, its previous bytes are kept first in
 * `<file>.bak-<timestamp>` (unless `backup` is false); the backup's path is returned, else null.
 */
export function writeJsonAtomic(file: string, value: unknown, opts: { backup?: boolean } = {}): string | null {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let backup: string | null = null;
  let mode = 0o600;
  if (fs.existsSync(file)) {
    mode = fs.statSync(file).mode & 0o777;
    if (opts.backup !== false) {
      backup = `${file}.bak-${stamp()}`;
      fs.copyFileSync(file, backup);
    }
  }
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    fs.writeSync(fd, JSON.stringify(value, null, 2) + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(tmp, mode);
  fs.renameSync(tmp, file);
  return backup;
}

/** The object under `key`, created when missing (a non-object there is an error, not overwritten). */
export function childObject(parent: JsonObject, key: string, file: string): JsonObject {
  const v = parent[key];
  if (v === undefined) return (parent[key] = {}) as JsonObject;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new CliError(`"${key}" in ${file} is not a JSON object; fix it, then run this command again (nothing was changed)`, EXIT.FAILED);
  return v as JsonObject;
}
