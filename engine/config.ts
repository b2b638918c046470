/**
 * The one configuration schema: every key's env name, default, allowed values and meaning.
 * The README's configuration table is generated from `CONFIG_SCHEMA` (scripts/config-table.ts).
 * Env is read only through `loadConfig`; callers pass the environment in (tests pass their own).
 */
import os from 'node:os';
import path from 'node:path';
import { DAEMON_KEYS, MODEL_KEYS } from './config-keys/daemon.js';
import type { Entry } from './config-keys/entry.js';
import { EXTRACTOR_KEYS } from './config-keys/extractor.js';
import { PLUGIN_KEYS } from './config-keys/plugin.js';
import { SERVER_KEYS } from './config-keys/server.js';

/** Every key, in the order of the README table (config-keys/ holds them by the part that reads them). */
export const CONFIG_SCHEMA = { ...PLUGIN_KEYS, ...MODEL_KEYS, ...DAEMON_KEYS, ...SERVER_KEYS, ...EXTRACTOR_KEYS } as const satisfies Record<string, Entry>;

/**
 * Environment names that were renamed, old → current. `service plugin update` rewrites them in the
 * `env` block of Claude Code's settings (where plugin users set them) and `service plugin status`
 * points at any still exported in the shell. The rows are short spellings of SPEC §2's
 * search_scope, top_k and max_content_chars, settings SPEC gave no env name for (top_k,
 * max_content_chars); a future rename adds a row here.
 */
export const RENAMED_ENV: Readonly<Record<string, string>> = {
  SERVICE_SCOPE: 'SERVICE_SEARCH_SCOPE',
  SERVICE_TOPK: 'SERVICE_TOP_K',
  SERVICE_MAX_CHARS: 'SERVICE_MAX_CONTENT_CHARS',
};

type Schema = typeof CONFIG_SCHEMA;
type ValueOf<E> = E extends { kind: 'int' } ? number : E extends { kind: 'bool' } ? boolean : E extends { kind: 'enum'; values: readonly (infer V)[] } ? V : string;

/** Resolved configuration. Strings that are "unset" are ''. */
export type Config = { -readonly [K in keyof Schema]: ValueOf<Schema[K]> };
export type ConfigKey = keyof Schema;

export type Env = Record<string, string | undefined>;

/** A bad configuration value; the message names the variable and what it accepts. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

function parseEntry(entry: Entry, raw: string): unknown {
  const v = raw.trim();
  switch (entry.kind) {
    case 'int': {
      const n = Number(v);
      if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(n) || n < (entry.min ?? -Infinity) || n > (entry.max ?? Infinity)) {
        throw new ConfigError(entry.env, `${entry.env}=${JSON.stringify(raw)} is not valid: use a whole number from ${entry.min} to ${entry.max}.`);
      }
      return n;
    }
    case 'bool': {
      const l = v.toLowerCase();
      if (TRUE.has(l)) return true;
      if (FALSE.has(l)) return false;
      throw new ConfigError(entry.env, `${entry.env}=${JSON.stringify(raw)} is not valid: use true or false.`);
    }
    case 'enum':
      if (!entry.values!.includes(v)) {
        throw new ConfigError(entry.env, `${entry.env}=${JSON.stringify(raw)} is not valid: use one of ${entry.values!.join(', ')}.`);
      }
      return v;
    case 'url': {
      if (v === '') return '';
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        throw new ConfigError(entry.env, `${entry.env}=${JSON.stringify(raw)} is not a URL: use for example https://memory.example.com.`);
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') {
        throw new ConfigError(entry.env, `${entry.env} must be an http:// or https:// URL, not ${u.protocol}`);
      }
      return v.replace(/\/+$/, '');
    }
    case 'path':
      return v === '' ? '' : path.resolve(v);
    default:
      return v;
  }
}

/**
 * Resolve the configuration from an environment. `overrides` win over env (CLI flags).
 * Throws ConfigError on the first invalid value.
 */
export function loadConfig(env: Env, overrides: Partial<Config> = {}): Config {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(CONFIG_SCHEMA) as [ConfigKey, Entry][]) {
    const raw = env[entry.env];
    out[key] = raw === undefined || (raw === '' && entry.kind !== 'string') ? entry.default : parseEntry(entry, raw);
  }
  const cfg = { ...out, ...stripUndefined(overrides) } as Config;
  if (cfg.home === '') cfg.home = path.join(os.homedir(), '.memory-service');
  if (cfg.userId === '') cfg.userId = safeUserName();
  if (env.DO_NOT_TRACK === '1' || env.DO_NOT_TRACK?.toLowerCase() === 'true') cfg.telemetry = false;
  return cfg;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function safeUserName(): string {
  try {
    return os.userInfo().username || 'user';
  } catch {
    return 'user';
  }
}

/** Rows for the README table, in schema order. */
export function configTableRows(): { env: string; default: string; allowed: string; description: string; group: string }[] {
  return (Object.values(CONFIG_SCHEMA) as Entry[]).map((e) => ({
    env: e.env,
    group: e.group,
    default: e.defaultLabel ?? (e.default === '' ? 'unset' : `\`${String(e.default)}\``),
    allowed:
      e.kind === 'enum'
        ? e.values!.join(' \\| ')
        : e.kind === 'int'
          ? `${e.min}–${e.max}`
          : e.kind === 'bool'
            ? 'true \\| false'
            : e.kind === 'url'
              ? 'http(s) URL'
              : e.kind === 'path'
                ? 'path'
                : 'text',
    description: e.description,
  }));
}
