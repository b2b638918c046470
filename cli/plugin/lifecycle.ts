/**
 * install, update and uninstall of the agent plugin. Prerequisites are checked before anything
 * changes; then the data dir is migrated, the daemon started (restarted when it runs another
 * version), the plugin copied into the data dir and registered with Claude Code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { resolvePaths, type Config, type Env, type Paths } from '../../engine/index.js';
import { CliError, EXIT } from '../command.js';
import { cliPath, daemonHealth, ensureDaemon, stopDaemon } from '../daemon-control.js';
import { VERSION } from '../version.js';
import { claudeInfo, compareVersions, MIN_CLAUDE_VERSION, MIN_NODE_MAJOR, nodeInfo, type ProgramInfo } from './agent-cli.js';
import { absentKeys, addAllowRule, dropEmptyKeys, forgetClaudeCopies, hasAllowRule, registerMarketplace, removeAllowRule } from './claude-state.js';
import { pluginManifest, placePlugin, readRecord, removePlugin, writeRecord, type InstallRecord } from './installed.js';
import { readJsonObject } from './json-file.js';
import { builtPluginDir, claudeSettingsFile, installLayout, PLUGIN_ID, type Agent } from './layout.js';
import { migrateDataDir, readableSchema, renameEnvKeys, SCHEMA_VERSION, schemaVersion, type SchemaResult } from './migrations.js';
import { addToSettings, editSettings, registerWithClaude, removeFromSettings, unregisterWithClaude, updateWithClaude, type Method } from './registration.js';

export interface LifecycleResult {
  version: string;
  previous_version: string | null;
  dir: string;
  method: Method;
  claude: ProgramInfo;
  settings_file: string;
  settings_backup: string | null;
  claude_commands: string[];
  renamed_keys: [string, string][];
  schema: SchemaResult;
  daemon: { pid: number | null; started: boolean };
  warnings: string[];
}

/**
 * The built plugin, Node.js on PATH (the hooks' runtime), Claude Code's version, a settings file
 * that parses and a data dir this version can read; throws before anything changes.
 */
async function prerequisites(env: Env, paths: Paths): Promise<{ claude: ProgramInfo; warnings: string[] }> {
  if (!pluginManifest(builtPluginDir())) throw new CliError(`the built plugin is missing at ${builtPluginDir()}; build it (npm run build in the service checkout) and run this command again`, EXIT.FAILED);
  readJsonObject(claudeSettingsFile(env));
  readableSchema(paths);
  const node = await nodeInfo(env);
  if (!node.path) throw new CliError(`node is not on PATH, and the plugin's hooks and MCP server run with it; install Node.js ${MIN_NODE_MAJOR} or later`, EXIT.FAILED);
  if (Number(node.version?.split('.')[0] ?? 0) < MIN_NODE_MAJOR) throw new CliError(`node on PATH (${node.path}) is ${node.version ?? 'of unknown version'}; the plugin needs Node.js ${MIN_NODE_MAJOR} or later`, EXIT.FAILED);
  const claude = await claudeInfo(env);
  const warnings: string[] = [];
  if (claude.path && claude.version && compareVersions(claude.version, MIN_CLAUDE_VERSION) < 0) {
    throw new CliError(`Claude Code ${claude.version} is older than ${MIN_CLAUDE_VERSION}, which the plugin needs (async hooks); update it (claude update) and run this command again`, EXIT.FAILED);
  }
  if (claude.path && !claude.version) warnings.push(`could not read the version of ${claude.path}; the plugin needs Claude Code ${MIN_CLAUDE_VERSION} or later`);
  if (!claude.path) warnings.push(`claude is not on PATH: registered in Claude Code's settings file instead; it loads the plugin on its next start`);
  return { claude, warnings };
}

function connectionWarnings(config: Config): string[] {
  return config.baseUrl && !config.apiKey ? [`SERVICE_BASE_URL is set but SERVICE_API_KEY is not: export SERVICE_API_KEY and restart Claude Code`] : [];
}

/**
 * Migrate the data dir, then make sure a daemon of this CLI's version answers. A daemon of another
 * version, or one running on a data dir about to be migrated, is stopped first.
 */
async function migrateAndStart(config: Config, paths: Paths, env: Env): Promise<{ schema: SchemaResult; daemon: { pid: number | null; started: boolean } }> {
  const running = await daemonHealth(config);
  if (running && (running.version !== VERSION || schemaVersion(paths) < SCHEMA_VERSION)) await stopDaemon(config);
  const schema = migrateDataDir(paths);
  return { schema, daemon: await ensureDaemon(config, env as NodeJS.ProcessEnv, undefined, { explicit: true }) };
}

