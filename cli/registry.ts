/**
 * Every command of the `service` CLI, in help order. Command modules load on demand, so a quick
 * command (search, pause, status) does not pay for the server's or the engine's imports.
 */
import type { Command } from './command.js';

export interface CommandEntry {
  path: string[];
  summary: string;
  load: () => Promise<Command>;
}

const memory = () => import('./commands/memory.js');
const daemon = () => import('./commands/daemon.js');
const keys = () => import('./commands/keys.js');
const orgs = () => import('./commands/orgs.js');
const plugin = () => import('./commands/plugin.js');
const sync = () => import('./commands/sync.js');
const config = () => import('./commands/config.js');

export const COMMANDS: CommandEntry[] = [
  { path: ['tui'], summary: 'the dashboard: status, pause/resume, live search, forget (also plain `service`)', load: async () => (await import('./commands/tui.js')).tuiCommand },
  { path: ['status'], summary: 'capture state, memory counts, backlog, model and health', load: async () => (await import('./commands/status.js')).statusCommand },
  { path: ['search'], summary: 'search memories from earlier sessions', load: async () => (await memory()).searchCommand },
  { path: ['remember'], summary: 'store something explicitly (works while capture is paused)', load: async () => (await memory()).rememberCommand },
  { path: ['forget'], summary: 'forget memories by id, or by query after a preview (undo: service undo)', load: async () => (await memory()).forgetCommand },
  { path: ['undo'], summary: 'restore what the last forget forgot (or one memory: service undo <id>)', load: async () => (await memory()).undoCommand },
  { path: ['pause'], summary: 'pause automatic capture for this repository (or --session, --all)', load: async () => (await memory()).pauseCommand },
  { path: ['resume'], summary: 'resume automatic capture for this repository (or --session, --all)', load: async () => (await memory()).resumeCommand },
  { path: ['list'], summary: 'recent memories, newest first (by scope, category, age)', load: async () => (await import('./commands/browse.js')).listCommand },
  { path: ['show'], summary: 'one memory in full, with its fields', load: async () => (await import('./commands/browse.js')).showCommand },
  { path: ['edit'], summary: 'correct a memory in $EDITOR, or with --content (history keeps the old text)', load: async () => (await import('./commands/browse.js')).editCommand },
  { path: ['history'], summary: 'every version of a memory, oldest first', load: async () => (await memory()).historyCommand },
  { path: ['export'], summary: 'export every version as NDJSON (to a file or stdout)', load: async () => (await memory()).exportCommand },
  { path: ['import'], summary: 'import an NDJSON export (idempotent)', load: async () => (await memory()).importCommand },
  { path: ['sync'], summary: 'sync state (same as sync status)', load: async () => (await sync()).syncCommand },
  { path: ['sync', 'status'], summary: 'sync state: last push and pull, backlog, parked versions, server and key', load: async () => (await sync()).syncStatusCommand },
  { path: ['sync', 'now'], summary: 'push and pull now, and report what moved', load: async () => (await sync()).syncNowCommand },
  { path: ['config'], summary: 'settings (same as config list)', load: async () => (await config()).configListCommand },
  { path: ['config', 'list'], summary: 'every setting, its value and where it comes from (env, file, default)', load: async () => (await config()).configListCommand },
  { path: ['config', 'get'], summary: 'the value of one setting and where it comes from', load: async () => (await config()).configGetCommand },
  { path: ['config', 'set'], summary: 'keep a setting in the config file (validated like the environment variable)', load: async () => (await config()).configSetCommand },
  { path: ['config', 'unset'], summary: 'remove a setting from the config file (back to the default)', load: async () => (await config()).configUnsetCommand },
  { path: ['daemon', 'start'], summary: 'start the daemon in the background (harmless when running)', load: async () => (await daemon()).daemonStartCommand },
  { path: ['daemon', 'stop'], summary: 'stop the daemon (it finishes in-flight work first)', load: async () => (await daemon()).daemonStopCommand },
  { path: ['daemon', 'restart'], summary: "restart the daemon with this shell's environment and the config file", load: async () => (await daemon()).daemonRestartCommand },
  { path: ['daemon', 'status'], summary: 'is the daemon running?', load: async () => (await daemon()).daemonStatusCommand },
  { path: ['daemon', 'run'], summary: 'run the daemon in the foreground', load: async () => (await daemon()).daemonRunCommand },
  { path: ['serve'], summary: 'run the multi-tenant /v1 REST server', load: async () => (await import('./commands/serve.js')).serveCommand },
  { path: ['keys', 'create'], summary: 'create an API key (printed once)', load: async () => (await keys()).keysCreateCommand },
  { path: ['keys', 'list'], summary: 'list API keys (prefix and last use only)', load: async () => (await keys()).keysListCommand },
  { path: ['keys', 'revoke'], summary: 'revoke an API key (refused at once)', load: async () => (await keys()).keysRevokeCommand },
  { path: ['orgs', 'create'], summary: 'create an organization with its owner, first project and admin key', load: async () => (await orgs()).orgsCreateCommand },
  { path: ['orgs', 'list'], summary: 'list organizations and their projects', load: async () => (await orgs()).orgsListCommand },
  { path: ['plugin', 'install'], summary: 'install the agent plugin and register it (claude-code)', load: async () => (await plugin()).pluginInstallCommand },
  { path: ['plugin', 'update'], summary: 'update the agent plugin in place, migrating settings and data', load: async () => (await plugin()).pluginUpdateCommand },
  { path: ['plugin', 'uninstall'], summary: 'remove the agent plugin (memories stay unless --purge)', load: async () => (await plugin()).pluginUninstallCommand },
  { path: ['plugin', 'status'], summary: 'show and verify the plugin, daemon, capture, API key and server', load: async () => (await plugin()).pluginStatusCommand },
];
