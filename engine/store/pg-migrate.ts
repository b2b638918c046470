/**
 * Versioned schema migrations for PostgreSQL. Each component (the memory store, the server's
 * state) owns an ordered list of steps; a database records the steps it ran in `ms_migrations`.
 * Replicas starting together take one advisory lock, so each step runs exactly once.
 */
import type { SqlClient } from './sql-client.js';

/** Apply the steps of `component` the database has not run yet, each in its own transaction. */
export async function migrate(db: SqlClient, component: string, steps: readonly string[]): Promise<number> {
  await db.query(`CREATE TABLE IF NOT EXISTS ms_migrations (component text NOT NULL, version int NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (component, version))`).catch(async (err: unknown) => {
    // Two replicas creating the table at once: one wins, the other sees it now.
    const ok = await db.query(`SELECT 1 FROM ms_migrations LIMIT 1`).then(() => true, () => false);
    if (!ok) throw err;
  });
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('ms_migrations'))`);
    const done = await tx.query<{ v: number | null }>(`SELECT max(version) AS v FROM ms_migrations WHERE component = $1`, [component]);
    const from = Number(done.rows[0]?.v ?? 0);
    if (from > steps.length) throw new Error(`the database schema of ${component} is at version ${from}, newer than this build knows (${steps.length}): upgrade memory-service`);
    for (let v = from + 1; v <= steps.length; v++) {
      await tx.query(steps[v - 1]!);
      await tx.query(`INSERT INTO ms_migrations (component, version) VALUES ($1, $2)`, [component, v]);
    }
    return steps.length - from;
  });
}

/** Is pgvector installed in this database (installing it when the server offers it)? */
export async function ensurePgvector(db: SqlClient): Promise<boolean> {
  const has = async (): Promise<boolean> => (await db.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`)).rows.length > 0;
  if (await has()) return true;
  const available = (await db.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)).rows.length > 0;
  if (!available) return false;
  await db.query(`CREATE EXTENSION IF NOT EXISTS vector`).catch(() => {});
  return has();
}