async function place(config: Config, env: Env, agent: Agent, previous: InstallRecord | null, update: boolean): Promise<LifecycleResult> {
  const paths = resolvePaths(config.home);
  const { claude, warnings } = await prerequisites(env, paths);
  const { schema, daemon } = await migrateAndStart(config, paths, env);
  const layout = installLayout(config.home, agent);
  placePlugin(builtPluginDir(), layout, { cli: cliPath(), node: process.execPath, version: VERSION });
  const settingsFile = claudeSettingsFile(env);
  const method: Method = claude.path ? 'claude-cli' : 'settings';
  const now = new Date().toISOString();
  // Claude Code's settings as the user had them before the first install (the claude CLI edits them too).
  const before = readJsonObject(settingsFile);
  const record: InstallRecord = {
    agent,
    version: VERSION,
    dir: layout.dir,
    method,
    plugin_id: PLUGIN_ID,
    settings_file: settingsFile,
    claude_version: claude.version,
    installed_at: previous?.installed_at ?? now,
    updated_at: now,
    error: null,
    allow_rule_added: previous ? previous.allow_rule_added === true : !hasAllowRule(before),
    created_keys: previous ? (previous.created_keys ?? []) : absentKeys(before),
  };
  let claudeCommands: string[] = [];
  let renamed: [string, string][] = [];
  let edit: { backup: string | null };
  try {
    if (claude.path) claudeCommands = update && previous?.method === 'claude-cli' ? await updateWithClaude(claude.path, layout.dir, env) : await registerWithClaude(claude.path, layout.dir, env);
    edit = editSettings(settingsFile, (doc) => {
      renamed = renameEnvKeys(doc, settingsFile);
      const registered = method === 'settings' ? addToSettings(doc, layout.dir, settingsFile) : false;
      const allowed = record.allow_rule_added ? addAllowRule(doc, settingsFile) : false;
      return registered || allowed || renamed.length > 0;
    });
    // So that the first session after install loads the plugin (see claude-state.ts).
    if (method === 'settings') registerMarketplace(env, layout.dir);
  } catch (err) {
    // The copy is in place but Claude Code does not know it: status reports this failed install.
    writeRecord(layout, { ...record, error: (err as Error).message });
    throw err;
  }
  writeRecord(layout, record);
  return {
    version: VERSION,
    previous_version: previous?.version ?? null,
    dir: layout.dir,
    method,
    claude,
    settings_file: settingsFile,
    settings_backup: edit.backup,
    claude_commands: claudeCommands,
    renamed_keys: renamed,
    schema,
    daemon,
    warnings: [...warnings, ...connectionWarnings(config)],
  };
}

export function install(config: Config, env: Env, agent: Agent): Promise<LifecycleResult> {
  return place(config, env, agent, readRecord(installLayout(config.home, agent)), false);
}

export async function update(config: Config, env: Env, agent: Agent): Promise<LifecycleResult> {
  const previous = readRecord(installLayout(config.home, agent));
  if (!previous) throw new CliError(`the memory plugin is not installed for ${agent}; install it first: service plugin install ${agent}`, EXIT.NOT_FOUND);
  return place(config, env, agent, previous, true);
}

export interface UninstallResult {
  removed: boolean;
  dir: string;
  claude_commands: string[];
  settings_backup: string | null;
  /** What was removed of the plugin under Claude Code's plugins/ folder (cached copy, entries). */
  claude_files_removed: string[];
  purged: string[];
  kept: string | null;
  warnings: string[];
}

/** Data that --purge removes: all of the data dir except a `service serve` server's data. */
async function purge(config: Config): Promise<string[]> {
  const p = resolvePaths(config.home);
  await stopDaemon(config);
  const removed: string[] = [];
  for (const entry of fs.existsSync(p.home) ? fs.readdirSync(p.home) : []) {
    const full = path.join(p.home, entry);
    if (full === p.serverDir) continue;
    fs.rmSync(full, { recursive: true, force: true });
    removed.push(full);
  }
  if (fs.existsSync(p.home) && fs.readdirSync(p.home).length === 0) fs.rmdirSync(p.home);
  return removed;
}

export async function uninstall(config: Config, env: Env, agent: Agent, opts: { purge: boolean }): Promise<UninstallResult> {
  const layout = installLayout(config.home, agent);
  const record = readRecord(layout);
  const claude = await claudeInfo(env);
  const warnings: string[] = [];
  let claudeCommands: string[] = [];
  if (claude.path) {
    const r = await unregisterWithClaude(claude.path, env);
    claudeCommands = r.ran;
    if (record?.method === 'claude-cli') warnings.push(...r.warnings);
  }
  const edit = editSettings(claudeSettingsFile(env), (doc) => {
    const registration = removeFromSettings(doc);
    const rule = record?.allow_rule_added === true && removeAllowRule(doc);
    // Keys the install created and the claude CLI may have left empty (`"enabledPlugins": {}`).
    const empty = dropEmptyKeys(doc, record?.created_keys ?? []);
    return registration || rule || empty;
  });
  const forgotten = forgetClaudeCopies(env);
  const removed = removePlugin(layout) || edit.changed || forgotten.length > 0 || record !== null;
  // Nothing runs hooks any more: stop the daemon (a CLI command starts it again when needed).
  const purged = opts.purge ? await purge(config) : [];
  if (!opts.purge) await stopDaemon(config);
  return { removed, dir: layout.dir, claude_commands: claudeCommands, settings_backup: edit.backup, claude_files_removed: forgotten, purged, kept: opts.purge ? null : config.home, warnings };
}
