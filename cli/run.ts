/**
 * The CLI's one entry: pick the command, run it, and turn every failure into a message and a
 * documented exit code (see EXIT). Never prints a stack trace to users.
 */
import { DaemonApiError, DaemonClient, DaemonUnreachableError } from '../daemon/client.js';
import { ConfigError, EngineError, loadConfigWithFile, resolvePaths, type Config } from '../engine/index.js';
import { CliError, EXIT, UsageError, type Command, type CommandContext, type Io } from './command.js';
import { COMMANDS, type CommandEntry } from './registry.js';
import { VERSION } from './version.js';
import { examplesFor } from './examples.js';

function helpText(commands: CommandEntry[]): string {
  const lines = ['usage: service <command> [options]   (every command takes --json)', '', 'commands:'];
  for (const c of commands) lines.push(`  ${c.path.join(' ').padEnd(22)} ${c.summary}`);
  lines.push('', 'Run "service <command> --help" for its options and examples. SERVICE_HOME isolates all state;', 'service config keeps settings in it. Where `service` is the system\'s own command, type service-cli.');
  return lines.join('\n');
}

export function findCommand(argv: string[], commands: CommandEntry[] = COMMANDS): { command: CommandEntry; rest: string[] } | null {
  let best: { command: CommandEntry; rest: string[] } | null = null;
  for (const c of commands) {
    if (c.path.length <= argv.length && c.path.every((w, i) => argv[i] === w)) {
      if (!best || c.path.length > best.command.path.length) best = { command: c, rest: argv.slice(c.path.length) };
    }
  }
  return best;
}

export async function runCli(argv: string[], io: Io, commands: CommandEntry[] = COMMANDS): Promise<number> {
  let cached: Config | undefined;
  const ctx: CommandContext = {
    io,
    config: () => (cached ??= loadConfigWithFile(io.env)),
    out: (t = '') => void io.stdout.write(t + '\n'),
    err: (t) => void io.stderr.write(t + '\n'),
    json: (v) => void io.stdout.write(JSON.stringify(v, null, 2) + '\n'),
  };
  if (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version') {
    if (argv.includes('--json')) ctx.json({ version: VERSION, node: process.versions.node, cli: process.argv[1] ?? null });
    else ctx.out(VERSION);
    return EXIT.OK;
  }
  const json = wantsJson(argv);
  const words = argv.filter((a) => a !== '--json');
  if (words.length === 0 || words[0] === '--help' || words[0] === '-h' || words[0] === 'help') {
    // `service help <command>` is `service <command> --help`.
    if (words[0] === 'help' && words.length > 1) return runCli([...words.slice(1), '--help'], io, commands);
    const fallback = words.length === 0 && !json ? findCommand(['tui'], commands) : null;
    if (fallback) return run(await fallback.command.load(), [], ctx);
    if (json) ctx.json({ version: VERSION, commands: commands.map((c) => ({ command: c.path.join(' '), summary: c.summary, examples: examplesFor(c.path) })) });
    else ctx.out(helpText(commands));
    return EXIT.OK;
  }
  const asksHelp = words.includes('--help') || words.includes('-h');
  const found = findCommand(argv, commands);
  // A group word (`sync`, `config`, `daemon`) followed by a word that is no subcommand of it.
  const group = commands.filter((c) => c.path.length > 1 && c.path[0] === argv[0]);
  const strayWord = found && found.command.path.length === 1 && group.length > 0 && found.rest.length > 0 && !found.rest[0]!.startsWith('-');
  const groupHelp = group.length > 0 && asksHelp && !strayWord && (!found || found.command.path.length === 1);
  if (!found || strayWord || groupHelp) {
    if (groupHelp) {
      ctx.out([`service ${argv[0]} <subcommand>`, '', ...group.map((c) => `  ${c.path.join(' ').padEnd(22)} ${c.summary}`), '', `Run "service ${argv[0]} <subcommand> --help" for its options and examples.`].join('\n'));
      return EXIT.OK;
    }
    const message = group.length > 0 ? `unknown "${words.join(' ')}"; try: ${group.map((c) => c.path.join(' ')).join(', ')}` : `unknown command "${argv[0]}"; run "service --help" for the list`;
    return reportError(new UsageError(message), json, ctx);
  }
  const command = await found.command.load();
  if (found.rest.includes('--help') || found.rest.includes('-h')) {
    const examples = examplesFor(command.path);
    if (json) ctx.json({ command: command.path.join(' '), summary: command.summary, usage: command.usage, examples });
    else ctx.out([command.summary, `usage: ${command.usage}`, ...(examples.length > 0 ? ['', 'examples:', ...examples.map((e) => `  ${e}`)] : [])].join('\n'));
    return EXIT.OK;
  }
  const t0 = performance.now();
  const code = await run(command, found.rest, ctx);
  await reportOutcome(command.path, code, performance.now() - t0, ctx);
  return code;
}

