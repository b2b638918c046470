/**
 * `SERVICE_DATABASE_URL`: the pieces of the server that keep their state in PostgreSQL instead of
 * the data directory: one pool, the schema migrated at start, the project stores (PgStore, one
 * per project in shared tables), the event feeds, webhooks and their deliveries, tenancy, rate
 * limits and Idempotency-Keys.
 */
import type { InferInput } from '../api/index.js';
import { ensurePgvector, PgStore, PURGE_CHANNEL, pgPoolClient, type IngestResult, type Logger, type MemoryStore, type SqlClient } from '../engine/index.js';
import type { ProjectEventLog } from './event-log.js';
import { PgEventLog } from './pg-event-log.js';
import { PgExportJobs } from './pg-export-jobs.js';
import { PgInferJobs } from './pg-infer-jobs.js';
import { PgIdempotencyStore } from './pg-idempotency.js';
import { PgPurgeIntents } from './pg-purge-intents.js';
import { PgRateLimiter } from './pg-rate-limit.js';
import { migrateServer } from './pg-state.js';
import { PgTelemetryStore } from './pg-telemetry.js';
import { PgTokenLedger } from './pg-token-ledger.js';
import { PgTenancyStore } from './pg-tenancy.js';
import { PgWebhookDispatcher } from './pg-webhook-dispatcher.js';
import { ACTIVE_WEBHOOKS_SQL, fanOutDeliveries, PgWebhooks } from './pg-webhooks.js';
import { TenancyStore } from './tenancy.js';
import type { JobHooks, ProjectJobs } from './project-runtime.js';
import type { DispatcherOptions } from './webhook-send.js';

export type VectorPath = 'pgvector' | 'resident';

/** A project's jobs in the database (a purge erases through their own `erase`). */
export interface PgProjectJobs extends ProjectJobs {
  exports: PgExportJobs;
  inferJobs: PgInferJobs<InferInput, IngestResult[]>;
}

export interface PgBackend {
  db: SqlClient;
  tenancy: PgTenancyStore;
  limiter: PgRateLimiter;
  idempotency: PgIdempotencyStore;
  vectorPath: VectorPath;
  /** The LLM extractor's daily token use, one budget for all replicas. */
  tokenLedger: PgTokenLedger;
  openStore(projectId: string, dim: number, logger: Logger): MemoryStore;
  openEventLog(projectId: string): Promise<PgEventLog>;
  openWebhooks(projectId: string, log: ProjectEventLog): PgWebhooks;
  openJobs(projectId: string, hooks: JobHooks, log: ProjectEventLog): PgProjectJobs;
  openTelemetry(projectId: string): PgTelemetryStore;
  openPurgeIntents(projectId: string): PgPurgeIntents;
  close(): Promise<void>;
}

/** The URL with its password masked, for logs and errors. */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}

/**
 * The tenancy records of a server for the CLI (`service keys`, `service orgs`): the data dir's
 * file, or the database when `databaseUrl` is set. Call `commit()` before reporting a change.
 */
export async function openTenancyStore(dir: string, databaseUrl: string): Promise<TenancyStore> {
  if (!databaseUrl) return new TenancyStore(dir);
  checkDatabaseUrl(databaseUrl);
  const db = pgPoolClient(databaseUrl, { max: 2, applicationName: 'memory-service cli' });
  try {
    await migrateServer(db);
    const t = await PgTenancyStore.open(db, dir, true);
    if (t.empty) await t.bootstrapShared();
    return t;
  } catch (err) {
    await db.close().catch(() => {});
    throw new Error(`cannot use the database at ${redactDatabaseUrl(databaseUrl)}: ${(err as Error).message}`);
  }
}

function checkDatabaseUrl(url: string): void {
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new Error('SERVICE_DATABASE_URL must be a postgres:// (or postgresql://) URL, e.g. postgres://user:password@db.example.com:5432/memory');
}

export async function openPgBackend(o: { url: string; dataDir: string; rateLimitPerMinute: number; webhooks: Omit<DispatcherOptions, 'logger'>; logger: Logger; poolSize?: number }): Promise<PgBackend> {
  checkDatabaseUrl(o.url);
  const db = pgPoolClient(o.url, { max: o.poolSize ?? 20, applicationName: 'memory-service serve' });
  try {
    await db.query('SELECT 1').catch((err: unknown) => {
      throw new Error(`cannot reach the database at ${redactDatabaseUrl(o.url)}: ${(err as Error).message}`);
    });
    await migrateServer(db);
    const vectorPath: VectorPath = (await ensurePgvector(db)) ? 'pgvector' : 'resident';
    o.logger.info('server state in PostgreSQL', { database: redactDatabaseUrl(o.url), vector_path: vectorPath });
    if (vectorPath === 'resident') o.logger.warn('pgvector is not installed in the database: each replica serves vector search from its in-memory view (CREATE EXTENSION vector to search in the database)');
    const tenancy = await PgTenancyStore.open(db, o.dataDir);
    // Every replica sends the deliveries of every project, claimed one at a time from the database.
    const dispatcher = new PgWebhookDispatcher(db, { ...o.webhooks, logger: o.logger.child('webhooks') });
    await dispatcher.start();
    const fanOut = { read: ACTIVE_WEBHOOKS_SQL, inTransaction: fanOutDeliveries, committed: () => dispatcher.kick() };
    // A purge through any replica: every replica's resident view drops the erased rows at once.
    const stores = new Map<string, PgStore>();
    const refreshAll = (): void => {
      for (const s of stores.values()) void s.refresh().catch((err: unknown) => o.logger.warn('could not refresh a resident view after a purge', { err }));
    };
    const unlisten = vectorPath === 'resident' && db.listen ? await db.listen(PURGE_CHANNEL, refreshAll) : null;
    return {
      db,
      tenancy,
      limiter: new PgRateLimiter(db, o.rateLimitPerMinute),
      idempotency: new PgIdempotencyStore(db),
      vectorPath,
      tokenLedger: new PgTokenLedger(db),
      openStore: (projectId, dim, logger) => {
        const s = new PgStore({ db, store: projectId, dim, logger });
        stores.set(projectId, s);
        return s;
      },
      openEventLog: (projectId) => PgEventLog.open(db, projectId, fanOut),
      openWebhooks: (projectId, log) => new PgWebhooks(db, projectId, log, dispatcher),
      openTelemetry: (projectId) => new PgTelemetryStore(db, projectId),
      openPurgeIntents: (projectId) => new PgPurgeIntents(db, projectId),
      openJobs: (projectId, hooks, log) => {
        if (!(log instanceof PgEventLog)) throw new Error(`project ${projectId}: export jobs in PostgreSQL need its event log there too`);
        // A status and its event commit together; the log adopts the event at its next flush.
        const exports = new PgExportJobs(db, projectId, { record: (tx, job) => log.writeIn(tx, [hooks.exportEvent(job)]), committed: () => void log.flush().catch(() => {}) });
        const inferJobs = new PgInferJobs<InferInput, IngestResult[]>(db, projectId, hooks.runInfer, hooks.inferChanged, hooks.logger);
        return {
          exports,
          inferJobs,
          close: async () => {
            await exports.idle();
            await inferJobs.close();
          },
        };
      },
      close: async () => {
        await unlisten?.();
        await dispatcher.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
