/**
 * GET /v1/events and GET /v1/events/:id: the project's event feed, ordered by seq. A key never
 * sees events about another member's personal memories or their exports and imports, so it may
 * see gaps in seq; `after` still works (pass the page's `next_after`).
 */
import { Router } from 'express';
import { z } from 'zod';
import { ctxOf, httpError, requirePermission, requireUuid } from '../api/index.js';
import { callerOfRes } from './auth.js';
import { projectOf } from './context.js';
import { getEvent, listEvents } from './event-feed.js';
import { isEventPattern, matchesPatterns } from './event-types.js';
import { pageLimit, parseQuery } from './paging.js';

const listQuery = z
  .object({
    after: z.string().regex(/^\d{1,15}$/, 'must be a whole number (a seq)').optional(),
    type: z.string().max(1000).optional(),
    limit: z.string().regex(/^\d+$/, 'must be a whole number').optional(),
  })
  .strict();
const noQuery = z.object({}).strict();

export function eventRoutes(pageSizeMax: number): Router {
  const r = Router();

  r.get('/events', async (req, res) => {
    requirePermission(ctxOf(res), 'read');
    const q = parseQuery(listQuery, req.query);
    const patterns = q.type?.split(',').filter((t) => t !== '');
    for (const t of patterns ?? []) {
      if (!isEventPattern(t)) throw httpError('INVALID_REQUEST', `type "${t.slice(0, 64)}" is not an event type; see docs/api.md for the list (families like memory.* work too)`, { param: 'type' });
    }
    const limit = pageLimit(q.limit, pageSizeMax);
    const { log } = projectOf(res);
    await log.flush(); // read your writes: events of writes already answered are on disk
    const page = await listEvents(log, {
      after: Number(q.after ?? 0),
      limit,
      viewer: callerOfRes(res).member.member_id,
      types: patterns && patterns.length > 0 ? (t) => matchesPatterns(t, patterns) : undefined,
    });
    res.json(page);
  });

  r.get('/events/:id', async (req, res) => {
    requirePermission(ctxOf(res), 'read');
    parseQuery(noQuery, req.query);
    const id = requireUuid(String(req.params.id), 'event id');
    const { log } = projectOf(res);
    await log.flush();
    const event = await getEvent(log, id, callerOfRes(res).member.member_id);
    if (!event) throw httpError('NOT_FOUND', `event ${id} was not found`, { id });
    res.json(event);
  });

  return r;
}
