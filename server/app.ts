/**
 * The multi-tenant /v1 server: the engine's API behind API keys, one engine per project.
 * `createServer` builds everything without listening; `listen` binds TCP.
 */
import http from 'node:http';
import path from 'node:path';
import { Router, type RequestHandler } from 'express';
import { createApp, ExportJobs, httpError, IdempotencyStore, type ApiContext, type Permission } from '../api/index.js';
import { createEmbedder, silentLogger, type Config, type Embedder, type Logger, type PlannedRow } from '../engine/index.js';
import { authenticate, keyOf } from './auth.js';
import { EngineRegistry } from './engines.js';
import { TenancyStore } from './tenancy.js';

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
  engines: EngineRegistry;
  /** Set when this start created the first admin key (print it once). */
  bootstrap: { secret: string; project_id: string; org_id: string; key_id: string } | null;
  listen(port: number, host: string): Promise<{ url: string; server: http.Server }>;
  close(): Promise<void>;
}

export async function createServer(opts: ServerOptions): Promise<MemoryServer> {
  const logger = opts.logger ?? silentLogger;
  const tenancy = new TenancyStore(opts.dataDir);
  const boot = tenancy.bootstrap();
  const embedder =
    opts.embedder !== undefined
      ? opts.embedder
      : createEmbedder({ model: opts.config.model, modelDir: opts.config.modelDir, offline: opts.config.offline, cacheDir: path.join(opts.dataDir, 'models'), logger });
  const engines = new EngineRegistry({
    dataDir: opts.dataDir,
    embedder,
    logger,
    maxContentChars: opts.config.maxContentChars,
    maxMetadataBytes: opts.config.maxMetadataBytes,
  });
  const idempotency = new IdempotencyStore();
  const exportJobs = new Map<string, ExportJobs>();
  const exportsFor = (projectId: string): ExportJobs => {
    let j = exportJobs.get(projectId);
    if (!j) exportJobs.set(projectId, (j = new ExportJobs(path.join(engines.projectDir(projectId), 'exports'))));
    return j;
  };

  const context: RequestHandler = async (_req, res, next) => {
    const key = keyOf(res);
    const engine = await engines.get(key.project_id);
    const member = key.member_id;
    const ctx: ApiContext = {
      engine,
      principal: member,
      permissions: new Set<Permission>(key.permissions),
      readFilter: { personal_owner: member },
      ownerId: member,
      defaultUserId: null,
      exports: exportsFor(key.project_id),
      idempotency,
      importRewrite: (row: PlannedRow) => (row.space === 'personal' ? { ...row, owner_id: member } : row),
      limits: { pageSizeMax: opts.config.pageSizeMax },
    };
    res.locals.ctx = ctx;
    next();
  };

  const root = Router();
  root.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  root.get('/api/v1/verify', authenticate(tenancy), (_req, res) => {
    const key = keyOf(res);
    const project = tenancy.project(key.project_id);
    if (!project) throw httpError('UNAUTHORIZED', 'this key belongs to a project that no longer exists');
    res.json({ valid: true, key_id: key.key_id, org_id: project.org_id, project_id: key.project_id, member_id: key.member_id, scopes: key.permissions });
  });

  const app = createApp({
    bodyLimitBytes: opts.config.bodyLimitBytes,
    importLimitBytes: opts.config.importLimitBytes,
    before: [authenticate(tenancy), context],
    rootRouters: [root],
    logger,
  });

  const usageTimer = setInterval(() => tenancy.flushUsage(), 10_000);
  usageTimer.unref();
  const servers: http.Server[] = [];

  return {
    app,
    tenancy,
    engines,
    bootstrap: boot ? { secret: boot.secret, project_id: boot.project.project_id, org_id: boot.org.org_id, key_id: boot.key.key_id } : null,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        const server = http.createServer(app);
        server.keepAliveTimeout = 65_000;
        server.once('error', reject);
        server.listen(port, host, () => {
          servers.push(server);
          const addr = server.address() as { port: number };
          resolve({ url: `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`, server });
        });
      }),
    close: async () => {
      clearInterval(usageTimer);
      for (const s of servers) {
        await new Promise<void>((r) => {
          s.close(() => r());
          s.closeAllConnections();
        });
      }
      for (const j of exportJobs.values()) await j.idle();
      await engines.closeAll();
      if (opts.embedder === undefined) await embedder?.close();
      tenancy.flushUsage();
    },
  };
}
