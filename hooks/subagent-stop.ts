#!/usr/bin/env node
/** Claude Code SubagentStop hook: capture (see hooks/lib/run.ts). Always exits 0. */
import { runHook } from './lib/run.js';

void runHook('capture', 'SubagentStop').finally(() => process.exit(0));
