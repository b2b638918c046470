/**
 * Registering the installed plugin with Claude Code, two ways:
 * - through its CLI when `claude` is on PATH: `claude plugin marketplace add <dir>` then
 *   `claude plugin install memory@memory-service --scope user` (and the matching update/uninstall);
 * - otherwise in its user settings file: the folder as a directory marketplace in
 *   `extraKnownMarketplaces` and the plugin switched on in `enabledPlugins`. Claude Code installs it
 *   from there on its next start. Only those two entries are ours; every other key is kept.
 */
import { CliError, EXIT } from '../command.js';
import { runClaude, type RunResult } from './agent-cli.js';
import { childObject, readJsonObject, writeJsonAtomic, type JsonObject } from './json-file.js';
import { MARKETPLACE, PLUGIN_ID } from './layout.js';
import type { Env } from '../../engine/index.js';

export type Method = 'claude-cli' | 'settings';

function lastLine(r: RunResult): string {
  return (r.stderr.trim() || r.stdout.trim()).split('\n').slice(-1)[0] ?? `exit ${r.code}`;
}

async function claudeOrFail(claude: string, args: string[], env: Env, ran: string[]): Promise<void> {
  const r = await runClaude(claude, args, env);
  ran.push(`claude ${args.join(' ')}`);
  if (r.code !== 0) throw new CliError(`"claude ${args.join(' ')}" failed (${lastLine(r)}); fix that, then run this command again`, EXIT.FAILED);
}

/** Add the folder as a marketplace (or refresh it if Claude Code knows it) and install the plugin. */
export async function registerWithClaude(claude: string, dir: string, env: Env): Promise<string[]> {
  const ran: string[] = [];
  const add = await runClaude(claude, ['plugin', 'marketplace', 'add', dir], env);
  ran.push(`claude plugin marketplace add ${dir}`);
  if (add.code !== 0) {
    // Claude Code may know the marketplace already (a reinstall): then refreshing it is enough.
    const refresh = await runClaude(claude, ['plugin', 'marketplace', 'update', MARKETPLACE], env);
    ran.push(`claude plugin marketplace update ${MARKETPLACE}`);
    if (refresh.code !== 0) throw new CliError(`"claude plugin marketplace add ${dir}" failed (${lastLine(add)}); fix that, then run this command again`, EXIT.FAILED);
  }
  await claudeOrFail(claude, ['plugin', 'install', PLUGIN_ID, '--scope', 'user'], env, ran);
  return ran;
}

/** After the folder's content changed: refresh the marketplace and update the installed plugin. */
export async function updateWithClaude(claude: string, dir: string, env: Env): Promise<string[]> {
  const ran: string[] = [];
  const refresh = await runClaude(claude, ['plugin', 'marketplace', 'update', MARKETPLACE], env);
  ran.push(`claude plugin marketplace update ${MARKETPLACE}`);
  // The user removed the marketplace meanwhile: register from scratch.
  if (refresh.code !== 0) return [...ran, ...(await registerWithClaude(claude, dir, env))];
  await claudeOrFail(claude, ['plugin', 'update', PLUGIN_ID], env, ran);
  return ran;
}

/** Uninstall the plugin and forget the marketplace; what fails is returned as warnings. */
export async function unregisterWithClaude(claude: string, env: Env): Promise<{ ran: string[]; warnings: string[] }> {
  const ran: string[] = [];
  const warnings: string[] = [];
  for (const args of [
    ['plugin', 'uninstall', PLUGIN_ID, '--scope', 'user'],
    ['plugin', 'marketplace', 'remove', MARKETPLACE],
  ]) {
    const r = await runClaude(claude, args, env);
    ran.push(`claude ${args.join(' ')}`);
    if (r.code !== 0) warnings.push(`"claude ${args.join(' ')}" failed: ${lastLine(r)}`);
  }
  return { ran, warnings };
}

/** Point Claude Code's settings at the folder; true when the document changed. */
export function addToSettings(doc: JsonObject, dir: string, file: string): boolean {
  const known = childObject(doc, 'extraKnownMarketplaces', file);
  const enabled = childObject(doc, 'enabledPlugins', file);
  const before = JSON.stringify([known[MARKETPLACE], enabled[PLUGIN_ID]]);
  known[MARKETPLACE] = { source: { source: 'directory', path: dir } };
  enabled[PLUGIN_ID] = true;
  return JSON.stringify([known[MARKETPLACE], enabled[PLUGIN_ID]]) !== before;
}

/** Remove our two entries (and containers they leave empty); true when the document changed. */
export function removeFromSettings(doc: JsonObject): boolean {
  let changed = false;
  for (const [key, entry] of [
    ['extraKnownMarketplaces', MARKETPLACE],
    ['enabledPlugins', PLUGIN_ID],
  ] as const) {
    const box = doc[key];
    if (!box || typeof box !== 'object' || Array.isArray(box) || !(entry in box)) continue;
    delete (box as JsonObject)[entry];
    if (Object.keys(box).length === 0) delete doc[key];
    changed = true;
  }
  return changed;
}

/**
 * Read the settings file once, let `edit` change the document, and write it back (with a backup)
 * only when `edit` says it changed. Returns the backup's path, or null when nothing was written.
 */
export function editSettings(file: string, edit: (doc: JsonObject) => boolean): { changed: boolean; backup: string | null } {
  const doc = readJsonObject(file) ?? {};
  if (!edit(doc)) return { changed: false, backup: null };
  return { changed: true, backup: writeJsonAtomic(file, doc) };
}

export interface SettingsRegistration {
  /** `enabledPlugins["memory@memory-service"]` is true. */
  enabled: boolean;
  /** The folder `extraKnownMarketplaces` points the marketplace at, if it does. */
  marketplacePath: string | null;
}

export function settingsRegistration(file: string): SettingsRegistration {
  const doc = readJsonObject(file) ?? {};
  const enabled = (doc.enabledPlugins as JsonObject | undefined)?.[PLUGIN_ID] === true;
  const source = ((doc.extraKnownMarketplaces as JsonObject | undefined)?.[MARKETPLACE] as { source?: { path?: unknown } } | undefined)?.source;
  return { enabled, marketplacePath: typeof source?.path === 'string' ? source.path : null };
}
