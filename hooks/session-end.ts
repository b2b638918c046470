#!/usr/bin/env node
/** Claude Code SessionEnd hook: capture (see hooks/lib/run.ts). Always exits 0. */
import { runHook } from './lib/run.js';

void runHook('capture', 'SessionEnd').finally(() => process.exit(0));
