/**
 * The little of a PostgreSQL client the Postgres-backed stores need: parameterised queries,
 * transactions on one connection, and (where the database has them) notifications. One adapter
 * wraps a `pg` pool (production); tests wrap PGlite (PostgreSQL in WASM, with pgvector) the same way.
 */
import pg from 'pg';

export interface SqlResult<R = Record<string, unknown>> {
  rows: R[];
}

export interface SqlQueryable {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
}

export interface SqlClient extends SqlQueryable {
  /** Run `fn` in one transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /** Call `onNotify` for every NOTIFY on `channel`; resolves to an unsubscribe. Absent: no notifications. */
  listen?(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

// int8 and numeric arrive as strings by default; every count and epoch-ms we keep fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** A pooled client for a `postgres://` URL. */
export function pgPoolClient(url: string, opts: { max?: number; applicationName?: string } = {}): SqlClient {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10, application_name: opts.applicationName ?? 'memory-service' });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let listenConn: Promise<pg.PoolClient> | null = null;
  const listenClient = (): Promise<pg.PoolClient> =>
    (listenConn ??= pool.connect().then((c) => {
      c.on('notification', (n) => {
        for (const f of listeners.get(n.channel) ?? []) f(n.payload ?? '');
      });
      c.on('error', () => {
        listenConn = null;
      });
      return c;
    }));
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
      const c = await listenClient();
      let set = listeners.get(channel);
      if (!set) {
        listeners.set(channel, (set = new Set()));
        await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      }
      set.add(onNotify);
      return async () => {
        set.delete(onNotify);
      };
    },
    close: async () => {
      const c = await listenConn?.catch(() => null);
      c?.release();
      await pool.end();
    },
  };
}
