/**
 * Settings that stick: `<data dir>/config.json` holds SERVICE_* values set with `service config
 * set`, validated by the same schema as the environment variables (engine/config.ts). The
 * environment overrides the file; SERVICE_HOME cannot live in it (it names the folder the file is
 * in). The file maps environment names to strings, e.g. {"SERVICE_TOP_K": "8"}.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONFIG_SCHEMA, ConfigError, loadConfig, RENAMED_ENV, type Config, type ConfigKey, type Env } from './config.js';

export const CONFIG_FILE_NAME = 'config.json';

/** The data dir the environment names (before the file is read: the file lives in it). */
export function homeFromEnv(env: Env): string {
  const h = env.SERVICE_HOME?.trim();
  return h ? path.resolve(h) : path.join(os.homedir(), '.memory-service');
}

export function configFilePath(env: Env): string {
  return path.join(homeFromEnv(env), CONFIG_FILE_NAME);
}

const ENTRIES = Object.entries(CONFIG_SCHEMA) as [ConfigKey, (typeof CONFIG_SCHEMA)[ConfigKey]][];

/**
 * The environment name a user means: `SERVICE_TOP_K`, `top_k`, `top-k`, `topK` or a renamed
 * spelling all name SERVICE_TOP_K. Throws ConfigError for a name the schema does not have.
 */
export function settingName(input: string): string {
  const raw = input.trim();
  const byKey = ENTRIES.find(([k]) => k.toLowerCase() === raw.toLowerCase());
  if (byKey) return byKey[1].env;
  let env = raw.toUpperCase().replace(/-/g, '_');
  if (!env.startsWith('SERVICE_')) env = `SERVICE_${env}`;
  env = RENAMED_ENV[env] ?? env;
  if (!ENTRIES.some(([, e]) => e.env === env)) throw new ConfigError(env, `there is no setting ${JSON.stringify(input)}; service config list shows every setting`);
  return env;
}

/** The file's settings (an unreadable or damaged file is an error that says how to fix it). */
export function readConfigFile(env: Env): Record<string, string> {
  const file = configFilePath(env);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(file, `cannot read ${file}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ConfigError(file, `${file} is not valid JSON; fix it or remove it (service config list shows what the service uses)`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(file, `${file} must hold one JSON object of SERVICE_* settings`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
    if (k === 'SERVICE_HOME') throw new ConfigError(k, `${file} cannot set SERVICE_HOME (the file lives in the data dir); remove it from the file`);
    if (!ENTRIES.some(([, e]) => e.env === k)) throw new ConfigError(k, `${file} sets ${k}, which is not a setting; remove it (service config unset ${k})`);
    out[k] = typeof v === 'string' ? v : String(v);
  }
  return out;
}

/** Write the file atomically, owner-only (it may hold an API key). */
export function writeConfigFile(env: Env, values: Record<string, string>): string {
  const file = configFilePath(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(values, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
  return file;
}

/** The environment with the file's settings under it: a variable set in the environment wins. */
export function envWithConfigFile(env: Env): Env {
  const file = readConfigFile(env);
  const out: Env = { ...env };
  for (const [k, v] of Object.entries(file)) if (env[k] === undefined || env[k] === '') out[k] = v;
  return out;
}

/** loadConfig over the environment and the config file (environment first). */
export function loadConfigWithFile(env: Env): Config {
  return loadConfig(envWithConfigFile(env));
}

/** Validate one value for one setting (throws ConfigError with the schema's message). */
export function checkSetting(envName: string, value: string): void {
  if (envName === 'SERVICE_HOME') throw new ConfigError(envName, 'SERVICE_HOME cannot be set in the config file (it names the folder the file is in); export it in your shell instead');
  loadConfig({ [envName]: value });
}

/** Where each setting's value comes from, and the value (secrets masked). */
export function describeSettings(env: Env): { name: string; key: ConfigKey; value: string; source: 'env' | 'file' | 'default'; secret: boolean; description: string }[] {
  const file = readConfigFile(env);
  const config = loadConfig(envWithConfigFile(env));
  return ENTRIES.map(([key, e]) => {
    const source = env[e.env] !== undefined && env[e.env] !== '' ? 'env' : file[e.env] !== undefined ? 'file' : 'default';
    const secret = e.kind === 'secret';
    const v = String(config[key] ?? '');
    return { name: e.env, key, value: secret && v ? maskSecret(v) : v, source, secret, description: e.description };
  });
}

/** A secret shown as its last 4 characters and a short fingerprint, never in full. */
export function maskSecret(v: string): string {
  return `…${v.slice(-4)} (sha256 ${fingerprint(v)})`;
}

export function fingerprint(v: string): string {
  return createHash('sha256').update(v).digest('hex').slice(0, 8);
}

/**
 * The settings a running daemon compares with a caller's: every setting but the data dir, as
 * strings, with secrets replaced by fingerprints ('' when unset).
 */
export function comparableSettings(config: Config): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, e] of ENTRIES) {
    if (key === 'home') continue;
    const v = String(config[key] ?? '');
    out[e.env] = e.kind === 'secret' ? (v ? `sha256:${fingerprint(v)}` : '') : v;
  }
  return out;
}
