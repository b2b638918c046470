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
  /**
   * Call `onNotify` on every NOTIFY on `channel` (LISTEN on a connection of its own, reconnected
   * after a drop). Only a wake-up hint: notifications sent while disconnected are lost, so
   * listeners also poll. Resolves to a function that stops listening. Absent where unsupported.
   */
  listen?(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Wait before reconnecting a dropped LISTEN connection. */
const LISTEN_RETRY_MS = 2000;

/** A pooled client for a `postgres://` URL. */
export function pgPoolClient(url: string, opts: { max?: number; applicationName?: string } = {}): SqlClient {
  const pg = loadPg();
  // int8 arrives as a string by default; every count and epoch-ms we keep fits a double.
  const types = { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === pg.types.builtins.INT8 && format !== 'binary' ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) };
  const application_name = opts.applicationName ?? 'memory-service';
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10, application_name, types: types as PgModule.CustomTypesConfig });
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
    listen: async (channel, onNotify) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
      let client: PgModule.Client | null = null;
      let stopped = false;
      let retry: NodeJS.Timeout | null = null;
      const connect = async (): Promise<void> => {
        const c = new pg.Client({ connectionString: url, application_name: `${application_name} listen` });
        const again = (): void => {
          if (stopped || client !== c) return;
          client = null;
          c.end().catch(() => {});
          retry = setTimeout(() => void connect().catch(() => {}), LISTEN_RETRY_MS);
          retry.unref();
          onNotify(); // what was missed meanwhile is found by the listener's next look
        };
        c.on('error', again);
        c.on('end', again);
        c.on('notification', (n) => {
          if (n.channel === channel) onNotify();
        });
        client = c;
        try {
          await c.connect();
          await c.query(`LISTEN ${channel}`);
        } catch {
          again(); // retried in the background; the listener polls meanwhile
        }
      };
      await connect();
      return async () => {
        stopped = true;
        if (retry) clearTimeout(retry);
        const c = client;
        client = null;
        await c?.end().catch(() => {});
      };
    },
    close: () => pool.end(),
  };
}
