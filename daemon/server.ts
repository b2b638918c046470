/**
 * Runs a Daemon on its Unix socket: the engine's /v1 API (one local principal, guarded by the
 * socket's 0600 permissions) plus the daemon routes. `runDaemon` owns the whole process lifecycle:
 * lock, journal, socket, engine, signals, drain.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Router } from 'express';
import { createApp, ExportJobs, IdempotencyStore, type ApiContext, type Permission } from '../api/index.js';
import { comparableSettings, createEmbedder, createLogger, extractorFor, fileSink, type Config, type Embedder, type Extractor, type Logger, type Paths } from '../engine/index.js';
import { Daemon } from './daemon.js';
import { ImportProgress, type ImportHandle } from './import-progress.js';
import { acquireLock, releaseLock, removeSocket, type LockInfo } from './lifecycle.js';
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

const ALL: ReadonlySet<Permission> = new Set<Permission>(['read', 'write', 'admin']);

export async function startDaemon(opts: RunOptions): Promise<StartResult> {
  const { config, paths } = opts;
  fs.mkdirSync(paths.home, { recursive: true, mode: 0o700 });
  const logger = opts.logger ?? createLogger(fileSink({ file: path.join(paths.logDir, 'daemon.log') }), config.logLevel, 'daemon');
  const lock = await acquireLock(paths.lockFile, { pid: process.pid, started_at: new Date().toISOString(), socket: paths.socket, version: opts.version });
  if (!lock.acquired) return { started: false, holder: lock.holder };

  const embedder =
    opts.embedder !== undefined ? opts.embedder : createEmbedder({ model: config.model, modelDir: config.modelDir, dtype: config.modelDtype, offline: config.offline, cacheDir: paths.modelCache, logger });
  const extractor = opts.extractor ?? extractorFor(config, paths.stateDir, embedder, logger);
  const daemon = new Daemon({ config, paths, logger, embedder, extractor, version: opts.version });
  const telemetry = createTelemetry(config, opts.version, logger);
  daemon.openJournal();

  const exportsJobs = new ExportJobs(paths.exportsDir);
  const idempotency = new IdempotencyStore();
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
    before: [
      async (_req, res, next) => {
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

  removeSocket(paths.socket);
  const server = http.createServer(app);
  const idle = new IdleCollector(IDLE_COLLECT_MS, undefined, (c) => logger.debug('idle collection', { ms: Math.round(c.ms), rss_before_mb: Math.round(c.rssBefore / MIB), rss_after_mb: Math.round(c.rssAfter / MIB) }));
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    idle.begin();
    res.once('close', () => idle.end());
  });
  const oldMask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(paths.socket, () => resolve());
    });
  } finally {
    process.umask(oldMask);
  }
  fs.chmodSync(paths.socket, 0o600);
  logger.info('daemon listening', { socket: paths.socket, pid: process.pid });
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
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeIdleConnections();
      });
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
