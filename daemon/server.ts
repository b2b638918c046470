/**
 * Runs a Daemon on its Unix socket: the engine's /v1 API (one local principal, guarded by the
 * socket's 0600 permissions) plus the daemon routes. `runDaemon` owns the whole process lifecycle:
 * lock, journal, socket, engine, signals, drain.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Router } from 'express';
import { answerClientErrors, createApp, ExportJobs, IdempotencyStore, type ApiContext, type Permission } from '../api/index.js';
import { comparableSettings, createEmbedder, createLogger, DATA_SCHEMA_VERSION, extractorFor, fileSink, tightenTree, type Config, type Embedder, type Extractor, type Logger, type Paths } from '../engine/index.js';
import { Daemon } from './daemon.js';
import { ImportProgress, type ImportHandle } from './import-progress.js';
import { acquireLock, releaseLock, removeSocket, type LockInfo } from './lifecycle.js';
import { preparePrivateDir } from './socket-trust.js';
import { collectAfterStartup, IDLE_COLLECT_MS, IdleCollector } from './process-env.js';
import { daemonRouter } from './routes.js';
import { createTelemetry } from './telemetry.js';

export interface RunOptions {
  config: Config;
  paths: Paths;
  version: string;
  /** Override the embedder built from config (tests pass the tiny local model). */
  embedder?: Embedder | null;
  extractor?: Extractor;
  logger?: Logger;
}

export interface RunningDaemon {
  daemon: Daemon;
  server: http.Server;
  /** Resolves when the daemon has stopped. */
  stopped: Promise<void>;
  stop(): Promise<void>;
}

export type StartResult = { started: true; running: RunningDaemon } | { started: false; holder: LockInfo };

const MIB = 1024 * 1024;
/** How often the daemon checks that its socket file is still there. */
const SOCKET_CHECK_MS = 1000;

function socketPresent(file: string): boolean {
  try {
    return fs.lstatSync(file).isSocket();
  } catch {
    return false;
  }
}

/** Daemon routes that work (or say why not) while the store cannot open: no ctx.engine for them. */
const ENGINE_FREE_ROUTES: ReadonlySet<string> = new Set(['/capture', '/recall', '/status', '/flush', '/pause', '/resume', '/sync/status', '/remember', '/local/search', '/sync/now']);

const ALL: ReadonlySet<Permission> = new Set<Permission>(['read', 'write', 'admin']);

/**
 * A data dir this daemon is the first to use is in the current layout: record its schema version,
 * so `plugin status` does not take it for an old one that needs migrating. One that already holds
 * a store or a journal but no schema file is an old one, left for `plugin install|update`.
 */
