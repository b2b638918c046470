/**
 * The CLI's one entry: pick the command, run it, and turn every failure into a message and a
 * documented exit code (see EXIT). Never prints a stack trace to users.
 */
import { DaemonClient } from '../daemon/client.js';
import { ConfigError, EngineError, loadConfig, resolvePaths, type Config } from '../engine/index.js';
import { CliError, EXIT, UsageError, type Command, type CommandContext, type Io } from './command.js';
import { COMMANDS, type CommandEntry } from './registry.js';

function helpText(commands: CommandEntry[]): string {
  const lines = ['usage: service <command> [options]   (every command takes --json)', '', 'commands:'];
  for (const c of commands) lines.push(`  ${c.path.join(' ').padEnd(22)} ${c.summary}`);
  lines.push('', 'Run "service <command> --help" for its options. SERVICE_HOME isolates all state.');
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
    config: () => (cached ??= loadConfig(io.env)),
    out: (t = '') => void io.stdout.write(t + '\n'),
    err: (t) => void io.stderr.write(t + '\n'),
    json: (v) => void io.stdout.write(JSON.stringify(v, null, 2) + '\n'),
  };
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    const fallback = argv.length === 0 ? findCommand(['tui'], commands) : null;
    if (fallback) return run(await fallback.command.load(), [], ctx);
    ctx.out(helpText(commands));
    return EXIT.OK;
  }
  const found = findCommand(argv, commands);
  if (!found) {
    const prefix = commands.filter((c) => c.path[0] === argv[0]);
    ctx.err(prefix.length > 0 ? `unknown "${argv.join(' ')}"; try: ${prefix.map((c) => c.path.join(' ')).join(', ')}` : `unknown command "${argv[0]}"\n\n${helpText(commands)}`);
    return EXIT.USAGE;
  }
  const command = await found.command.load();
  if (found.rest.includes('--help') || found.rest.includes('-h')) {
    ctx.out(`${command.summary}\nusage: ${command.usage}`);
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

async function run(command: Command, args: string[], ctx: CommandContext): Promise<number> {
  try {
    return await command.run(args, ctx);
  } catch (err) {
    if (err instanceof UsageError) {
      ctx.err(err.message);
      return EXIT.USAGE;
    }
    if (err instanceof ConfigError) {
      ctx.err(err.message);
      return EXIT.CONFIG;
    }
    if (err instanceof CliError) {
      ctx.err(err.message);
      return err.exitCode;
    }
    if (err instanceof EngineError) {
      ctx.err(err.message);
      return err.code === 'NOT_FOUND' ? EXIT.NOT_FOUND : EXIT.FAILED;
    }
    ctx.err(`service: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT.FAILED;
  }
}
