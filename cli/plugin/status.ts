/**
 * `service plugin status`: every check of the setup flow's "verify" step (SPEC §3), each with what
 * to do when it fails (SPEC §7): configuration, installed plugin and its registration, the agent
 * and Node.js, daemon health, capture state and why there may be no memory yet, the data dir's
 * schema, the server connection (API key and GET /api/v1/verify) and the telemetry setting.
 */
import fs from 'node:fs';
import { callerSession } from '../caller-session.js';
import { CONFIG_SCHEMA, ConfigError, envWithConfigFile, loadConfig, resolvePaths, type Config, type Env } from '../../engine/index.js';
import { EXIT } from '../command.js';
import { cliPath, clientFor, ensureDaemon } from '../daemon-control.js';
import { VERSION } from '../version.js';
import { claudeInfo, compareVersions, MIN_CLAUDE_VERSION, MIN_NODE_MAJOR, nodeInfo } from './agent-cli.js';
import { serviceOnPath } from './pin-cli.js';
import { captureCheck, type DaemonStatus } from './status-capture.js';
import { integrityProblems, pluginManifest, readRecord } from './installed.js';
import { readJsonObject } from './json-file.js';
import { claudeSettingsFile, installLayout, PLUGIN_ID } from './layout.js';
import { renamedInEnv, SCHEMA_VERSION, schemaVersion } from './migrations.js';
import { settingsRegistration } from './registration.js';
import { verifyKey } from './verify.js';

export type Level = 'ok' | 'info' | 'warn' | 'fail';

export interface Check {
  id: string;
  level: Level;
  summary: string;
  /** What to do about it (fail and warn). */
  fix?: string;
  /** Exit code when this is the first failure. */
  exit?: number;
}

export interface StatusReport {
  version: string;
  checks: Check[];
  exit: number;
}

/** Every invalid setting, not only the first (loadConfig stops at the first). */
export function configProblems(env: Env): string[] {
  const out: string[] = [];
  for (const entry of Object.values(CONFIG_SCHEMA)) {
    try {
      loadConfig({ [entry.env]: env[entry.env] });
    } catch (err) {
      if (err instanceof ConfigError) out.push(err.message);
    }
  }
  return out;
}

async function telemetryCheck(env: Env, config: Config): Promise<Check> {
  const nothing = 'nothing is recorded or sent';
  if (env.DO_NOT_TRACK === '1' || env.DO_NOT_TRACK?.toLowerCase() === 'true') return { id: 'telemetry', level: 'info', summary: `off (DO_NOT_TRACK=${env.DO_NOT_TRACK}): ${nothing}` };
  if (!config.telemetry) return { id: 'telemetry', level: 'info', summary: `off (SERVICE_TELEMETRY=false): ${nothing}` };
  if (!config.baseUrl) return { id: 'telemetry', level: 'info', summary: `on, but no server is configured (SERVICE_BASE_URL unset): ${nothing}` };
  const { readTelemetryState } = await import('../../daemon/index.js');
  const s = readTelemetryState(config.home);
  const sent = s ? `; ${s.pending.length} waiting, ${s.sent_total} sent${s.last_sent_at ? `, last at ${s.last_sent_at}` : ''}` : '';
  const summary = `on: anonymous events (event, plugin version, runtime, timings, error class, install id) go to ${config.baseUrl}/v1/telemetry${sent}`;
  if (s?.last_error) return { id: 'telemetry', level: 'warn', summary: `${summary}; last attempt failed: ${s.last_error.message}`, fix: 'SERVICE_TELEMETRY=false turns telemetry off' };
  return { id: 'telemetry', level: 'info', summary: `${summary} (SERVICE_TELEMETRY=false turns it off)` };
}

async function serverCheck(config: Config): Promise<Check> {
  if (!config.baseUrl) return { id: 'server', level: 'info', summary: 'local only (SERVICE_BASE_URL unset): memories stay on this machine' };
  if (!config.apiKey) {
    return { id: 'server', level: 'fail', summary: `SERVICE_BASE_URL is ${config.baseUrl} but the plugin has no API key`, fix: 'export SERVICE_API_KEY=<your key> and restart Claude Code', exit: EXIT.CONFIG };
  }
  const v = await verifyKey(config.baseUrl, config.apiKey);
  const verify = `curl -H "Authorization: Bearer $SERVICE_API_KEY" ${config.baseUrl}/api/v1/verify`;
  if (v.state === 'valid') return { id: 'server', level: 'ok', summary: `${config.baseUrl}: key ${v.key_id ?? '?'} is valid for project ${v.project_id ?? '?'} (${v.scopes.join(', ') || 'no scopes'})` };
  if (v.state === 'unauthorized') return { id: 'server', level: 'fail', summary: `${config.baseUrl} refused SERVICE_API_KEY (${v.status} unauthorized: ${v.message})`, fix: `check the key and the account's permissions with GET /api/v1/verify: ${verify}`, exit: EXIT.UNAUTHORIZED };
  if (v.state === 'unreachable') return { id: 'server', level: 'fail', summary: `cannot reach ${config.baseUrl} (${v.message})`, fix: 'check SERVICE_BASE_URL and your network; local memory keeps working meanwhile' };
  return { id: 'server', level: 'fail', summary: `${config.baseUrl}/api/v1/verify answered ${v.status}: ${v.message}`, fix: `check SERVICE_BASE_URL points at a memory server: ${verify}` };
}

