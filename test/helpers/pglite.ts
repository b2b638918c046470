/**
 * PGlite (PostgreSQL in WASM) with pgvector, as a SqlClient: where the pgvector SQL path of the
 * Postgres stores runs its contract tests, since Debian's PostgreSQL has no pgvector package.
 * PGlite is a single connection, so transactions queue behind each other.
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { SqlClient, SqlQueryable } from '../../engine/index.js';

export async function pgliteClient(): Promise<SqlClient> {
  const db = new PGlite({ extensions: { vector } });
  await db.waitReady;
  const wrap = (q: { query: (text: string, params?: unknown[]) => Promise<{ rows: unknown[] }> }): SqlQueryable => ({
    query: async <R>(text: string, params?: readonly unknown[]) => {
      // PGlite's query() takes one statement; multi-statement migrations go through exec().
      if (!params && text.includes(';')) {
        await (q as unknown as { exec(t: string): Promise<unknown> }).exec(text);
        return { rows: [] as R[] };
      }
      return { rows: (await q.query(text, params ? [...params] : undefined)).rows as R[] };
    },
  });
  return {
    ...wrap(db as never),
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx as never))),
    close: () => db.close(),
  };
}
