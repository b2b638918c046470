/**
 * The multi-tenant /v1 server: the engine's API behind API keys, one project runtime (engine,
 * events, exports, webhooks, telemetry) per project. `createServer` builds everything without
 * listening; `listen` binds TCP.
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Router, type RequestHandler } from 'express';
import { answerClientErrors, createApp, IdempotencyStore } from '../api/index.js';
import { ConcurrencyGate, createEmbedder, extractorFor, ResidentBudget, silentLogger, tightenTree, type Config, type Embedder, type Logger } from '../engine/index.js';
import { authenticate, callerOfRes } from './auth.js';
import { projectContext } from './context.js';
import { lockDataDir } from './data-lock.js';
import { entityRoutes } from './entity-routes.js';
import { eventRoutes } from './event-routes.js';
import { keyRoutes } from './key-routes.js';
import { memberRoutes } from './member-routes.js';
import { orgRoutes } from './org-routes.js';
import { openPgBackend } from './pg-backend.js';
import { pgRequestGate } from './pg-tenancy.js';
import { ProjectRegistry } from './project-registry.js';
import { RateLimiter } from './rate-limit.js';
import { syncRoutes } from './sync-routes.js';
import { telemetryRoutes } from './telemetry-routes.js';
import { TenancyStore } from './tenancy.js';
import { webhookRoutes } from './webhook-routes.js';

/**
 * Searches the server works on at once, all projects together (the rest wait their turn at no
 * cost): enough to keep the model's thread and the main thread busy and to embed several queries
 * in one run (at 100k memories on 2 cores, 200 searches/s: a gate of 4 fell behind where one of 8
 * kept up), few enough that a write never waits behind more than these (engine `searchGate`).
 */
export function searchesAtOnce(): number {
  return Math.max(8, 4 * os.availableParallelism());
}

export interface ServerOptions {
  dataDir: string;
  config: Config;
  logger?: Logger;
  /** Overrides the embedder built from config (tests pass a small local model or null). */
  embedder?: Embedder | null;
}

export interface MemoryServer {
  app: ReturnType<typeof createApp>;
  tenancy: TenancyStore;
  projects: ProjectRegistry;
  /** Set when this start created the first admin key (print it once). */
  bootstrap: { secret: string; project_id: string; org_id: string; key_id: string } | null;
  listen(port: number, host: string): Promise<{ url: string; server: http.Server }>;
  close(): Promise<void>;
}

export async function createServer(opts: ServerOptions): Promise<MemoryServer> {
  const logger = opts.logger ?? silentLogger;
  const cfg = opts.config;
  const unlock = lockDataDir(opts.dataDir);
  try {
    // A data dir from an older build may be open to other users (0755 exports, 0644 logs and
    // state): close it to the owner before anything is served from it.
    const tightened = tightenTree(opts.dataDir);
    if (tightened.changed > 0) logger.info('data dir permissions tightened to owner-only', { changed: tightened.changed, skipped: tightened.skipped.slice(0, 5) });
    return await build(opts, logger, cfg, unlock);
  } catch (err) {
    unlock();
    throw err;
  }
}

