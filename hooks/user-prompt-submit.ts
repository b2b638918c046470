#!/usr/bin/env node
/** Claude Code UserPromptSubmit hook: recall (see hooks/lib/run.ts). Always exits 0. */
import { runHook } from './lib/run.js';

void runHook('recall', 'UserPromptSubmit').finally(() => process.exit(0));
