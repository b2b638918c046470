#!/usr/bin/env node
/** Claude Code Stop hook: capture (see hooks/lib/run.ts). Always exits 0. */
import { runHook } from './lib/run.js';

void runHook('capture', 'Stop').finally(() => process.exit(0));
