/**
 * `service config get|set|unset|list`: settings kept in `<data dir>/config.json`, with the schema,
 * validation and documentation of the SERVICE_* environment variables (README's table). The
 * environment overrides the file; a running daemon restarts on the file when a change matters.
 */
import { checkSetting, configFilePath, describeSettings, readConfigFile, settingName, writeConfigFile } from '../../engine/index.js';
import { parse } from '../args.js';
import { EXIT, UsageError, type Command, type CommandContext } from '../command.js';
import { daemonHealth } from '../daemon-control.js';

/**
 * Whether a daemon runs, asked before the file changes: once it has changed, the daemon may already
 * be restarting on it and not answer. A busy daemon may take a moment to answer (2 s was missed on
 * a loaded 2-core machine); no daemon fails at once (nothing listens).
 */
async function daemonRuns(ctx: CommandContext): Promise<boolean> {
  return (await daemonHealth(ctx.config(), 5000)) !== null;
}

/** What a change to the file means for this shell and the daemon (running when the change was made). */
function afterChange(name: string, ctx: CommandContext, daemonRan: boolean): string[] {
  const notes: string[] = [];
  const env = ctx.io.env[name];
  if (env !== undefined && env !== '') notes.push(`note: ${name} is also set in this shell's environment (${name}=${env}), which overrides the file for commands run from it`);
  if (daemonRan) notes.push('the running daemon restarts on the new setting within a second or two');
  return notes;
}

export const configListCommand: Command = {
  path: ['config', 'list'],
  summary: 'every setting, its value and where it comes from (env, file, default)',
  usage: 'service config list [--all]',
  async run(args, ctx) {
    const { values } = parse(args, { all: { type: 'boolean' } }, this.usage);
    const rows = describeSettings(ctx.io.env);
    if (values.json) {
      ctx.json({ file: configFilePath(ctx.io.env), settings: rows.map(({ name, value, source, secret }) => ({ name, value, source, secret })) });
      return EXIT.OK;
    }
    ctx.out(`config file: ${configFilePath(ctx.io.env)} (the environment overrides it)`);
    const shown = values.all ? rows : rows.filter((r) => r.source !== 'default');
    if (shown.length === 0) ctx.out('every setting has its default (service config list --all shows them)');
    const width = Math.max(...shown.map((r) => r.name.length), 0);
    for (const r of shown) ctx.out(`  ${r.name.padEnd(width)}  ${(r.value === '' ? '(unset)' : r.value).padEnd(24)} ${r.source}`);
    return EXIT.OK;
  },
};

export const configGetCommand: Command = {
  path: ['config', 'get'],
  summary: 'the value of one setting and where it comes from',
  usage: 'service config get <name>   (e.g. SERVICE_TOP_K, or top_k)',
  async run(args, ctx) {
    const { values, positionals } = parse(args, {}, this.usage);
    if (positionals.length !== 1) throw new UsageError(`usage: ${this.usage}`);
    const name = settingName(positionals[0]!);
    const row = describeSettings(ctx.io.env).find((r) => r.name === name)!;
    if (values.json) ctx.json({ name, value: row.value, source: row.source, secret: row.secret });
    else ctx.out(`${row.value === '' ? '(unset)' : row.value}  (${row.source})`);
    return EXIT.OK;
  },
};

export const configSetCommand: Command = {
  path: ['config', 'set'],
  summary: 'keep a setting in the config file (validated like the environment variable)',
  usage: 'service config set <name> <value>   (e.g. service config set top_k 8)',
  async run(args, ctx) {
    const { values, positionals } = parse(args, {}, this.usage);
    if (positionals.length !== 2) throw new UsageError(`usage: ${this.usage}`);
    const name = settingName(positionals[0]!);
    const value = positionals[1]!;
    checkSetting(name, value);
    const current = readConfigFile(ctx.io.env);
    const running = await daemonRuns(ctx);
    const file = writeConfigFile(ctx.io.env, { ...current, [name]: value });
    const notes = afterChange(name, ctx, running);
    if (values.json) ctx.json({ name, file, notes });
    else {
      ctx.out(`${name} set in ${file}`);
      for (const n of notes) ctx.err(n);
    }
    return EXIT.OK;
  },
};

export const configUnsetCommand: Command = {
  path: ['config', 'unset'],
  summary: 'remove a setting from the config file (back to the default)',
  usage: 'service config unset <name>',
  async run(args, ctx) {
    const { values, positionals } = parse(args, {}, this.usage);
    if (positionals.length !== 1) throw new UsageError(`usage: ${this.usage}`);
    const name = settingName(positionals[0]!);
    const current = readConfigFile(ctx.io.env);
    const had = name in current;
    let notes: string[] = [];
    if (had) {
      const running = await daemonRuns(ctx);
      delete current[name];
      writeConfigFile(ctx.io.env, current);
      notes = afterChange(name, ctx, running);
    }
    if (values.json) ctx.json({ name, removed: had, file: configFilePath(ctx.io.env), notes });
    else {
      ctx.out(had ? `${name} removed from ${configFilePath(ctx.io.env)}` : `${name} was not set in the config file`);
      for (const n of notes) ctx.err(n);
    }
    return EXIT.OK;
  },
};
