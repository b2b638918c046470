/**
 * A hook's settings: the environment Claude Code gives it, then `<data dir>/config.json` (what
 * `service config set` writes; engine/config-file.ts, repeated here: hooks import nothing of ours).
 * The environment wins. A missing or damaged file is no file: a hook never fails the agent, and
 * `service config list` / `plugin status` report the damage.
 */
import fs from 'node:fs';
import path from 'node:path';

export type SettingReader = (name: string) => string | undefined;

export function hookSettings(env: NodeJS.ProcessEnv, home: string): SettingReader {
  let file: Record<string, unknown> | null = null;
  const fromFile = (): Record<string, unknown> => {
    if (file) return file;
    try {
      const doc = JSON.parse(fs.readFileSync(path.join(home, 'config.json'), 'utf8')) as unknown;
      file = doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : {};
    } catch {
      file = {};
    }
    return file;
  };
  return (name) => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    const f = fromFile()[name];
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
