/**
 * The server's own tables in PostgreSQL (beside the memory store's): the tenancy document, key
 * last-use times, rate-limit buckets and Idempotency-Keys, all shared by every replica. Versioned
 * like the store's schema (engine `migrate`), run at start.
 */
import { migrate, type SqlClient } from '../engine/index.js';

export const SERVER_MIGRATIONS: readonly string[] = [
  `CREATE TABLE ms_tenancy (id int PRIMARY KEY CHECK (id = 1), version bigint NOT NULL, doc json NOT NULL);
   INSERT INTO ms_tenancy (id, version, doc) VALUES (1, 0, '{"version":1,"orgs":[],"projects":[],"members":[],"keys":[]}');
   CREATE TABLE ms_key_usage (key_id text PRIMARY KEY, last_used_at text NOT NULL);
   CREATE TABLE ms_rate_buckets (key_id text PRIMARY KEY, tokens float8 NOT NULL, at_ms float8 NOT NULL, allowed boolean NOT NULL);
   CREATE TABLE ms_idempotency (
     id text PRIMARY KEY,
     fingerprint text NOT NULL,
     expires_ms bigint NOT NULL,
     status int,
     body json,
     headers json,
     claimed_ms bigint NOT NULL
   );
   CREATE INDEX ms_idempotency_expires ON ms_idempotency (expires_ms);`,
];

export async function migrateServer(db: SqlClient): Promise<void> {
  await migrate(db, 'server', SERVER_MIGRATIONS);
}

/** The database's clock in epoch ms: replicas on machines with skewed clocks agree on it. */
export const DB_NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::float8`;