async function build(opts: ServerOptions, logger: Logger, cfg: Config, unlock: () => void): Promise<MemoryServer> {
  const webhooks = { maxAttempts: cfg.webhookMaxAttempts, retryBaseMs: cfg.webhookRetryBaseMs, timeoutMs: cfg.webhookTimeoutMs, allowPrivate: cfg.webhookAllowPrivate };
  const pgb = cfg.databaseUrl ? await openPgBackend({ url: cfg.databaseUrl, dataDir: opts.dataDir, rateLimitPerMinute: cfg.rateLimitPerMinute, webhooks, logger }) : null;
  const tenancy = pgb ? pgb.tenancy : new TenancyStore(opts.dataDir);
  const boot = pgb ? await pgb.tenancy.bootstrapShared() : tenancy.bootstrap();
  const storage = pgb ? { backend: 'postgres', vector_path: pgb.vectorPath } : { backend: 'embedded', vector_path: 'lancedb' };
  const embedder =
    opts.embedder !== undefined ? opts.embedder : createEmbedder({ model: cfg.model, modelDir: cfg.modelDir, dtype: cfg.modelDtype, offline: cfg.offline, cacheDir: path.join(opts.dataDir, 'models'), logger, inWorker: true });
  const idempotency = pgb ? pgb.idempotency : new IdempotencyStore();
  const projects = new ProjectRegistry({
    dataDir: opts.dataDir,
    idempotency,
    embedder,
    extractor: extractorFor(cfg, opts.dataDir, embedder, logger, pgb?.tokenLedger),
    logger,
    maxContentChars: cfg.maxContentChars,
    maxMetadataBytes: cfg.maxMetadataBytes,
    webhooks,
    residentBudget: new ResidentBudget(cfg.residentSearchRows),
    searchGate: new ConcurrencyGate(searchesAtOnce()),
    openStore: pgb?.openStore,
    openEventLog: pgb?.openEventLog,
    openWebhooks: pgb?.openWebhooks,
    openJobs: pgb?.openJobs,
    openPurgeIntents: pgb?.openPurgeIntents,
    openTelemetry: pgb?.openTelemetry,
  });
  // Deliveries pending at the last stop, and events not yet fanned out, resume now.
  await projects.resumeWebhooks(tenancy.projects().map((p) => p.project_id));
  // Who calls, and a token from their rate bucket. With PostgreSQL, one statement that also adopts
  // tenancy changes other replicas committed and reads how far the project's store is.
  const gate: RequestHandler[] = pgb ? [pgRequestGate(pgb.tenancy, pgb.limiter)] : [authenticate(tenancy), new RateLimiter(cfg.rateLimitPerMinute).middleware()];

  const root = Router();
  root.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  root.get('/api/v1/verify', ...gate, (_req, res) => {
    const c = callerOfRes(res);
    res.json({ valid: true, key_id: c.key.key_id, org_id: c.org_id, project_id: c.project_id, member_id: c.member.member_id, role: c.member.role, scopes: c.permissions, storage });
  });

  const app = createApp({
    bodyLimitBytes: cfg.bodyLimitBytes,
    importLimitBytes: cfg.importLimitBytes,
    before: [...gate, projectContext(projects, idempotency, cfg)],
    routers: [
      eventRoutes(cfg.pageSizeMax),
      syncRoutes(),
      entityRoutes(cfg.pageSizeMax),
      webhookRoutes({ pageSizeMax: cfg.pageSizeMax, allowPrivate: cfg.webhookAllowPrivate }),
      telemetryRoutes(),
      orgRoutes(tenancy, cfg.pageSizeMax),
      memberRoutes(tenancy, cfg.pageSizeMax),
      keyRoutes(tenancy, cfg.pageSizeMax),
    ],
    rootRouters: [root],
    logger,
  });

  const usageTimer = setInterval(() => tenancy.flushUsage(), 10_000);
  usageTimer.unref();
  const servers: http.Server[] = [];
  let closed = false;

  return {
    app,
    tenancy,
    projects,
    bootstrap: boot ? { secret: boot.secret, project_id: boot.project.project_id, org_id: boot.org.org_id, key_id: boot.key.key_id } : null,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        const server = http.createServer(app);
        answerClientErrors(server);
        server.keepAliveTimeout = 65_000;
        server.once('error', reject);
        server.listen(port, host, () => {
          servers.push(server);
          const addr = server.address() as { port: number };
          resolve({ url: `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`, server });
        });
      }),
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(usageTimer);
      for (const s of servers) {
        await new Promise<void>((r) => {
          s.close(() => r());
          s.closeAllConnections();
        });
      }
      await projects.closeAll();
      if (opts.embedder === undefined) await embedder?.close();
      if (pgb) {
        await pgb.tenancy.writeUsage();
        await pgb.close();
      } else tenancy.flushUsage();
      unlock();
    },
  };
}
