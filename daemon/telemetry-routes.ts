/**
 * Telemetry on the daemon's socket: a middleware that times the daemon routes agents use (hooks,
 * recall, search, remember, pause) and records one event per request, and the route through which
 * the CLI hands over its command outcomes. Event names never carry request content.
 */
import type { Request, RequestHandler, Router } from 'express';
import { z } from 'zod';
import { parseBody } from '../api/index.js';
import { SCOPES } from '../engine/index.js';
import { CAPTURE_EVENTS } from './capture.js';
import { ERROR_CLASS, EVENT_NAME, type Telemetry } from './telemetry.js';

/** SessionStart → session_start; anything that is not a known hook event → other. */
function hookName(v: unknown): string {
  const name = (CAPTURE_EVENTS as readonly unknown[]).includes(v) ? String(v) : 'other';
  return name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

function eventFor(req: Request, defaultScope: string): string | null {
  const body = (req.body ?? {}) as Record<string, unknown>;
  switch (req.path) {
    case '/capture':
      return `capture.${hookName(body.hook_event_name)}`;
    case '/recall':
      return `recall.${body.hook_event_name === 'SessionStart' ? 'session_start' : 'user_prompt_submit'}`;
    case '/local/search':
      return `search.${(SCOPES as readonly unknown[]).includes(body.scope) ? String(body.scope) : defaultScope}`;
    case '/remember':
      return 'remember';
    case '/pause':
    case '/resume':
      return `capture${req.path.replace('/', '.')}`;
    default:
      return null;
  }
}

/**
 * Records `event` with the request's duration when the response is sent. A handler may name an
 * error class that is not an HTTP error in `res.locals.telemetryError` (a recall that timed out).
 */
export function telemetryMiddleware(telemetry: Telemetry, defaultScope: string): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST') return next();
    const t0 = performance.now();
    res.once('finish', () => {
      const event = eventFor(req, defaultScope);
      if (!event) return;
      const errorClass = res.statusCode >= 400 ? `HTTP_${res.statusCode}` : (res.locals.telemetryError as string | undefined);
      telemetry.record(event, { duration_ms: performance.now() - t0, error_class: errorClass });
    });
    next();
  };
}

const outcomeSchema = z
  .object({
    event: z.string().max(64).regex(EVENT_NAME),
    duration_ms: z.number().min(0).max(86_400_000).optional(),
    error_class: z.string().regex(ERROR_CLASS).optional(),
  })
  .strict();

/** POST /telemetry/events: one outcome reported by another process (the CLI). */
export function addTelemetryEventsRoute(r: Router, telemetry: Telemetry): void {
  r.post('/telemetry/events', (req, res) => {
    const b = parseBody(outcomeSchema, req.body);
    telemetry.record(b.event, b);
    res.status(202).json({ recorded: true });
  });
}
