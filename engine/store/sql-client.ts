/**
 * The little of a PostgreSQL client the Postgres-backed stores need: parameterised queries and
 * transactions on one connection. One adapter wraps a `pg` pool (production); tests wrap PGlite
 * (PostgreSQL in WASM, with pgvector) the same way.
 */
import type PgModule from 'pg';
import { loadPg } from '../lazy-modules.js';

export interface SqlResult<R = Record<string, unknown>> {
  rows: R[];
}

export interface SqlQueryable {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
}

export interface SqlClient extends SqlQueryable {
  /** Run `fn` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A pooled client for a `postgres://` URL. */
export function pgPoolClient(url: string, opts: { max?: number; applicationName?: string } = {}): SqlClient {
  const pg = loadPg();
  // int8 arrives as a string by default; every count and epoch-ms we keep fits a double.
  const types = { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === pg.types.builtins.INT8 && format !== 'binary' ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) };
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10, application_name: opts.applicationName ?? 'memory-service', types: types as PgModule.CustomTypesConfig });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return {
    query: async <R>(text: string, params?: readonly unknown[]) => {
      const r = await pool.query(text, params as unknown[] | undefined);
      return { rows: r.rows as R[] };
    },
    transaction: async (fn) => {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const out = await fn({
          query: async <R>(text: string, params?: readonly unknown[]) => ({ rows: (await c.query(text, params as unknown[] | undefined)).rows as R[] }),
        });
        await c.query('COMMIT');
        return out;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        c.release();
      }
    },
    close: () => pool.end(),
  };
}
