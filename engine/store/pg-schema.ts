/**
 * PgStore's tables, as the store's migration steps (pg-migrate.ts runs each once per database).
 * Many stores share them, keyed by `store`: the version log with its current rows flagged
 * (`is_current`), the full-text postings and document frequencies, the change log replicas catch
 * up from, and one meta row per store (seq, change number, full-text totals).
 */
export const STORE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE ms_store_meta (
     store text PRIMARY KEY,
     last_seq bigint NOT NULL DEFAULT 0,
     change_no bigint NOT NULL DEFAULT 0,
     docs bigint NOT NULL DEFAULT 0,
     total_length bigint NOT NULL DEFAULT 0
   );
   CREATE TABLE ms_versions (
     store text NOT NULL,
     seq bigint NOT NULL,
     version_id text NOT NULL,
     memory_id text NOT NULL,
     version int NOT NULL,
     tx int NOT NULL,
     content text NOT NULL,
     content_hash text NOT NULL,
     user_id text NOT NULL,
     agent_id text, app_id text, run_id text, owner_id text,
     space text NOT NULL,
     repo text, dir text,
     category text NOT NULL,
     metadata json NOT NULL,
     source json NOT NULL,
     valid_from bigint NOT NULL,
     valid_to bigint,
     recorded_at bigint NOT NULL,
     created_at bigint NOT NULL,
     deleted boolean NOT NULL,
     block json,
     vector real[],
     embed_model text,
     is_current boolean NOT NULL DEFAULT false,
     PRIMARY KEY (store, memory_id, version_id),
     CONSTRAINT ms_versions_seq UNIQUE (store, seq) DEFERRABLE INITIALLY DEFERRED,
     CONSTRAINT ms_versions_memory_version UNIQUE (store, memory_id, version) DEFERRABLE INITIALLY DEFERRED
   );
   CREATE INDEX ms_versions_current ON ms_versions (store, seq DESC) WHERE is_current;
   CREATE INDEX ms_versions_version_id ON ms_versions (store, version_id);
   CREATE TABLE ms_postings (
     store text NOT NULL,
     term text NOT NULL,
     version_id text NOT NULL,
     memory_id text NOT NULL,
     tf int NOT NULL,
     doc_length int NOT NULL
   );
   CREATE INDEX ms_postings_term ON ms_postings (store, term);
   CREATE INDEX ms_postings_version ON ms_postings (store, version_id);
   CREATE TABLE ms_term_df (store text NOT NULL, term text NOT NULL, df int NOT NULL, PRIMARY KEY (store, term));
   CREATE TABLE ms_store_changes (store text NOT NULL, change_no bigint NOT NULL, memory_id text NOT NULL, PRIMARY KEY (store, change_no, memory_id));`,
  // stats() counts the current rows another model (or none) embedded through this index: a few
  // index probes, where reading every current row took ~300 ms at 100k.
  `CREATE INDEX ms_versions_current_model ON ms_versions (store, embed_model) WHERE is_current;`,
  // How the store's postings split text (TERMS_FORMAT, tokenize.ts); pg-reterm.ts brings older ones up to date on open.
  `ALTER TABLE ms_store_meta ADD COLUMN terms_format int NOT NULL DEFAULT 1;`,
];
