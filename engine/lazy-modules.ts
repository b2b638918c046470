/**
 * Packages that load on first use rather than at start: the daemon answers on its socket before
 * it needs any of them (capture needs only the journal), and most daemons never talk to
 * PostgreSQL or, with sync and telemetry off, over HTTP at all. Both packages are CommonJS, so a
 * synchronous require loads them where they are first needed.
 */
import { createRequire } from 'node:module';
import type PgModule from 'pg';
import type * as Undici from 'undici';

const requireHere = createRequire(import.meta.url);

let pg: typeof PgModule | null = null;
let undici: typeof Undici | null = null;

export function loadPg(): typeof PgModule {
  pg ??= requireHere('pg') as typeof PgModule;
  return pg;
}

export function loadUndici(): typeof Undici {
  undici ??= requireHere('undici') as typeof Undici;
  return undici;
}
