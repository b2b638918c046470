/**
 * The server's own tables in PostgreSQL (beside the memory store's): the tenancy document, key
 * last-use times, rate-limit buckets, Idempotency-Keys, the event feeds, the webhooks with their deliveries, export and infer jobs, telemetry counts, the LLM token ledger and purges in flight, all shared by every replica. Versioned
 * like the store's schema (engine `migrate`), run at start.
 */
import { migrate, STORE_MIGRATIONS, type SqlClient } from '../engine/index.js';

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
  // The event feed (PgEventLog): one row per event, numbered under the project's head row.
  `CREATE TABLE ms_event_heads (project_id text PRIMARY KEY, last_seq bigint NOT NULL);
   CREATE TABLE ms_events (
     project_id text NOT NULL,
     seq bigint NOT NULL,
     event_id text NOT NULL,
     type text NOT NULL,
     status text NOT NULL,
     memory_id text,
     visible_to text,
     engine_seq bigint,
     subject_id text,
     redacted boolean NOT NULL DEFAULT false,
     data json,
     created_at text NOT NULL,
     PRIMARY KEY (project_id, seq)
   );
   CREATE UNIQUE INDEX ms_events_engine_seq ON ms_events (project_id, engine_seq) WHERE engine_seq IS NOT NULL;
   CREATE INDEX ms_events_memory ON ms_events (project_id, memory_id);`,
  // Webhooks (PgWebhooks) and their deliveries, claimed by any replica under a lease (PgWebhookDispatcher).
  `CREATE TABLE ms_webhooks (
     webhook_id text PRIMARY KEY,
     project_id text NOT NULL,
     url text NOT NULL,
     events json NOT NULL,
     description text,
     active boolean NOT NULL,
     secret text NOT NULL,
     member_id text NOT NULL,
     from_seq bigint NOT NULL,
     created_at text NOT NULL,
     updated_at text NOT NULL
   );
   CREATE INDEX ms_webhooks_project ON ms_webhooks (project_id);
   CREATE TABLE ms_deliveries (
     delivery_id text PRIMARY KEY,
     project_id text NOT NULL,
     webhook_id text NOT NULL REFERENCES ms_webhooks (webhook_id) ON DELETE CASCADE,
     event_id text NOT NULL,
     event_seq bigint,
     type text NOT NULL,
     status text NOT NULL,
     attempts json NOT NULL,
     next_at_ms float8,
     lease_owner text,
     lease_until_ms float8,
     created_at text NOT NULL,
     updated_at text NOT NULL,
     test boolean NOT NULL,
     UNIQUE (webhook_id, event_id)
   );
   CREATE INDEX ms_deliveries_due ON ms_deliveries (next_at_ms) WHERE status = 'PENDING';
   CREATE INDEX ms_deliveries_webhook ON ms_deliveries (webhook_id, delivery_id);`,
  // Export jobs with their NDJSON (PgExportJobs) and queued infer adds (PgInferJobs).
  `CREATE TABLE ms_export_jobs (
     export_id text PRIMARY KEY,
     project_id text NOT NULL,
     owner text NOT NULL,
     status text NOT NULL,
     created_at text NOT NULL,
     started_at text,
     finished_at text,
     count bigint NOT NULL,
     bytes bigint NOT NULL,
     error text,
     heartbeat_ms float8 NOT NULL
   );
   CREATE INDEX ms_export_jobs_project ON ms_export_jobs (project_id);
   CREATE TABLE ms_export_chunks (
     export_id text NOT NULL REFERENCES ms_export_jobs (export_id) ON DELETE CASCADE,
     n int NOT NULL,
     memory_ids text[] NOT NULL,
     data text NOT NULL,
     PRIMARY KEY (export_id, n)
   );
   CREATE INDEX ms_export_chunks_memory ON ms_export_chunks USING gin (memory_ids);
   CREATE TABLE ms_infer_jobs (
     job_id text PRIMARY KEY,
     project_id text NOT NULL,
     owner text NOT NULL,
     status text NOT NULL,
     created_at text NOT NULL,
     started_at text,
     finished_at text,
     results json,
     error text,
     input json,
     lease_owner text,
     lease_until_ms float8
   );
   CREATE INDEX ms_infer_jobs_open ON ms_infer_jobs (project_id) WHERE status IN ('PENDING', 'RUNNING');`,
  // Telemetry counts (PgTelemetryStore) and the LLM extractor's daily token ledger (PgTokenLedger).
  `CREATE TABLE ms_telemetry (project_id text PRIMARY KEY, since text NOT NULL, events_total bigint NOT NULL);
   CREATE TABLE ms_telemetry_events (
     project_id text NOT NULL,
     event text NOT NULL,
     plugin_version text NOT NULL,
     error_class text NOT NULL,
     count bigint NOT NULL,
     dur_count bigint NOT NULL,
     dur_total_ms float8 NOT NULL,
     dur_max_ms float8 NOT NULL,
     PRIMARY KEY (project_id, event, plugin_version, error_class)
   );
   CREATE TABLE ms_telemetry_runtimes (project_id text NOT NULL, os text NOT NULL, arch text NOT NULL, node_major int NOT NULL, count bigint NOT NULL, PRIMARY KEY (project_id, os, arch, node_major));
   CREATE TABLE ms_telemetry_installs (project_id text NOT NULL, hash text NOT NULL, PRIMARY KEY (project_id, hash));
   CREATE TABLE ms_llm_usage (day text PRIMARY KEY, used bigint NOT NULL, calls bigint NOT NULL);`,
  `CREATE TABLE ms_purge_intents (project_id text NOT NULL, memory_id text NOT NULL, at_ms float8 NOT NULL, PRIMARY KEY (project_id, memory_id));`,
  // Tokens taken by the last statement on a bucket: one statement takes the tokens of every request of a key that arrived together (PgRateLimiter).
  `ALTER TABLE ms_rate_buckets ADD COLUMN granted int NOT NULL DEFAULT 0;`,
];

export async function migrateServer(db: SqlClient): Promise<void> {
  await migrate(db, 'server', SERVER_MIGRATIONS);
  // The project stores' tables too (each PgStore would on open): every request reads a project's
  // store head (pgRequestGate), the first ones included.
  await migrate(db, 'store', STORE_MIGRATIONS);
}

/** The database's clock in epoch ms: replicas on machines with skewed clocks agree on it. */
export const DB_NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::float8`;
