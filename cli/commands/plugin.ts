/**
 * `service plugin install|update|uninstall <agent_plugin>` and `service plugin status`: the setup
 * flow of SPEC §3 (install, configure, restart the agent, verify). `<agent_plugin>`: claude-code.
 */
import { parse } from '../args.js';
import { EXIT, type Command, type CommandContext } from '../command.js';
import { install, uninstall, update, type LifecycleResult } from '../plugin/lifecycle.js';
import { parseAgent } from '../plugin/layout.js';
import { pluginStatus, type Level } from '../plugin/status.js';

const NEXT_STEP = 'Next: restart Claude Code so it loads the plugin, then check the connection with: service plugin status';

function printPlaced(r: LifecycleResult, ctx: CommandContext, verb: string): void {
  const from = r.previous_version && r.previous_version !== r.version ? ` (from ${r.previous_version})` : '';
  ctx.out(`${verb} the memory plugin ${r.version}${from} for Claude Code in ${r.dir}`);
  if (r.method === 'claude-cli') ctx.out(`registered with Claude Code ${r.claude.version ?? ''} through: ${r.claude_commands.join('; ')}`);
  else ctx.out(`registered in ${r.settings_file} (extraKnownMarketplaces and enabledPlugins; other settings kept)`);
  if (r.settings_backup) ctx.out(`the previous settings file is kept in ${r.settings_backup}`);
  for (const [old, now] of r.renamed_keys) ctx.out(`renamed ${old} to ${now} in ${r.settings_file}`);
  if (r.schema.applied.length > 0) ctx.out(`migrated the data dir from schema ${r.schema.from} to ${r.schema.to} (${r.schema.applied.join('; ')})`);
  ctx.out(`daemon ${r.daemon.started ? 'started' : 'running'} (pid ${r.daemon.pid ?? '?'})`);
  for (const w of r.warnings) ctx.out(`warning: ${w}`);
  ctx.out('');
  ctx.out(NEXT_STEP);
}

function lifecycle(verb: 'install' | 'update'): Command {
  return {
    path: ['plugin', verb],
    summary: verb === 'install' ? 'install the agent plugin and register it (claude-code)' : 'update the agent plugin in place, migrating settings and data',
    usage: `service plugin ${verb} <agent_plugin>   (agent plugins: claude-code)`,
    async run(args, ctx) {
      const { values, positionals } = parse(args, {}, this.usage);
      const agent = parseAgent(positionals[0], this.usage);
      const config = ctx.config();
      const r = verb === 'install' ? await install(config, ctx.io.env, agent) : await update(config, ctx.io.env, agent);
      if (values.json) ctx.json({ ...r, next_step: NEXT_STEP });
      else printPlaced(r, ctx, verb === 'install' ? 'installed' : 'updated');
      return EXIT.OK;
    },
  };
}

export const pluginInstallCommand = lifecycle('install');
export const pluginUpdateCommand = lifecycle('update');

export const pluginUninstallCommand: Command = {
  path: ['plugin', 'uninstall'],
  summary: 'remove the agent plugin and its registration (memories stay unless --purge)',
  usage: 'service plugin uninstall <agent_plugin> [--purge]   (agent plugins: claude-code)',
  async run(args, ctx) {
    const { values, positionals } = parse(args, { purge: { type: 'boolean' } }, this.usage);
    const agent = parseAgent(positionals[0], this.usage);
    const r = await uninstall(ctx.config(), ctx.io.env, agent, { purge: Boolean(values.purge) });
    if (values.json) {
      ctx.json(r);
      return EXIT.OK;
    }
    ctx.out(r.removed ? `removed the memory plugin from Claude Code (${r.dir})` : 'the memory plugin was not installed; nothing to remove');
    if (r.claude_commands.length > 0) ctx.out(`ran: ${r.claude_commands.join('; ')}`);
    if (r.settings_backup) ctx.out(`removed its entries from Claude Code's settings; the previous file is kept in ${r.settings_backup}`);
    for (const w of r.warnings) ctx.out(`warning: ${w}`);
    if (r.kept) ctx.out(`memories are kept in ${r.kept}; erase them with: service plugin uninstall ${agent} --purge`);
    else ctx.out(`erased the memory data (${r.purged.length} entries of the data dir)`);
    ctx.out('Restart Claude Code to unload the plugin.');
    return EXIT.OK;
  },
};

const MARK: Record<Level, string> = { ok: 'ok  ', info: '--  ', warn: 'warn', fail: 'FAIL' };

export const pluginStatusCommand: Command = {
  path: ['plugin', 'status'],
  summary: 'show and verify the plugin, daemon, capture, API key and server connection',
  usage: 'service plugin status',
  async run(args, ctx) {
    const { values } = parse(args, {}, this.usage);
    const r = await pluginStatus(ctx.io.env, process.cwd());
    if (values.json) {
      ctx.json({ ...r, ok: r.exit === EXIT.OK });
      return r.exit;
    }
    ctx.out(`memory plugin status (service ${r.version})`);
    for (const c of r.checks) {
      ctx.out(`  ${MARK[c.level]}  ${c.id.padEnd(12)} ${c.summary}`);
      if (c.fix && (c.level === 'fail' || c.level === 'warn')) ctx.out(`  ${' '.repeat(18)} → ${c.fix}`);
    }
    return r.exit;
  },
};
