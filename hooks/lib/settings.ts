/**
 * A hook's settings: the environment Claude Code gives it, then `<data dir>/config.json` (what
 * `service config set` writes; engine/config-file.ts, repeated here: hooks import nothing of ours).
 * The environment wins. A missing or damaged file is no file: a hook never fails the agent, and
 * `service config list` / `plugin status` report the damage.
 */
import fs from 'node:fs';
import path from 'node:path';

export type SettingReader = (name: string) => string | undefined;

export interface ConfigFile {
  values: Record<string, unknown>;
  /** Why the file could not be used (engine/config-file.ts's messages); a missing file is no error. */
  error: Error | null;
}

/** `<data dir>/config.json`: its settings, or why it cannot be read. */
export function readConfigFile(home: string): ConfigFile {
  const file = path.join(home, 'config.json');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { values: {}, error: null };
    return { values: {}, error: new Error(`cannot read ${file}: ${(err as Error).message}`) };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { values: {}, error: new Error(`${file} is not valid JSON; fix it or remove it (service config list shows what the service uses)`) };
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { values: {}, error: new Error(`${file} must hold one JSON object of SERVICE_* settings`) };
  return { values: doc as Record<string, unknown>, error: null };
}

/** Settings from the environment, then the config file (read once, on first use). */
export function hookSettings(env: NodeJS.ProcessEnv, home: string, file?: ConfigFile): SettingReader {
  let values: Record<string, unknown> | null = file?.values ?? null;
  return (name) => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    values ??= readConfigFile(home).values;
    const f = values[name];
    return f === undefined || f === null ? undefined : String(f);
  };
}

/** engine/config.ts's reading of a boolean setting: the value, or `fallback` when unset or not one. */
export function boolSetting(v: string | undefined, fallback: boolean): boolean {
  const l = v?.trim().toLowerCase();
  if (l === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(l)) return true;
  if (['0', 'false', 'no', 'off'].includes(l)) return false;
  return fallback;
}
