/**
 * Everything the server keeps for one project, opened together: its engine (own LanceDB
 * directory, so no query can reach another project's rows), event log, export jobs, webhooks
 * with their outbox and dispatcher, telemetry counts and the entity index.
 *
 * Layout under `projects/<project_id>/`: `lance/`, `events/`, `exports/`, `webhooks/`,
 * `telemetry.json`.
 */
import path from 'node:path';
import { ExportJobs, inferMemories, InferJobs, type ExportJob, type ExportJobStore, type IdempotencyStore, type InferInput, type InferJob, type InferJobStore } from '../api/index.js';
import { LanceStore, MemoryEngine, type ConcurrencyGate, type ResidentBudget, type Embedder, type Extractor, type IngestResult, type Logger, type MemoryStore } from '../engine/index.js';
import { EntityIndex } from './entities.js';
import { EventLog, type ProjectEventLog } from './event-log.js';
import type { EventInput } from './event-types.js';
import { ProjectEvents } from './project-events.js';
import { FilePurgeIntents, type PurgeIntents } from './purge-intents.js';
import { TelemetryStore, type TelemetryCounts } from './telemetry.js';
import { WebhookDispatcher, type DispatcherOptions } from './webhook-dispatcher.js';
import { DeliveryOutbox } from './webhook-outbox.js';
import { FileWebhooks, type ProjectWebhooks } from './webhook-registry.js';
import { WebhookStore } from './webhook-store.js';

export interface ProjectOptions {
  dir: string;
  projectId: string;
  embedder: Embedder | null;
  extractor: Extractor;
  logger: Logger;
  maxContentChars: number;
  maxMetadataBytes: number;
  webhooks: Omit<DispatcherOptions, 'logger'>;
  /** Rows all projects of the server may hold in memory for searching (shared). */
  residentBudget: ResidentBudget;
  /** Searches of all projects of the server run through this gate (engine `searchGate`). */
  searchGate?: ConcurrencyGate | undefined;
  /** The project's store when not the embedded LanceDB one (SERVICE_DATABASE_URL: PostgreSQL). */
  openStore?: ((projectId: string, dim: number, logger: Logger) => MemoryStore) | undefined;
  /** The server's Idempotency-Key responses: a purge drops those that carried the memory. */
  idempotency?: IdempotencyStore | undefined;
  /** The project's event feed when not the embedded file (SERVICE_DATABASE_URL: PostgreSQL). */
  openEventLog?: ((projectId: string) => Promise<ProjectEventLog>) | undefined;
  /** The project's webhooks when not the embedded files (SERVICE_DATABASE_URL: PostgreSQL, sent by the server-wide dispatcher). */
  openWebhooks?: ((projectId: string, log: ProjectEventLog) => ProjectWebhooks) | undefined;
  /** The project's export and infer jobs when not files in the data dir (SERVICE_DATABASE_URL: PostgreSQL). */
  openJobs?: ((projectId: string, with_: JobHooks, log: ProjectEventLog) => ProjectJobs) | undefined;
  /** The project's purges in flight when not a file in `events/` (SERVICE_DATABASE_URL: PostgreSQL, completed by any replica). */
  openPurgeIntents?: ((projectId: string) => PurgeIntents) | undefined;
  /** The project's telemetry counts when not `telemetry.json` (SERVICE_DATABASE_URL: PostgreSQL). */
  openTelemetry?: ((projectId: string) => TelemetryCounts) | undefined;
}

/** What the job stores report to and run. */
export interface JobHooks {
  exportChanged(job: ExportJob): void;
  /** The event of an export status, for a job store that writes it with the status. */
  exportEvent(job: ExportJob): EventInput;
  runInfer(input: InferInput): Promise<IngestResult[]>;
  inferChanged(job: InferJob<InferInput, IngestResult[]>): void;
  logger: Logger;
}

export interface ProjectJobs {
  exports: ExportJobStore;
  inferJobs: InferJobStore<InferInput, IngestResult[]>;
  /** Wait for the jobs this process runs, stop looking for more. */
  close(): Promise<void>;
}

export interface ProjectRuntime {
  projectId: string;
  engine: MemoryEngine;
  events: ProjectEvents;
  log: ProjectEventLog;
  exports: ExportJobStore;
  inferJobs: InferJobStore<InferInput, IngestResult[]>;
  extractor: Extractor;
  webhooks: ProjectWebhooks;
  telemetry: TelemetryCounts;
  entities: EntityIndex;
  close(): Promise<void>;
}

