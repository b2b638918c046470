#!/usr/bin/env node
/** Claude Code SessionStart hook: recall (see hooks/lib/run.ts). Always exits 0. */
import { runHook } from './lib/run.js';

void runHook('recall', 'SessionStart').finally(() => process.exit(0));
