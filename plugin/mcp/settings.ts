/**
 * The two settings the MCP server uses, read the way engine/config.ts reads them (the environment
 * overrides `<data dir>/config.json`, through the hooks' reader) without loading the engine: the
 * server starts on Claude Code's critical path, so it loads nothing but `node:` built-ins.
 * test/plugin/replay.test.ts checks that it answers every bad value with the engine's own message.
 */
import { hookSettings, readConfigFile } from '../../hooks/lib/settings.js';

export const SEARCH_SCOPES = ['repo', 'dir', 'user', 'session'] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];

export interface McpSettings {
  searchScope: SearchScope;
  topK: number;
}

export const DEFAULT_SETTINGS: McpSettings = { searchScope: 'repo', topK: 5 };
export const TOP_K_RANGE = { min: 1, max: 100 } as const;

/** The settings, or the error that names the bad one and what it may be. */
export function readSettings(env: NodeJS.ProcessEnv, home: string): McpSettings | Error {
  const file = readConfigFile(home);
  if (file.error) return file.error;
  const setting = hookSettings(env, home, file);
  const out: McpSettings = { ...DEFAULT_SETTINGS };
  const scope = setting('SERVICE_SEARCH_SCOPE');
  if (scope !== undefined) {
    if (!(SEARCH_SCOPES as readonly string[]).includes(scope.trim())) return new Error(`SERVICE_SEARCH_SCOPE=${JSON.stringify(scope)} is not valid: use one of ${SEARCH_SCOPES.join(', ')}.`);
    out.searchScope = scope.trim() as SearchScope;
  }
  const topK = setting('SERVICE_TOP_K');
  if (topK !== undefined) {
    const n = Number(topK.trim());
    if (!/^\d+$/.test(topK.trim()) || n < TOP_K_RANGE.min || n > TOP_K_RANGE.max) return new Error(`SERVICE_TOP_K=${JSON.stringify(topK)} is not valid: use a whole number from ${TOP_K_RANGE.min} to ${TOP_K_RANGE.max}.`);
    out.topK = n;
  }
  return out;
}
