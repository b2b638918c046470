/**
 * What the plugin leaves in Claude Code's own files beyond the two registration entries
 * (registration.ts), and taking all of it back at uninstall:
 * - the memory tool's allow rule in the user settings (`permissions.allow`), so headless runs
 *   (`claude -p`) and the sidekick can call it without a manual grant;
 * - top-level settings keys the install created, dropped at uninstall once empty, so the settings
 *   file ends as it was before install;
 * - for a registration through the settings file (no `claude` on PATH): the marketplace entry in
 *   `plugins/known_marketplaces.json`. Without it Claude Code skips the plugin as an "orphaned
 *   enabledPlugins entry" in the first session and only installs it for the next one;
 * - what Claude Code keeps of the plugin under `plugins/` (its cached copy, its data folder, its
 *   entries in installed_plugins.json and known_marketplaces.json), removed at uninstall.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../../engine/index.js';
import { CliError, EXIT } from '../command.js';
import { childObject, readJsonObject, writeJsonAtomic, type JsonObject } from './json-file.js';
import { claudeConfigDir, MARKETPLACE, PLUGIN_ID, PLUGIN_NAME } from './layout.js';

/** The memory tool as Claude Code names it (plugin `memory`, server `memory`, tool `search`). */
export const MCP_TOOL = `mcp__plugin_${PLUGIN_NAME}_memory__search`;

/** Top-level settings keys an install may create. */
export const OWNED_KEYS = ['extraKnownMarketplaces', 'enabledPlugins', 'permissions'] as const;

/** The keys of OWNED_KEYS the document does not have (before install: those the install creates). */
export function absentKeys(doc: JsonObject | null): string[] {
  return OWNED_KEYS.filter((k) => !doc || !(k in doc));
}

export function hasAllowRule(doc: JsonObject | null): boolean {
  const allow = (doc?.permissions as JsonObject | undefined)?.allow;
  return Array.isArray(allow) && allow.includes(MCP_TOOL);
}

/** Add the tool's allow rule; true when the document changed. */
export function addAllowRule(doc: JsonObject, file: string): boolean {
  if (hasAllowRule(doc)) return false;
  const permissions = childObject(doc, 'permissions', file);
  const allow = permissions.allow;
  if (allow !== undefined && !Array.isArray(allow)) throw new CliError(`"permissions.allow" in ${file} is not a list; fix it, then run this command again (nothing was changed)`, EXIT.FAILED);
  permissions.allow = [...((allow as unknown[] | undefined) ?? []), MCP_TOOL];
  return true;
}

/** Remove the tool's allow rule (and an `allow` list it leaves empty); true when the document changed. */
export function removeAllowRule(doc: JsonObject): boolean {
  const permissions = doc.permissions as JsonObject | undefined;
  if (!hasAllowRule(doc) || !permissions) return false;
  const rest = (permissions.allow as unknown[]).filter((r) => r !== MCP_TOOL);
  if (rest.length > 0) permissions.allow = rest;
  else delete permissions.allow;
  return true;
}

/** Drop those of `keys` that hold an empty object or list; true when the document changed. */
export function dropEmptyKeys(doc: JsonObject, keys: readonly string[]): boolean {
  let changed = false;
  for (const k of keys) {
    const v = doc[k];
    const empty = Array.isArray(v) ? v.length === 0 : v !== null && typeof v === 'object' && Object.keys(v).length === 0;
    if (empty) {
      delete doc[k];
      changed = true;
    }
  }
  return changed;
}

function pluginsDir(env: Env): string {
  return path.join(claudeConfigDir(env), 'plugins');
}

/** Read a JSON state file of Claude Code's; null when missing or not an object we can edit. */
function readState(file: string): JsonObject | null {
  try {
    return readJsonObject(file);
  } catch {
    return null;
  }
}

/** Tell Claude Code the marketplace exists, as `claude plugin marketplace add` would. */
export function registerMarketplace(env: Env, dir: string): void {
  const file = path.join(pluginsDir(env), 'known_marketplaces.json');
  if (fs.existsSync(file) && readState(file) === null) return; // not ours to repair: Claude Code registers it on its next start
  const doc = readState(file) ?? {};
  const source = { source: 'directory', path: dir };
  const known = doc[MARKETPLACE] as { source?: unknown; installLocation?: unknown } | undefined;
  if (known && JSON.stringify(known.source) === JSON.stringify(source) && known.installLocation === dir) return;
  doc[MARKETPLACE] = { source, installLocation: dir, lastUpdated: new Date().toISOString() };
  writeJsonAtomic(file, doc, { backup: false });
}

/** Remove every trace of the plugin under Claude Code's `plugins/` folder; what was removed. */
export function forgetClaudeCopies(env: Env): string[] {
  const dir = pluginsDir(env);
  const removed: string[] = [];
  for (const rel of [path.join('cache', MARKETPLACE), path.join('marketplaces', MARKETPLACE), path.join('data', `${PLUGIN_NAME}-${MARKETPLACE}`)]) {
    const full = path.join(dir, rel);
    if (!fs.existsSync(full)) continue;
    fs.rmSync(full, { recursive: true, force: true });
    removed.push(full);
  }
  const edits: [string, (doc: JsonObject) => boolean][] = [
    ['known_marketplaces.json', (doc) => delete doc[MARKETPLACE]],
    [
      'installed_plugins.json',
      (doc) => {
        const plugins = doc.plugins as JsonObject | undefined;
        return Boolean(plugins && typeof plugins === 'object') && delete plugins![PLUGIN_ID];
      },
    ],
  ];
  for (const [name, edit] of edits) {
    const file = path.join(dir, name);
    const doc = readState(file);
    if (!doc) continue;
    const before = JSON.stringify(doc);
    edit(doc);
    if (JSON.stringify(doc) === before) continue;
    writeJsonAtomic(file, doc, { backup: false });
    removed.push(`${file}: ${name === 'known_marketplaces.json' ? MARKETPLACE : PLUGIN_ID}`);
  }
  return removed;
}
