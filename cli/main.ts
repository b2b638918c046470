#!/usr/bin/env node
/** `service`: the command-line entry point. */
import './env-defaults.js';
import { runCli } from './run.js';

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
process.exitCode = code;
