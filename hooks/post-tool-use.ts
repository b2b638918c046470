#!/usr/bin/env node
/** Claude Code PostToolUse hook: capture (see hooks/lib/run.ts). Always exits 0. */
import { runHook } from './lib/run.js';

void runHook('capture', 'PostToolUse').finally(() => process.exit(0));
