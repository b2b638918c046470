/** The shape of a CLI command and the IO it is given (injected so tests can capture it). */
import type { Config, Env } from '../engine/index.js';

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Env;
}

export interface CommandContext {
  io: Io;
  /** Resolved configuration (throws ConfigError on invalid env). */
  config(): Config;
  /** Write a line to stdout. */
  out(text?: string): void;
  /** Write a line to stderr. */
  err(text: string): void;
  /** Print a value as JSON (for --json). */
  json(value: unknown): void;
}

export interface Command {
  /** Words that select it, e.g. ['keys', 'create']. */
  path: string[];
  summary: string;
  usage: string;
  run(args: string[], ctx: CommandContext): Promise<number>;
}

/** Documented exit codes. */
export const EXIT = {
  OK: 0,
  FAILED: 1,
  USAGE: 2,
  DAEMON_UNREACHABLE: 3,
  CONFIG: 4,
  NOT_FOUND: 5,
  UNAUTHORIZED: 6,
} as const;

/** A mistake in how the command was called (exit 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure with a specific exit code and a message telling the user what to do. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.FAILED,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
