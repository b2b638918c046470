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
  /** Told of every error answered with a 5xx (the daemon re-checks its store on one). */
  onServerError?: (err: unknown) => void;
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

/** Deepest JSON body accepted: far beyond any request shape, far below a stack overflow. */
const MAX_BODY_DEPTH = 64;

/** Nesting depth of a parsed JSON value, without recursion (a hostile body may nest 10,000 deep). */
function depthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d >= max) return true;
    for (const child of Object.values(v as Record<string, unknown>)) stack.push([child, d + 1]);
  }
  return false;
}

const refuseDeepBodies: RequestHandler = (req, _res, next) => {
  if (req.body !== null && typeof req.body === 'object' && depthExceeds(req.body, MAX_BODY_DEPTH)) {
    next(httpError('VALIDATION_FAILED', `the request body nests deeper than ${MAX_BODY_DEPTH} levels`, { issues: [{ path: '', message: `nests deeper than ${MAX_BODY_DEPTH} levels` }] }));
    return;
  }
  next();
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
  v1.use(refuseDeepBodies);
  for (const mw of opts.before) v1.use(mw);
  v1.use(memoriesRouter());
  v1.use(exportsRouter({ importLimitBytes: opts.importLimitBytes }));
  for (const r of opts.routers ?? []) v1.use(r);
  app.use('/v1', v1);
  app.use(notFoundRoute);
  app.use(errorMiddleware(opts.logger ?? silentLogger, opts.onServerError));
  return app;
}
