/**
 * The two settings the MCP server uses, read the way engine/config.ts reads them (the environment
 * overrides `<data dir>/config.json`) without loading the engine: the
 * server starts on Claude Code's critical path, so it loads nothing but `node:` built-ins.
 * test/plugin/replay.test.ts checks that it answers every bad value with the engine's own message.
 */
import fs from 'node:fs';
import path from 'node:path';

export const SEARCH_SCOPES = ['repo', 'dir', 'user', 'session'] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];

export interface McpSettings {
  searchScope: SearchScope;
  topK: number;
}

export const DEFAULT_SETTINGS: McpSettings = { searchScope: 'repo', topK: 5 };
export const TOP_K_RANGE = { min: 1, max: 100 } as const;

/** A setting's value as the environment, then the config file, give it. */
function lookup(name: string, env: NodeJS.ProcessEnv, file: Record<string, unknown>): string | undefined {
  const v = env[name];
  if (v !== undefined && v.trim() !== '') return v;
  const f = file[name];
  if (typeof f === 'string' && f.trim() !== '') return f;
  return typeof f === 'number' ? String(f) : undefined;
}

function readFile(home: string): { values: Record<string, unknown>; file: string } {
  const file = path.join(home, 'config.json');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { values: {}, file };
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not valid JSON; fix it or remove it (service config list shows what the service uses)`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${file} must hold one JSON object of SERVICE_* settings`);
  return { values: doc as Record<string, unknown>, file };
}

/** The settings, or the error that names the bad one and what it may be. */
export function readSettings(env: NodeJS.ProcessEnv, home: string): McpSettings | Error {
  let values: Record<string, unknown>;
  try {
    values = readFile(home).values;
  } catch (err) {
    return err as Error;
  }
  const out: McpSettings = { ...DEFAULT_SETTINGS };
  const scope = lookup('SERVICE_SEARCH_SCOPE', env, values);
  if (scope !== undefined) {
    if (!(SEARCH_SCOPES as readonly string[]).includes(scope.trim())) return new Error(`SERVICE_SEARCH_SCOPE=${JSON.stringify(scope)} is not valid: use one of ${SEARCH_SCOPES.join(', ')}.`);
    out.searchScope = scope.trim() as SearchScope;
  }
  const topK = lookup('SERVICE_TOP_K', env, values);
  if (topK !== undefined) {
    const n = Number(topK.trim());
    if (!/^\d+$/.test(topK.trim()) || n < TOP_K_RANGE.min || n > TOP_K_RANGE.max) return new Error(`SERVICE_TOP_K=${JSON.stringify(topK)} is not valid: use a whole number from ${TOP_K_RANGE.min} to ${TOP_K_RANGE.max}.`);
    out.topK = n;
  }
  return out;
}