export async function openProject(o: ProjectOptions): Promise<ProjectRuntime> {
  const logger = o.logger.child(`project:${o.projectId.slice(-8)}`);
  const engine = new MemoryEngine({
    store: o.openStore
      ? o.openStore(o.projectId, o.embedder?.dim ?? 384, logger)
      : new LanceStore({ dir: path.join(o.dir, 'lance'), dim: o.embedder?.dim ?? 384, logger, residentBudget: o.residentBudget }),
    embedder: o.embedder,
    logger,
    maxContentChars: o.maxContentChars,
    maxMetadataBytes: o.maxMetadataBytes,
    searchGate: o.searchGate,
  });
  await engine.open();
  const opened: { close(): Promise<void> }[] = [engine];
  try {
    const log = o.openEventLog ? await o.openEventLog(o.projectId) : await EventLog.open(path.join(o.dir, 'events'));
    opened.unshift(log);
    const eventsDir = path.join(o.dir, 'events');
    const events = new ProjectEvents(log, engine, eventsDir, o.openPurgeIntents ? o.openPurgeIntents(o.projectId) : new FilePurgeIntents(eventsDir));
    await events.open();
    const hooks: JobHooks = {
      exportChanged: (job) => events.exportChanged(job),
      exportEvent: (job) => events.exportEvent(job),
      runInfer: (input) => inferMemories(engine, o.extractor, input),
      inferChanged: (job) => events.inferChanged(job),
      logger: logger.child('jobs'),
    };
    const jobs = o.openJobs ? o.openJobs(o.projectId, hooks, log) : fileJobs(o.dir, hooks, events);
    const { exports, inferJobs } = jobs;
    // A purge erases the memory from finished exports and infer results too (and the events that
    // carried them); a purge a crash interrupted is completed here.
    await events.eraseWith(async (ids) => {
      await exports.erase(ids);
      await o.idempotency?.erase(ids);
      return new Set(await inferJobs.erase(ids));
    });
    const webhooks = o.openWebhooks ? o.openWebhooks(o.projectId, log) : await openFileWebhooks(path.join(o.dir, 'webhooks'), log, { ...o.webhooks, logger: logger.child('webhooks') });
    opened.unshift(webhooks);
    const telemetry = o.openTelemetry ? o.openTelemetry(o.projectId) : new TelemetryStore(path.join(o.dir, 'telemetry.json'));
    return {
      projectId: o.projectId,
      engine,
      events,
      log,
      exports,
      inferJobs,
      extractor: o.extractor,
      webhooks,
      telemetry,
      entities: new EntityIndex(engine),
      close: async () => {
        await webhooks.close();
        await jobs.close();
        await engine.close();
        await log.close();
        telemetry.flush();
      },
    };
  } catch (err) {
    // Nothing half-open stays behind: the next request opens the project afresh.
    for (const r of opened) await r.close().catch(() => {});
    throw err;
  }
}

/** The embedded webhooks of a project: registry and outbox in `webhooks/`, sent by this process. */
async function openFileWebhooks(dir: string, log: ProjectEventLog, opts: DispatcherOptions): Promise<FileWebhooks> {
  const store = new WebhookStore(dir);
  const outbox = await DeliveryOutbox.open(dir);
  const dispatcher = new WebhookDispatcher(store, outbox, log, opts);
  try {
    await dispatcher.start();
  } catch (err) {
    await dispatcher.close().catch(() => {});
    await outbox.close().catch(() => {});
    throw err;
  }
  return new FileWebhooks(store, outbox, dispatcher, log);
}

/** The embedded jobs of a project: `exports/` and `jobs/` in its directory. */
function fileJobs(dir: string, hooks: JobHooks, events: ProjectEvents): ProjectJobs {
  const exports = new ExportJobs(path.join(dir, 'exports'), hooks.exportChanged);
  events.reconcileExports(exports.list());
  const inferJobs = new InferJobs<InferInput, IngestResult[]>(path.join(dir, 'jobs'), hooks.runInfer, hooks.inferChanged);
  return {
    exports,
    inferJobs,
    close: async () => {
      await exports.idle();
      await inferJobs.idle();
    },
  };
}
