/**
 * /v1/entities: the users, agents, apps and runs seen in the project's memories, with memory
 * counts and last activity (personal memories count only for their owner). DELETE tombstones an
 * entity's memories, or erases every version of them with `?purge=true`.
 */
import { Router } from 'express';
import { z } from 'zod';
import { ctxOf, httpError, requirePermission } from '../api/index.js';
import { projectOf } from './context.js';
import { ENTITY_TYPES, type EntityType } from './entities.js';
import { pageOf, pageParams, parseQuery } from './paging.js';

const typeSchema = z.enum(ENTITY_TYPES);
const listQuery = z.object({ ...pageParams, type: typeSchema.optional() }).strict();
const noQuery = z.object({}).strict();
const deleteQuery = z.object({ purge: z.enum(['true', 'false', '1', '0']).optional() }).strict();

function target(params: Record<string, unknown>): { type: EntityType; id: string } {
  const t = typeSchema.safeParse(params.type);
  if (!t.success) throw httpError('INVALID_REQUEST', `entity type must be one of ${ENTITY_TYPES.join(', ')}`, { param: 'type' });
  const id = String(params.id);
  if (id.length === 0 || id.length > 256) throw httpError('INVALID_REQUEST', 'entity id must be 1 to 256 characters', { param: 'id' });
  return { type: t.data, id };
}

export function entityRoutes(pageSizeMax: number): Router {
  const r = Router();

  r.get('/entities', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'read');
    const q = parseQuery(listQuery, req.query);
    const p = projectOf(res);
    const all = await p.entities.list(p.log.head, ctx.principal);
    res.json(pageOf(q.type === undefined ? all : all.filter((e) => e.type === q.type), q, pageSizeMax));
  });

  r.get('/entities/:type/:id', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'read');
    parseQuery(noQuery, req.query);
    const { type, id } = target(req.params);
    const p = projectOf(res);
    const e = (await p.entities.list(p.log.head, ctx.principal)).find((x) => x.type === type && x.id === id);
    if (!e) throw httpError('NOT_FOUND', `${type} ${id.slice(0, 80)} has no memories here`, { type, id: id.slice(0, 80) });
    res.json(e);
  });

  r.delete('/entities/:type/:id', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'write');
    const { type, id } = target(req.params);
    const q = parseQuery(deleteQuery, req.query);
    const purge = q.purge === 'true' || q.purge === '1';
    const ids = await projectOf(res).entities.memoriesOf(type, id, ctx.readFilter, purge);
    if (ids.length === 0) throw httpError('NOT_FOUND', `${type} ${id.slice(0, 80)} has no memories here`, { type, id: id.slice(0, 80) });
    if (purge) await ctx.engine.purge(ids);
    else await Promise.all(ids.map((m) => ctx.engine.delete(m).catch((err: unknown) => ((err as { code?: string }).code === 'NOT_FOUND' ? null : Promise.reject(err)))));
    res.json({ type, id, memories: ids.length, purged: purge, memory_ids: ids });
  });

  return r;
}
