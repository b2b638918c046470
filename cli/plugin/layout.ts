/**
 * Where the agent plugin lives: the built plugin this CLI ships (dist/plugin), the installed copy
 * in the data dir (replaced in place by updates), the install record, and Claude Code's own files.
 */
import os from 'node:os';
import path from 'node:path';
import type { Env } from '../../engine/index.js';
import { UsageError } from '../command.js';

/** `<agent_plugin>` values `service plugin install|update|uninstall` accepts. */
export const AGENTS = ['claude-code'] as const;
export type Agent = (typeof AGENTS)[number];

/** The plugin's name (commands read /memory:…) and the local marketplace that offers it. */
export const PLUGIN_NAME = 'memory';
export const MARKETPLACE = 'memory-service';
export const PLUGIN_ID = `${PLUGIN_NAME}@${MARKETPLACE}`;

export function parseAgent(value: string | undefined, usage: string): Agent {
  if (value === undefined) throw new UsageError(`name the agent to plug into (supported: ${AGENTS.join(', ')})\nusage: ${usage}`);
  if (!(AGENTS as readonly string[]).includes(value)) throw new UsageError(`"${value}" is not a supported agent plugin; supported: ${AGENTS.join(', ')}`);
  return value as Agent;
}

/** The plugin as built by `npm run build`, next to this CLI (dist/cli/plugin → dist/plugin). */
export function builtPluginDir(): string {
  return path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'plugin');
}

export interface InstallLayout {
  /** The installed plugin, also the marketplace root Claude Code is pointed at. */
  dir: string;
  /** What `install` did, for `update`, `uninstall` and `status`. */
  record: string;
}

export function installLayout(home: string, agent: Agent): InstallLayout {
  return { dir: path.join(home, 'plugins', agent), record: path.join(home, 'plugins', `${agent}.json`) };
}

/** Claude Code's configuration folder (CLAUDE_CONFIG_DIR, else ~/.claude). */
export function claudeConfigDir(env: Env): string {
  return path.resolve(env.CLAUDE_CONFIG_DIR || path.join(env.HOME || os.homedir(), '.claude'));
}

/** Claude Code's user settings file, where `enabledPlugins` and `extraKnownMarketplaces` live. */
export function claudeSettingsFile(env: Env): string {
  return path.join(claudeConfigDir(env), 'settings.json');
}