async function agentChecks(env: Env): Promise<Check[]> {
  const out: Check[] = [];
  const claude = await claudeInfo(env);
  if (!claude.path) out.push({ id: 'agent', level: 'warn', summary: 'claude is not on PATH', fix: 'install Claude Code (the plugin loads when it starts); registration went through its settings file' });
  else if (claude.version && compareVersions(claude.version, MIN_CLAUDE_VERSION) < 0) {
    out.push({ id: 'agent', level: 'fail', summary: `Claude Code ${claude.version} is older than ${MIN_CLAUDE_VERSION}, which the plugin needs (async hooks): the plugin will not start`, fix: 'update Claude Code (claude update), then restart it' });
  } else out.push({ id: 'agent', level: 'ok', summary: `Claude Code ${claude.version ?? '(version unknown)'} at ${claude.path}` });
  const node = await nodeInfo(env);
  const major = Number(node.version?.split('.')[0] ?? 0);
  if (!node.path || major < MIN_NODE_MAJOR) {
    out.push({ id: 'node', level: 'fail', summary: node.path ? `node on PATH is ${node.version ?? 'of unknown version'}; the hooks and the MCP server need ${MIN_NODE_MAJOR} or later` : 'node is not on PATH; the hooks and the MCP server run with it', fix: `install Node.js ${MIN_NODE_MAJOR} or later and put it on PATH` });
  } else out.push({ id: 'node', level: 'ok', summary: `Node.js ${node.version} at ${node.path}` });
  return out;
}

function pluginChecks(env: Env, home: string): Check[] {
  const layout = installLayout(home, 'claude-code');
  const record = readRecord(layout);
  const reinstall = 'service plugin install claude-code';
  if (!record) return [{ id: 'plugin', level: 'fail', summary: 'the memory plugin is not installed for Claude Code', fix: reinstall }];
  if (record.error) return [{ id: 'plugin', level: 'fail', summary: `the last install failed, so Claude Code will not start the plugin: ${record.error}`, fix: `fix that, then: ${reinstall}` }];
  const problems = integrityProblems(layout.dir);
  if (problems.length > 0) return [{ id: 'plugin', level: 'fail', summary: `the installation failed or was damaged: ${problems.join('; ')}`, fix: reinstall }];
  const installed = pluginManifest(layout.dir)!.version;
  const out: Check[] = [
    installed === VERSION
      ? { id: 'plugin', level: 'ok', summary: `memory ${installed} installed in ${layout.dir}` }
      : { id: 'plugin', level: 'warn', summary: `memory ${installed} is installed; this CLI ships ${VERSION}`, fix: 'service plugin update claude-code' },
  ];
  const settings = claudeSettingsFile(env);
  const reg = settingsRegistration(settings);
  if (!reg.enabled) out.push({ id: 'registration', level: 'fail', summary: `Claude Code does not have ${PLUGIN_ID} enabled (${settings})`, fix: reinstall });
  else if (record.method === 'settings' && reg.marketplacePath !== layout.dir) out.push({ id: 'registration', level: 'fail', summary: `${settings} points the marketplace at ${reg.marketplacePath ?? 'nothing'}, not ${layout.dir}`, fix: reinstall });
  else out.push({ id: 'registration', level: 'ok', summary: `${PLUGIN_ID} enabled in ${settings} (through ${record.method === 'claude-cli' ? 'the claude CLI' : 'the settings file'})` });
  return out;
}

