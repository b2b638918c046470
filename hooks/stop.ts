#!/usr/bin/env node
/** Claude Code Stop hook: final capture, synchronous (see hooks/lib/run.ts). Always exits 0. */
import { runHook } from './lib/run.js';

void runHook('final', 'Stop').finally(() => process.exit(0));
