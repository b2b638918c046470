/**
 * A temp user for plugin tests: a HOME with Claude Code's settings folder, a SERVICE_HOME, and
 * optionally a stand-in `claude` on PATH that records every call's arguments.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { cli, testEnv } from './daemon.js';
import { tempDir } from './tmp.js';

export interface PluginUser {
  home: string;
  data: string;
  settings: string;
  env: NodeJS.ProcessEnv;
  /** Calls the stand-in claude received, oldest first (empty without one). */
  claudeCalls(): string[][];
}

/**
 * The stand-in answers `--version` with `version` (or CLAUDE_STANDIN_VERSION), exits 1 on `plugin install` when `failInstall`,
 * and does what the reference says `plugin install|uninstall --scope user` does to the user
 * settings file (enabledPlugins); every other call just succeeds.
 */
function writeStandIn(bin: string, log: string, version: string, failInstall: boolean): void {
  fs.mkdirSync(bin, { recursive: true });
  const script = `#!/usr/bin/env node
const fs = require('fs');
const path = require('path');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + '\\n');
if (args[0] === '--version') { console.log((process.env.CLAUDE_STANDIN_VERSION || '${version}') + ' (Claude Code)'); process.exit(0); }
if (args[0] === 'plugin' && (args[1] === 'install' || args[1] === 'uninstall')) {
  if (args[1] === 'install' && ${failInstall}) { console.error('Plugin "' + args[2] + '" failed to install: manifest rejected'); process.exit(1); }
  const file = path.join(process.env.CLAUDE_CONFIG_DIR || path.join(process.env.HOME, '.claude'), 'settings.json');
  const doc = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  doc.enabledPlugins = doc.enabledPlugins || {};
  if (args[1] === 'install') doc.enabledPlugins[args[2]] = true; else delete doc.enabledPlugins[args[2]];
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(doc, null, 2));
}
`;
  fs.writeFileSync(path.join(bin, 'claude'), script, { mode: 0o755 });
}

/** One temp folder for every user of a test process (each tempDir adds an exit listener). */
let users: string | null = null;

export function pluginUser(opts: { claude?: { version?: string; failInstall?: boolean }; settings?: unknown; env?: Record<string, string> } = {}): PluginUser {
  users ??= tempDir('plugin-users-');
  const root = fs.mkdtempSync(path.join(users, 'user-'));
  const home = path.join(root, 'home');
  const data = path.join(root, 'data');
  const settings = path.join(home, '.claude', 'settings.json');
  fs.mkdirSync(path.dirname(settings), { recursive: true });
  if (opts.settings !== undefined) fs.writeFileSync(settings, typeof opts.settings === 'string' ? opts.settings : JSON.stringify(opts.settings, null, 2));
  const env = testEnv(data, { HOME: home, ...opts.env });
  // A real Claude Code on this machine must not take part: drop PATH entries that hold one.
  env.PATH = (env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && !fs.existsSync(path.join(dir, 'claude')))
    .join(path.delimiter);
  // Hooks and the MCP server must find the CLI the way an installed plugin does: service.json.
  delete env.SERVICE_CLI;
  const log = path.join(root, 'claude-calls.ndjson');
  if (opts.claude) {
    const bin = path.join(root, 'bin');
    writeStandIn(bin, log, opts.claude.version ?? '2.1.9', opts.claude.failInstall ?? false);
    env.PATH = `${bin}${path.delimiter}${env.PATH}`;
  }
  return {
    home,
    data,
    settings,
    env,
    claudeCalls: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]) : []),
  };
}

/** Claude Code settings a user already has: none of it may change. */
export const UNRELATED = {
  theme: 'dark',
  permissions: { allow: ['Bash(ls:*)'] },
  enabledPlugins: { 'other@elsewhere': true },
  extraKnownMarketplaces: { elsewhere: { source: { source: 'github', repo: 'acme/plugins' } } },
  env: { SERVICE_TOPK: '3', EDITOR: 'vim' },
};

export interface Status {
  ok: boolean;
  checks: { id: string; level: string; summary: string; fix?: string }[];
}

/** The status check `id` (it must be there). */
export function check(s: Status, id: string): { level: string; summary: string; fix?: string } {
  const c = s.checks.find((x) => x.id === id);
  assert.ok(c, `status has a ${id} check: ${JSON.stringify(s.checks)}`);
  return c;
}

/** `service plugin status --json` for the user, with extra environment. */
export async function pluginStatus(user: PluginUser, extra: Record<string, string> = {}, cwd?: string): Promise<{ code: number | null; s: Status }> {
  const r = await cli(['plugin', 'status', '--json'], { ...user.env, ...extra }, cwd);
  return { code: r.code, s: JSON.parse(r.stdout) as Status };
}

/** Backups of the settings file made so far. */
export function backups(settings: string): string[] {
  return fs.readdirSync(path.dirname(settings)).filter((f) => f.startsWith('settings.json.bak-'));
}