export function stampNewDataDir(paths: Paths): void {
  if (fs.existsSync(paths.schemaFile) || fs.existsSync(paths.lanceDir) || fs.existsSync(paths.journalDir)) return;
  const doc = { version: DATA_SCHEMA_VERSION, updated_at: new Date().toISOString(), applied: [], created_by: 'daemon' };
  fs.writeFileSync(paths.schemaFile, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
}

export async function startDaemon(opts: RunOptions): Promise<StartResult> {
  const { config, paths } = opts;
  fs.mkdirSync(paths.home, { recursive: true, mode: 0o700 });
  const logger = opts.logger ?? createLogger(fileSink({ file: path.join(paths.logDir, 'daemon.log') }), config.logLevel, 'daemon');
  const lock = await acquireLock(paths.lockFile, { pid: process.pid, started_at: new Date().toISOString(), socket: paths.socket, version: opts.version });
  if (!lock.acquired) return { started: false, holder: lock.holder };
  // A home from an older build may be open to other users (0755 exports, logs, state): close it.
  const tightened = tightenTree(paths.home);
  if (tightened.changed > 0) logger.info('data dir permissions tightened to owner-only', { changed: tightened.changed, skipped: tightened.skipped.slice(0, 5) });
  stampNewDataDir(paths);

  const embedder =
    opts.embedder !== undefined ? opts.embedder : createEmbedder({ model: config.model, modelDir: config.modelDir, dtype: config.modelDtype, offline: config.offline, cacheDir: paths.modelCache, logger });
  const extractor = opts.extractor ?? extractorFor(config, paths.stateDir, embedder, logger);
  const daemon = new Daemon({ config, paths, logger, embedder, extractor, version: opts.version });
  const telemetry = createTelemetry(config, opts.version, logger);
  daemon.openJournal();
  // Events hooks spooled while no daemon answered go in before new ones (the lock is ours).
  await daemon.ingestSpool();

  // An export that fails reading the store may have met damage done since the store opened.
  const exportsJobs = new ExportJobs(
    paths.exportsDir,
    (job) => {
      if (job.status === 'FAILED' && job.error) daemon.storeFailed(new Error(job.error));
    },
    { keep: config.exportKeep },
  );
  const idempotency = new IdempotencyStore();
  // A purge (forget --purge, DELETE …?purge=true, or one pulled from the server) leaves no copy
  // in a finished export, nor in a response an Idempotency-Key would replay.
  daemon.engine.onPurge(async (ids, phase) => {
    if (phase !== 'after') return;
    await exportsJobs.erase(ids);
    await idempotency.erase(ids);
  });
  const imports = new ImportProgress();
  const root = Router();
  root.get('/health', (_req, res) => {
    res.json({ ok: true, pid: process.pid, version: opts.version });
  });
  const app = createApp({
    bodyLimitBytes: config.bodyLimitBytes,
    importLimitBytes: config.importLimitBytes,
    rootRouters: [root],
    logger,
    onServerError: (err) => daemon.storeFailed(err),
    before: [
      async (req, res, next) => {
        // The daemon's own routes reach the engine themselves (capture needs only the journal).
        if (ENGINE_FREE_ROUTES.has(req.path)) {
          next();
          return;
        }
        // Only an import calls these: its progress is tracked until its request closes.
        let importRun: ImportHandle | null = null;
        const ctx: ApiContext = {
          engine: await daemon.ready(),
          principal: 'local',
          permissions: ALL,
          readFilter: {},
          ownerId: config.userId,
          defaultUserId: config.userId,
          exports: exportsJobs,
          idempotency,
          extractor,
          limits: { pageSizeMax: config.pageSizeMax },
          importGuard: async (rows) => {
            importRun = imports.begin(rows.length);
            res.once('close', () => importRun?.done());
          },
          importRewrite: (row) => {
            importRun?.advance();
            return row;
          },
        };
        res.locals.ctx = ctx;
        next();
      },
    ],
    routers: [daemonRouter(daemon, { version: opts.version, defaultScope: config.searchScope, topK: config.topK, telemetry, jobs: { exports: exportsJobs, imports }, settings: comparableSettings(config) })],
  });

  // The data dir (memories, journal, exports, logs) and the socket's directory admit this user only.
  preparePrivateDir(paths.home);
  preparePrivateDir(path.dirname(paths.socket));
  removeSocket(paths.socket);
  const idle = new IdleCollector(IDLE_COLLECT_MS, undefined, (c) => logger.debug('idle collection', { ms: Math.round(c.ms), rss_before_mb: Math.round(c.rssBefore / MIB), rss_after_mb: Math.round(c.rssAfter / MIB) }));
  /** Every listener this daemon opened (a new one each time its socket file was deleted). */
  const servers: http.Server[] = [];
  const listen = async (): Promise<http.Server> => {
    const srv = http.createServer(app);
    answerClientErrors(srv);
    srv.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
      idle.begin();
      res.once('close', () => idle.end());
    });
    const oldMask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(paths.socket, () => resolve());
      });
    } finally {
      process.umask(oldMask);
    }
    fs.chmodSync(paths.socket, 0o600);
    servers.push(srv);
    return srv;
  };
  const server = await listen();
  logger.info('daemon listening', { socket: paths.socket, pid: process.pid });
  // The lock says this daemon runs; a socket file deleted under it (a cleanup script, a second
  // starter) is re-created, so hooks reach it again instead of starting another daemon.
  let relistening = false;
  const socketWatch = setInterval(() => {
    if (relistening || socketPresent(paths.socket)) return;
    relistening = true;
    logger.warn('the socket file was deleted while the daemon ran; re-creating it', { socket: paths.socket });
    listen().then(
      () => {
        daemon.lastError = { at: new Date().toISOString(), message: `the socket ${paths.socket} was deleted while the daemon ran; it was re-created` };
        daemon.health.clear('socket');
      },
      (err: unknown) => {
        daemon.health.report('socket', `the socket ${paths.socket} was deleted and could not be re-created: ${err instanceof Error ? err.message : String(err)}`, 'service daemon restart');
        logger.error('could not re-create the socket', { err });
      },
    ).finally(() => (relistening = false));
  }, SOCKET_CHECK_MS);
  socketWatch.unref();
  void daemon.openEngine().then(collectAfterStartup, (err: unknown) => logger.error('engine failed to open', { err }));
  embedder?.onState((s) => {
    if (s.status === 'ready') collectAfterStartup();
  });

  let stopping: Promise<void> | null = null;
  let markStopped: () => void = () => {};
  const stopped = new Promise<void>((r) => (markStopped = r));
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      logger.info('daemon stopping');
      clearInterval(socketWatch);
      await Promise.all(
        servers.map(
          (srv) =>
            new Promise<void>((r) => {
              srv.close(() => r());
              srv.closeIdleConnections();
            }),
        ),
      );
      idle.stop();
      await exportsJobs.idle();
      await daemon.stop();
      await telemetry?.close();
      if (opts.embedder === undefined) await embedder?.close().catch(() => {});
      removeSocket(paths.socket);
      releaseLock(paths.lockFile);
      logger.info('daemon stopped');
      markStopped();
    })();
    return stopping;
  };
  return { started: true, running: { daemon, server, stopped, stop } };
}
