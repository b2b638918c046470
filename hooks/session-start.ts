#!/usr/bin/env node
/**
 * Claude Code SessionStart hook: capture (see hooks/lib/run.ts), started in the background by
 * hooks.json so no session waits for it; it starts the daemon when none runs. It prints nothing: the
 * session's first prompt recall opens with the project block SessionStart used to show. Always exits 0.
 */
import { runHook } from './lib/run.js';

void runHook('capture', 'SessionStart').finally(() => process.exit(0));
