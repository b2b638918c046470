#!/usr/bin/env node
/** Claude Code PostToolUseFailure hook: capture (see hooks/lib/run.ts). Always exits 0. */
import { runHook } from './lib/run.js';

void runHook('capture', 'PostToolUseFailure').finally(() => process.exit(0));