const EXIT_CLASS: Record<number, string> = { [EXIT.FAILED]: 'Failed', [EXIT.USAGE]: 'UsageError', [EXIT.DAEMON_UNREACHABLE]: 'DaemonUnreachable', [EXIT.CONFIG]: 'ConfigError', [EXIT.NOT_FOUND]: 'NotFound', [EXIT.UNAUTHORIZED]: 'Unauthorized' };

/**
 * Hand the command's outcome (name, duration, exit class; nothing else) to the daemon's anonymous
 * telemetry, only when telemetry is on and a server is configured, and only if the daemon is up.
 */
async function reportOutcome(path: string[], code: number, ms: number, ctx: CommandContext): Promise<void> {
  let config: Config;
  try {
    config = ctx.config();
  } catch {
    return;
  }
  if (!config.telemetry || !config.baseUrl || path[0] === 'daemon') return;
  const event = { event: `cli.${path.join('_')}`, duration_ms: Math.round(ms), ...(code !== EXIT.OK ? { error_class: EXIT_CLASS[code] ?? 'Failed' } : {}) };
  await new DaemonClient({ socketPath: resolvePaths(config.home).socket, timeoutMs: 500 }).request('POST', '/v1/telemetry/events', event).catch(() => {});
}

/** The exit code and error code (for --json) of a failure. */
export function classify(err: unknown): { exit: number; code: string; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof UsageError) return { exit: EXIT.USAGE, code: 'USAGE', message };
  if (err instanceof ConfigError) return { exit: EXIT.CONFIG, code: 'CONFIG', message };
  if (err instanceof CliError) return { exit: err.exitCode, code: EXIT_CODE_NAMES[err.exitCode] ?? 'FAILED', message };
  if (err instanceof EngineError) return { exit: err.code === 'NOT_FOUND' ? EXIT.NOT_FOUND : EXIT.FAILED, code: err.code, message };
  if (err instanceof DaemonUnreachableError) return { exit: EXIT.DAEMON_UNREACHABLE, code: 'DAEMON_UNREACHABLE', message };
  if (err instanceof DaemonApiError) {
    if (err.status === 404) return { exit: EXIT.NOT_FOUND, code: err.code, message };
    if (err.status === 401 || err.status === 403) return { exit: EXIT.UNAUTHORIZED, code: err.code, message };
    if (err.status === 400 || err.status === 422) return { exit: EXIT.USAGE, code: err.code, message };
    return { exit: EXIT.FAILED, code: err.code, message };
  }
  return { exit: EXIT.FAILED, code: 'FAILED', message: `service: ${message}` };
}

const EXIT_CODE_NAMES: Record<number, string> = { [EXIT.FAILED]: 'FAILED', [EXIT.USAGE]: 'USAGE', [EXIT.DAEMON_UNREACHABLE]: 'DAEMON_UNREACHABLE', [EXIT.CONFIG]: 'CONFIG', [EXIT.NOT_FOUND]: 'NOT_FOUND', [EXIT.UNAUTHORIZED]: 'UNAUTHORIZED' };

/** Did the caller ask for JSON (before a `--` that ends options)? */
export function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

/** Report a failure: a message on stderr, or with --json `{"error":{code,message}}` on stdout. */
export function reportError(err: unknown, json: boolean, ctx: CommandContext): number {
  const c = classify(err);
  if (json) ctx.json({ error: { code: c.code, message: c.message } });
  else ctx.err(c.message);
  return c.exit;
}

async function run(command: Command, args: string[], ctx: CommandContext): Promise<number> {
  try {
    return await command.run(args, ctx);
  } catch (err) {
    return reportError(err, wantsJson(args), ctx);
  }
}
