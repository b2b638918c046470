/**
 * The /v1 express application without `listen()`. Hosts add their own middleware in `before`
 * (authentication, rate limits, setting `res.locals.ctx`) and extra routers in `routers`.
 */
import { randomUUID } from 'node:crypto';
import express, { type Express, type RequestHandler, type Router } from 'express';
import { silentLogger, type Logger } from '../engine/index.js';
import { errorMiddleware, notFoundRoute } from './errors.js';
import { httpError } from './http-error.js';
import { exportsRouter } from './exports.js';
import { memoriesRouter } from './memories.js';

export interface AppOptions {
  /** Largest JSON body (bytes); larger gets 413. */
  bodyLimitBytes: number;
  /** Largest NDJSON import body (bytes). */
  importLimitBytes: number;
  /** Middleware run before the /v1 routes (must set res.locals.ctx for them). */
  before: RequestHandler[];
  /** Extra routers mounted under /v1 after the memories routes (server: orgs, keys, events…). */
  routers?: Router[];
  /** Routers mounted at the root before /v1 (e.g. /api/v1/verify, /health). */
  rootRouters?: Router[];
  logger?: Logger;
}

/** A write with a body that is not JSON (NDJSON imports aside) gets 415, not a confusing 422. */
const requireJsonBodies: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.get('Content-Length') ?? 0) > 0 || req.get('Transfer-Encoding') !== undefined;
  if (!hasBody || req.method === 'GET' || req.method === 'DELETE' || req.path === '/imports' || req.is(['application/json', 'application/*+json'])) {
    next();
    return;
  }
  next(httpError('UNSUPPORTED_MEDIA_TYPE', 'send the request body as JSON with Content-Type: application/json'));
};

export function createApp(opts: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((req, res, next) => {
    const given = req.get('X-Request-Id');
    res.locals.requestId = given && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', String(res.locals.requestId));
    next();
  });
  for (const r of opts.rootRouters ?? []) app.use(r);
  const v1 = express.Router();
  v1.use(express.json({ limit: opts.bodyLimitBytes, type: ['application/json', 'application/*+json'] }));
  v1.use(requireJsonBodies);
  for (const mw of opts.before) v1.use(mw);
  v1.use(memoriesRouter());
  v1.use(exportsRouter({ importLimitBytes: opts.importLimitBytes }));
  for (const r of opts.routers ?? []) v1.use(r);
  app.use('/v1', v1);
  app.use(notFoundRoute);
  app.use(errorMiddleware(opts.logger ?? silentLogger));
  return app;
}
