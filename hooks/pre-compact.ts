#!/usr/bin/env node
/** Claude Code PreCompact hook: final capture, synchronous (see hooks/lib/run.ts). Always exits 0. */
import { runHook } from './lib/run.js';

void runHook('final', 'PreCompact').finally(() => process.exit(0));
