/**
 * LanceDB and Apache Arrow, loaded when a LanceStore opens rather than when the engine is
 * imported: together they cost ~200 ms of start-up that CLI commands talking to the daemon, the
 * MCP server and `--help` never need.
 */
import { createRequire } from 'node:module';
import type * as LanceDB from '@lancedb/lancedb';
import type * as Arrow from 'apache-arrow';

let lanceModule: typeof LanceDB | null = null;
let arrowModule: typeof Arrow | null = null;

/** Load both libraries (idempotent). LanceStore.open() awaits it before any other use. */
export async function loadLanceRuntime(): Promise<void> {
  lanceModule ??= await import('@lancedb/lancedb');
  arrowModule ??= await import('apache-arrow');
}

function loaded<T>(mod: T | null, name: string): T {
  if (!mod) throw new Error(`${name} is used before LanceStore.open() loaded it`);
  return mod;
}

/** The LanceDB module (after loadLanceRuntime). */
export function lance(): typeof LanceDB {
  return loaded(lanceModule, '@lancedb/lancedb');
}

/** The Apache Arrow module (after loadLanceRuntime). */
export function arrowLib(): typeof Arrow {
  return loaded(arrowModule, 'apache-arrow');
}

let arrowOfLance: typeof Arrow | null = null;

/**
 * Apache Arrow as LanceDB loads it (its CommonJS build, another module instance than the one
 * `import` gives): Arrow tables handed to LanceDB are built with it, or they fail LanceDB's
 * `instanceof` checks and its rebuild of them. LanceDB has loaded it by then, so this costs nothing.
 */
export function lanceArrow(): typeof Arrow {
  arrowOfLance ??= createRequire(import.meta.url)('apache-arrow') as typeof Arrow;
  return arrowOfLance;
}
