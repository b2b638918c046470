/**
 * What `service plugin install|update` migrates:
 * - the data dir's schema: `schema.json` holds its version; MIGRATIONS, in order, bring any older
 *   data dir (version 0: one from before the file existed) to SCHEMA_VERSION. A data dir written
 *   by a newer service is refused, never downgraded (SPEC §9.3, memory compatibility).
 * - renamed configuration keys (RENAMED_ENV) in the `env` block of Claude Code's settings.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RENAMED_ENV, type Paths } from '../../engine/index.js';
import { CliError, EXIT } from '../command.js';
import { childObject, writeJsonAtomic, type JsonObject } from './json-file.js';

export interface Migration {
  version: number;
  name: string;
  up(paths: Paths): void;
}

function chmodIfThere(file: string, mode: number): void {
  try {
    fs.chmodSync(file, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Ordered; each step is idempotent and tested from version 0 (test/cli/plugin-migrations.test.ts). */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'owner-only data dir',
    // Memories, the journal and logs hold project and personal context. A data dir created by
    // hand or by an earlier build may be readable by other users; close it and its state to the owner.
    up(p) {
      fs.mkdirSync(p.home, { recursive: true, mode: 0o700 });
      chmodIfThere(p.home, 0o700);
      for (const dir of [p.lanceDir, p.journalDir, p.stateDir, p.logDir, p.exportsDir, p.modelCache, path.join(p.home, 'telemetry'), path.join(p.home, 'plugins')]) chmodIfThere(dir, 0o700);
      for (const dir of [p.journalDir, p.stateDir, p.logDir]) {
        if (!fs.existsSync(dir)) continue;
        for (const f of fs.readdirSync(dir)) if (fs.statSync(path.join(dir, f)).isFile()) chmodIfThere(path.join(dir, f), 0o600);
      }
      for (const f of [p.pidFile, p.lockFile, p.schemaFile]) chmodIfThere(f, 0o600);
    },
  },
];

/** The version a data dir migrated to by this build has. */
export const SCHEMA_VERSION = MIGRATIONS.length;

interface SchemaDoc {
  version: number;
  updated_at: string;
  applied: { version: number; name: string; at: string }[];
}

/** The data dir's schema version: 0 when there is no schema file yet. */
export function schemaVersion(paths: Paths): number {
  try {
    const v = (JSON.parse(fs.readFileSync(paths.schemaFile, 'utf8')) as Partial<SchemaDoc>).version;
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
  }
  throw new CliError(`${paths.schemaFile} is damaged (no schema version in it); restore it from a backup, or remove it to migrate the data dir from version 0`, EXIT.FAILED);
}

export interface SchemaResult {
  from: number;
  to: number;
  applied: string[];
}

/** The data dir's schema version; one written by a newer service (past `target`) is refused. */
export function readableSchema(paths: Paths, target = SCHEMA_VERSION): number {
  const from = schemaVersion(paths);
  if (from > target) {
    throw new CliError(`the data dir ${paths.home} was written by a newer memory service (schema ${from}; this CLI knows up to ${target}); update the service CLI rather than downgrade the data`, EXIT.FAILED);
  }
  return from;
}

/** Bring the data dir to SCHEMA_VERSION, recording each step in schema.json. */
export function migrateDataDir(paths: Paths, migrations: readonly Migration[] = MIGRATIONS): SchemaResult {
  const target = migrations.length;
  const from = readableSchema(paths, target);
  const doc: SchemaDoc = from > 0 ? (JSON.parse(fs.readFileSync(paths.schemaFile, 'utf8')) as SchemaDoc) : { version: 0, updated_at: '', applied: [] };
  const applied: string[] = [];
  for (const m of migrations.slice(from)) {
    m.up(paths);
    const at = new Date().toISOString();
    doc.applied = [...(doc.applied ?? []), { version: m.version, name: m.name, at }];
    doc.version = m.version;
    doc.updated_at = at;
    writeJsonAtomic(paths.schemaFile, doc, { backup: false });
    applied.push(`${m.version}: ${m.name}`);
  }
  return { from, to: target, applied };
}

/** Rename old keys in a settings document's `env` block; the renames made, as [old, new]. */
export function renameEnvKeys(doc: JsonObject, file: string): [string, string][] {
  if (doc.env === undefined) return [];
  const env = childObject(doc, 'env', file);
  const done: [string, string][] = [];
  for (const [old, now] of Object.entries(RENAMED_ENV)) {
    if (!(old in env)) continue;
    if (!(now in env)) env[now] = env[old];
    delete env[old];
    done.push([old, now]);
  }
  return done;
}

/** Old key names still set in an environment (the user's shell), as [old, new]. */
export function renamedInEnv(env: Record<string, string | undefined>): [string, string][] {
  return Object.entries(RENAMED_ENV).filter(([old]) => env[old] !== undefined);
}
