/**
 * The installed plugin in the data dir: placing a built copy (staged beside the old one, then
 * swapped in, so an update replaces it in place and a failed copy leaves the old one working),
 * its `service.json` (how hooks and the MCP server start the daemon), the install record, and an
 * integrity check of every path its manifests name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CliError, EXIT } from '../command.js';
import type { Agent, InstallLayout } from './layout.js';
import type { Method } from './registration.js';
import { isOurCli, pinCliInPlugin, unpinnedFiles } from './pin-cli.js';

export interface InstallRecord {
  agent: Agent;
  version: string;
  dir: string;
  method: Method;
  plugin_id: string;
  settings_file: string;
  claude_version: string | null;
  installed_at: string;
  updated_at: string;
  /** Why the last install or update failed after the copy was placed; null when it succeeded. */
  error: string | null;
  /** The install added the memory tool's allow rule (uninstall removes it only then). */
  allow_rule_added?: boolean;
  /** Top-level keys of Claude Code's settings the install created (dropped at uninstall once empty). */
  created_keys?: string[];
}

export function readRecord(layout: InstallLayout): InstallRecord | null {
  try {
    return JSON.parse(fs.readFileSync(layout.record, 'utf8')) as InstallRecord;
  } catch {
    return null;
  }
}

export function writeRecord(layout: InstallLayout, record: InstallRecord): void {
  fs.mkdirSync(path.dirname(layout.record), { recursive: true, mode: 0o700 });
  fs.writeFileSync(layout.record, JSON.stringify(record, null, 2) + '\n', { mode: 0o600 });
}

/** name and version from a plugin folder's manifest, or null when it has none. */
export function pluginManifest(dir: string): { name: string; version: string } | null {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(dir, '.claude-plugin', 'plugin.json'), 'utf8')) as { name?: unknown; version?: unknown };
    return typeof m.name === 'string' && typeof m.version === 'string' ? { name: m.name, version: m.version } : null;
  } catch {
    return null;
  }
}

/** What `service.json` at the plugin root tells the hooks and the MCP server. */
export interface ServiceJson {
  /** The `service` CLI entry file, run with `node`. */
  cli: string;
  /** The Node.js the CLI was installed with. */
  node: string;
  version: string;
}

/**
 * Put a copy of `built` at `layout.dir`, with service.json in it. The copy is made beside the
 * current one and swapped in by rename.
 */
export function placePlugin(built: string, layout: InstallLayout, service: ServiceJson): void {
  if (!pluginManifest(built)) throw new CliError(`the built plugin is missing or incomplete at ${built}; build it (npm run build in the service checkout) and run this command again`, EXIT.FAILED);
  const stage = `${layout.dir}.new-${process.pid}`;
  const old = `${layout.dir}.old-${process.pid}`;
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(layout.dir), { recursive: true, mode: 0o700 });
  fs.cpSync(built, stage, { recursive: true });
  fs.writeFileSync(path.join(stage, 'service.json'), JSON.stringify(service, null, 2) + '\n');
  pinCliInPlugin(stage, service);
  const had = fs.existsSync(layout.dir);
  if (had) fs.renameSync(layout.dir, old);
  try {
    fs.renameSync(stage, layout.dir);
  } catch (err) {
    if (had) fs.renameSync(old, layout.dir);
    throw err;
  }
  fs.rmSync(old, { recursive: true, force: true });
}

export function removePlugin(layout: InstallLayout): boolean {
  const had = fs.existsSync(layout.dir) || fs.existsSync(layout.record);
  fs.rmSync(layout.dir, { recursive: true, force: true });
  fs.rmSync(layout.record, { force: true });
  return had;
}

/** `${CLAUDE_PLUGIN_ROOT}/…` paths named in the strings of a JSON value. */
function rootPaths(value: unknown): string[] {
  if (typeof value === 'string') return [...value.matchAll(/\$\{CLAUDE_PLUGIN_ROOT\}\/([^"'\s]+)/g)].map((m) => m[1]!);
  if (value && typeof value === 'object') return Object.values(value).flatMap(rootPaths);
  return [];
}

/** What is wrong with an installed plugin folder: missing manifest, files its manifests name, CLI. */
export function integrityProblems(dir: string): string[] {
  if (!fs.existsSync(dir)) return [`${dir} does not exist`];
  const problems: string[] = [];
  if (!pluginManifest(dir)) problems.push('.claude-plugin/plugin.json is missing or invalid');
  for (const file of ['hooks/hooks.json', '.mcp.json']) {
    let doc: unknown;
    try {
      doc = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    } catch {
      problems.push(`${file} is missing or not valid JSON`);
      continue;
    }
    for (const rel of rootPaths(doc)) if (!fs.existsSync(path.join(dir, rel))) problems.push(`${rel} (named in ${file}) is missing`);
  }
  try {
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'service.json'), 'utf8')) as Partial<ServiceJson>;
    if (!s.cli || !fs.existsSync(s.cli)) problems.push(`service.json names a CLI that is not there (${s.cli ?? 'none'})`);
    else if (!isOurCli(s.cli)) problems.push(`service.json names ${s.cli}, which is not the memory-service CLI`);
    else if (s.node && !fs.existsSync(s.node)) problems.push(`service.json names a Node.js that is not there (${s.node})`);
  } catch {
    problems.push('service.json is missing');
  }
  const unpinned = unpinnedFiles(dir);
  if (unpinned.length > 0) problems.push(`${unpinned.join(', ')} run \`service\` from PATH (installed by an older version; on Debian and Ubuntu that is the system's own service command)`);
  return problems;
}
