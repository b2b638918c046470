#!/usr/bin/env node
/** Claude Code PreCompact hook: capture (see hooks/lib/run.ts). Always exits 0. */
import { runHook } from './lib/run.js';

void runHook('capture', 'PreCompact').finally(() => process.exit(0));