/** Which program `service` on PATH is: the plugin never depends on it, but a user typing it might. */
function commandCheck(env: Env): Check {
  const s = serviceOnPath(env as NodeJS.ProcessEnv);
  if (s.kind === 'other') return { id: 'command', level: 'info', summary: `\`service\` on PATH is ${s.path}, not this CLI; the plugin runs ${cliPath()} directly`, fix: 'type service-cli where this tool says service (or alias service=service-cli)' };
  return { id: 'command', level: 'ok', summary: s.kind === 'ours' ? `\`service\` on PATH (${s.path}) runs this CLI` : `the plugin runs ${cliPath()} directly; in a shell, type service-cli` };
}

async function daemonChecks(config: Config, env: Env, cwd: string): Promise<Check[]> {
  let started = false;
  try {
    started = (await ensureDaemon(config, env as NodeJS.ProcessEnv)).started;
  } catch (err) {
    return [{ id: 'daemon', level: 'fail', summary: (err as Error).message, fix: 'fix what the log names, then: service daemon start', exit: EXIT.DAEMON_UNREACHABLE }];
  }
  const caller = callerSession(env as NodeJS.ProcessEnv);
  const s = await clientFor(config).status<DaemonStatus>({ cwd, ...(caller.session_id ? { session_id: caller.session_id } : {}) });
  const daemon: Check =
    s.daemon.version === VERSION
      ? { id: 'daemon', level: 'ok', summary: `running, pid ${s.daemon.pid}, version ${s.daemon.version}${started ? ' (started now)' : `, up ${s.daemon.uptime_s}s`}` }
      : { id: 'daemon', level: 'warn', summary: `running version ${s.daemon.version} (pid ${s.daemon.pid}); this CLI is ${VERSION}`, fix: 'service plugin update claude-code (it restarts the daemon)' };
  return [daemon, captureCheck(s, config)];
}

export async function pluginStatus(env: Env, cwd: string): Promise<StatusReport> {
  const checks: Check[] = [];
  const settingsEnv = (readJsonObject(claudeSettingsFile(env))?.env ?? {}) as Env;
  // What Claude Code hands the plugin: the shell's environment plus its settings' env block, over
  // the data dir's config file (which the daemon and the hooks read too).
  let withFile: Env = env;
  try {
    withFile = envWithConfigFile(env);
  } catch (err) {
    checks.push({ id: 'config', level: 'fail', summary: err instanceof Error ? err.message : String(err), fix: 'fix or remove the config file (service config list shows what is used)', exit: EXIT.CONFIG });
  }
  const seen: Env = { ...withFile, ...settingsEnv };
  const problems = configProblems(seen);
  if (problems.length > 0) checks.push({ id: 'config', level: 'fail', summary: problems.join(' '), fix: 'fix the variable in your shell or in the "env" block of Claude Code settings, then restart Claude Code', exit: EXIT.CONFIG });
  else checks.push({ id: 'config', level: 'ok', summary: 'every SERVICE_* setting is valid' });
  for (const [old, now] of renamedInEnv(seen)) checks.push({ id: 'config', level: 'warn', summary: `${old} is an old name, ignored now`, fix: `rename it to ${now} (service plugin update does this in Claude Code's settings)` });
  const config = problems.length === 0 ? loadConfig(seen) : loadConfig({ SERVICE_HOME: seen.SERVICE_HOME });
  checks.push(...pluginChecks(env, config.home), commandCheck(env), ...(await agentChecks(env)));
  if (problems.length === 0) checks.push(...(await daemonChecks(config, seen, cwd)));
  else checks.push({ id: 'daemon', level: 'fail', summary: 'not checked: the daemon cannot start with an invalid setting', fix: 'fix the setting above' });
  const schema = schemaVersion(resolvePaths(config.home));
  if (schema === 0 && !fs.existsSync(resolvePaths(config.home).lanceDir)) checks.push({ id: 'schema', level: 'ok', summary: `data dir ${config.home} is new (schema ${SCHEMA_VERSION} on first write)` });
  else if (schema < SCHEMA_VERSION) checks.push({ id: 'schema', level: 'warn', summary: `data dir schema ${schema}, current ${SCHEMA_VERSION}`, fix: 'service plugin update claude-code' });
  else if (schema > SCHEMA_VERSION) checks.push({ id: 'schema', level: 'fail', summary: `data dir schema ${schema} was written by a newer service (this CLI knows ${SCHEMA_VERSION})`, fix: 'update the service CLI' });
  else checks.push({ id: 'schema', level: 'ok', summary: `data dir ${config.home}, schema ${schema}` });
  checks.push(await serverCheck(config), await telemetryCheck(seen, config));
  const failed = checks.find((c) => c.level === 'fail');
  return { version: VERSION, checks, exit: failed ? (failed.exit ?? EXIT.FAILED) : EXIT.OK };
}
