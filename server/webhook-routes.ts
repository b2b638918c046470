/**
 * /v1/webhooks: subscriptions of the project to event types, managed by keys with the admin
 * permission. The signing secret is in the create response only. A webhook receives the events
 * its creator's keys may see, from its creation on.
 */
import { Router } from 'express';
import { z } from 'zod';
import { ctxOf, httpError, parseBody, requirePermission, requireUuid } from '../api/index.js';
import { callerOfRes } from './auth.js';
import { requireWebhookRetarget } from './access.js';
import { projectOf } from './context.js';
import { isEventPattern } from './event-types.js';
import { pageOf, pageParams, parseQuery } from './paging.js';
import { newWebhookSecret } from './webhook-signature.js';
import type { WebhookPatch } from './webhook-registry.js';
import { webhookJson, type Webhook } from './webhook-store.js';
import { checkTarget, TargetError } from './webhook-target.js';

const events = z.array(z.string().max(64).refine(isEventPattern, 'must be an event type, a family such as memory.*, or *')).min(1, 'subscribe to at least one event type').max(20);
const url = z.string().min(1).max(2048);
const description = z.string().max(500).nullable();
const createSchema = z.object({ url, events, description: description.optional(), active: z.boolean().optional() }).strict();
const patchSchema = z
  .object({ url: url.optional(), events: events.optional(), description: description.optional(), active: z.boolean().optional() })
  .strict()
  .refine((p) => Object.keys(p).length > 0, 'send at least one field to change');
const listQuery = z.object(pageParams).strict();
const deliveriesQuery = z.object({ ...pageParams, status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']).optional() }).strict();
const noQuery = z.object({}).strict();

async function vetUrl(raw: string, allowPrivate: boolean): Promise<string> {
  try {
    return (await checkTarget(raw, allowPrivate)).toString();
  } catch (err) {
    if (err instanceof TargetError) {
      throw httpError('VALIDATION_FAILED', `url: ${err.message}`, { issues: [{ path: 'url', message: err.message }], reason: err.reason });
    }
    throw err;
  }
}

export function webhookRoutes(opts: { pageSizeMax: number; allowPrivate: boolean }): Router {
  const r = Router();
  const hookOf = async (res: Parameters<typeof projectOf>[0], id: string): Promise<Webhook> => {
    const h = await projectOf(res).webhooks.get(requireUuid(id, 'webhook id'));
    if (!h) throw httpError('NOT_FOUND', `webhook ${id} was not found`, { id });
    return h;
  };

  r.post('/webhooks', async (req, res) => {
    requirePermission(ctxOf(res), 'admin');
    const b = parseBody(createSchema, req.body);
    const target = await vetUrl(b.url, opts.allowPrivate);
    const p = projectOf(res);
    const secret = newWebhookSecret();
    const hook = await p.webhooks.create({ url: target, events: [...new Set(b.events)], description: b.description ?? null, active: b.active ?? true, secret, member_id: callerOfRes(res).member.member_id });
    res.status(201).json({ ...webhookJson(hook), secret });
  });

  r.get('/webhooks', async (req, res) => {
    requirePermission(ctxOf(res), 'admin');
    const q = parseQuery(listQuery, req.query);
    res.json(pageOf((await projectOf(res).webhooks.list()).map(webhookJson), q, opts.pageSizeMax));
  });

  r.get('/webhooks/:id', async (req, res) => {
    requirePermission(ctxOf(res), 'admin');
    parseQuery(noQuery, req.query);
    res.json(webhookJson(await hookOf(res, String(req.params.id))));
  });

  r.patch('/webhooks/:id', async (req, res) => {
    requirePermission(ctxOf(res), 'admin');
    const hook = await hookOf(res, String(req.params.id));
    const b = parseBody(patchSchema, req.body);
    const p = projectOf(res);
    if (b.url !== undefined || b.events !== undefined) requireWebhookRetarget(callerOfRes(res), hook.member_id);
    const patch: WebhookPatch = {};
    if (b.url !== undefined) patch.url = await vetUrl(b.url, opts.allowPrivate);
    if (b.events !== undefined) patch.events = [...new Set(b.events)];
    if (b.description !== undefined) patch.description = b.description;
    if (b.active !== undefined) patch.active = b.active;
    const updated = await p.webhooks.update(hook.webhook_id, patch);
    if (!updated) throw httpError('NOT_FOUND', `webhook ${hook.webhook_id} was not found`, { id: hook.webhook_id });
    res.json(webhookJson(updated));
  });

  r.delete('/webhooks/:id', async (req, res) => {
    requirePermission(ctxOf(res), 'admin');
    parseQuery(noQuery, req.query);
    const hook = await hookOf(res, String(req.params.id));
    await projectOf(res).webhooks.remove(hook.webhook_id);
    res.json({ webhook_id: hook.webhook_id, deleted: true });
  });

  r.post('/webhooks/:id/test', async (req, res) => {
    requirePermission(ctxOf(res), 'admin');
    const hook = await hookOf(res, String(req.params.id));
    const body = req.body as unknown;
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length > 0)) {
      throw httpError('VALIDATION_FAILED', 'POST /v1/webhooks/:id/test takes no body (or an empty JSON object)');
    }
    res.json(await projectOf(res).webhooks.test(hook));
  });

  r.get('/webhooks/:id/deliveries', async (req, res) => {
    requirePermission(ctxOf(res), 'admin');
    const hook = await hookOf(res, String(req.params.id));
    const q = parseQuery(deliveriesQuery, req.query);
    const all = await projectOf(res).webhooks.deliveries(hook.webhook_id);
    res.json(pageOf(q.status === undefined ? all : all.filter((d) => d.status === q.status), q, opts.pageSizeMax));
  });

  return r;
}
