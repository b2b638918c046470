#!/usr/bin/env node
/** `service-cli` (also `service`): the command-line entry point. */
import './env-defaults.js';
import { runCli } from './run.js';

// A reader that stops early (`service status | head -3`) closes the pipe: stop quietly, no stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
process.exitCode = code;
