/** /v1/memories routes: add, search, list, get, update, delete, bulk delete, history. */
import { Router, type Request, type Response } from 'express';
import { decodeCursor, EngineError, matchesFilter, memoryJson, mergeFilters, versionJson, type AddInput, type MemoryEngine, type VersionRow } from '../engine/index.js';
import { ctxOf, requirePermission, type ApiContext } from './context.js';
import { visibleHistory } from './memory-access.js';
import { httpError } from './http-error.js';
import type { InferJob } from './infer-jobs.js';
import { inferMemories, type InferInput } from './infer.js';
import { addContentSchema, addMessagesSchema, asOfFromQuery, filtersFromQuery, flagFromQuery, limitFromQuery, noQueryParams, parseBody, patchSchema, requireUuid, searchSchema, toMemoryFilter } from './schemas.js';

type AddBody = ReturnType<typeof addContentSchema.parse>;

/** Run a write once per Idempotency-Key (when the header is present). */
async function idempotent(req: Request, res: Response, ctx: ApiContext, fn: () => Promise<{ status: number; body: unknown }>): Promise<void> {
  const key = req.get('Idempotency-Key');
  if (key === undefined) {
    const r = await fn();
    res.status(r.status).json(r.body);
    return;
  }
  const r = await ctx.idempotency.run(`${ctx.tenant ?? ''}:${ctx.principal}:${req.method}:${req.baseUrl}${req.path}`, key, req.body, fn);
  if (r.replayed) res.setHeader('Idempotent-Replayed', 'true');
  res.status(r.status).json(r.body);
}

function userOf(ctx: ApiContext, userId: string | undefined): string {
  const u = userId ?? ctx.defaultUserId;
  if (!u) throw httpError('VALIDATION_FAILED', 'user_id: user_id is required', { issues: [{ path: 'user_id', message: 'required' }] });
  return u;
}

export function addInput(ctx: ApiContext, b: Omit<AddBody, 'content' | 'infer'> & { content: string }): AddInput {
  return {
    content: b.content,
    memory_id: b.memory_id,
    user_id: userOf(ctx, b.user_id),
    agent_id: b.agent_id,
    app_id: b.app_id,
    run_id: b.run_id,
    owner_id: ctx.ownerId,
    space: b.space,
    repo: b.repo,
    dir: b.dir,
    category: b.category,
    metadata: b.metadata,
    source: b.source ?? { kind: 'api' },
    valid_from: b.valid_from,
    valid_to: b.valid_to,
  };
}

/** The current rows of a memory this caller may see, or 404 (never a hint that it exists). */
async function visibleCurrent(ctx: ApiContext, engine: MemoryEngine, id: string): Promise<VersionRow> {
  const row = await engine.get(id);
  if (!matchesFilter(row, ctx.readFilter)) throw httpError('NOT_FOUND', `memory ${id} was not found`, { id });
  return row;
}

export function memoriesRouter(): Router {
  const r = Router();

  r.post('/memories', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'write');
    const body = req.body as Record<string, unknown> | undefined;
    if (body && typeof body === 'object' && 'messages' in body) {
      const b = parseBody(addMessagesSchema, body);
      if (b.infer !== false) {
        const input: InferInput = {
          messages: b.messages,
          user_id: userOf(ctx, b.user_id),
          owner_id: ctx.ownerId,
          agent_id: b.agent_id,
          app_id: b.app_id,
          run_id: b.run_id,
          repo: b.repo,
          dir: b.dir,
          metadata: b.metadata,
          source: b.source ?? { kind: 'api' },
        };
        if (b.async) {
          const jobs = ctx.inferJobs;
          if (!jobs) throw httpError('INVALID_REQUEST', 'this host runs infer adds inline; send the request without async');
          await idempotent(req, res, ctx, async () => ({ status: 202, body: jobJson(await jobs.start(input, ctx.principal)) }));
          return;
        }
        await idempotent(req, res, ctx, async () => ({ status: 200, body: { results: await inferMemories(ctx.engine, ctx.extractor, input) } }));
        return;
      }
      if (b.async) throw httpError('INVALID_REQUEST', 'async applies to infer adds only');
      await idempotent(req, res, ctx, async () => {
        const texts = b.messages.filter((m) => (m.role === 'user' || m.role === 'assistant') && m.content.trim() !== '');
        const results = [];
        for (const m of texts) {
          const rows = await ctx.engine.add(addInput(ctx, { ...b, content: m.content }));
          for (const row of rows) results.push({ memory_id: row.memory_id, content: row.content, event: 'ADD' });
        }
        return { status: 201, body: { results } };
      });
      return;
    }
    const b = parseBody(addContentSchema, body);
    await idempotent(req, res, ctx, async () => {
      const rows = await ctx.engine.add(addInput(ctx, b));
      const first = memoryJson(rows[0]!);
      return { status: 201, body: rows.length > 1 ? { ...first, blocks: rows.map((x) => x.memory_id) } : first };
    });
  });

  r.get('/jobs/:id', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'read');
    const id = requireUuid(String(req.params.id), 'job id');
    const job = await ctx.inferJobs?.get(id);
    if (!job || job.owner !== ctx.principal) throw httpError('NOT_FOUND', `job ${id} was not found`, { id });
    res.json(jobJson(job));
  });

  r.post('/memories/search', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'read');
    const b = parseBody(searchSchema, req.body);
    let filter = toMemoryFilter(b.filters);
    for (const key of ['user_id', 'agent_id', 'app_id', 'run_id', 'repo', 'dir'] as const) {
      // Top-level ids filter too, except where they only give a scope its context.
      if (b[key] !== undefined && !(b.scope && scopeUses(b.scope, key))) filter = mergeFilters(filter, { [key]: b[key] });
    }
    filter = mergeFilters(filter, ctx.readFilter);
    // A client that closes the connection (gave up, timed out) before its search's turn came
    // takes its search out of the queue: nobody would read the answer.
    const gone = new AbortController();
    const onClose = (): void => {
      if (!res.writableFinished) gone.abort();
    };
    res.once('close', onClose);
    if (req.socket.destroyed) gone.abort(); // closed before this route ran
    const out = await ctx.engine
      .search({
        query: b.query,
        scope: b.scope,
        user_id: b.user_id ?? ctx.defaultUserId,
        repo: b.repo,
        dir: b.dir,
        run_id: b.run_id,
        filter,
        top_k: b.top_k,
        threshold: b.threshold,
        valid_at: b.valid_at,
        known_at: b.known_at,
        mode: b.mode,
        signal: gone.signal,
        changeSeen: ctx.storeChangeSeen,
      })
      .catch((err: unknown) => {
        if (err instanceof EngineError && err.code === 'CANCELLED' && gone.signal.aborted) return null;
        throw err;
      })
      .finally(() => res.off('close', onClose));
    if (!out) return; // cancelled: the connection is closed, there is no one to answer
    res.json({ results: out.results.map((h) => ({ ...memoryJson(h.row), score: h.score })), mode: out.mode });
  });

  r.get('/memories', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'read');
    const q = req.query as Record<string, unknown>;
    const cursor = q.cursor === undefined ? undefined : String(q.cursor);
    if (cursor !== undefined) {
      try {
        decodeCursor(cursor);
      } catch {
        throw httpError('INVALID_REQUEST', 'cursor is not valid; pass the next_cursor value of a previous page', { param: 'cursor' });
      }
    }
    const limit = limitFromQuery(q, ctx.limits.pageSizeMax);
    if (q.purge !== undefined) throw httpError('INVALID_REQUEST', 'purge applies to DELETE /v1/memories only', { param: 'purge' });
    const { cursor: _c, limit: _l, ...rest } = q;
    const { filter, validAt } = filtersFromQuery(rest);
    const page = await ctx.engine.list({ filter: mergeFilters(filter, ctx.readFilter), limit, cursor, valid_at: validAt });
    res.json({ results: page.results.map(memoryJson), next_cursor: page.next_cursor });
  });

  r.delete('/memories', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'write');
    const q = req.query as Record<string, unknown>;
    const purge = flagFromQuery(q, 'purge');
    const { purge: _p, ...rest } = q;
    const { filter } = filtersFromQuery(rest);
    if (Object.keys(filter).length === 0) {
      throw httpError('INVALID_REQUEST', 'bulk delete needs at least one filter, e.g. DELETE /v1/memories?user_id=alice', { hint: 'filters' });
    }
    const ids = await ctx.engine.deleteWhere(mergeFilters(filter, ctx.readFilter), { purge });
    res.json({ deleted: ids.length, memory_ids: ids, purged: purge });
  });

  r.get('/memories/:id', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'read');
    const id = requireUuid(String(req.params.id));
    const asOf = asOfFromQuery(req.query as Record<string, unknown>);
    const row = await ctx.engine.get(id, asOf);
    if (!matchesFilter(row, ctx.readFilter)) throw httpError('NOT_FOUND', `memory ${id} was not found`, { id });
    res.json(memoryJson(row));
  });

  r.patch('/memories/:id', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'write');
    const id = requireUuid(String(req.params.id));
    const b = parseBody(patchSchema, req.body);
    await visibleCurrent(ctx, ctx.engine, id);
    await idempotent(req, res, ctx, async () => {
      // Moving a memory into personal space moves it into the caller's, never into its writer's.
      const owner = b.space === 'personal' ? { owner_id: ctx.ownerId } : {};
      const rows = await ctx.engine.update(id, { ...b, ...owner, source: { kind: 'api' } });
      const now = Date.now();
      const shown = rows.find((x) => x.valid_from <= now && (x.valid_to === null || now < x.valid_to)) ?? rows[rows.length - 1]!;
      return { status: 200, body: memoryJson(shown) };
    });
  });

  r.delete('/memories/:id', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'write');
    const id = requireUuid(String(req.params.id));
    const q = req.query as Record<string, unknown>;
    for (const k of Object.keys(q)) if (k !== 'purge') throw httpError('INVALID_REQUEST', `unknown query parameter "${k}"`, { param: k });
    const purge = flagFromQuery(q, 'purge');
    if (purge) {
      if (!visibleHistory(await ctx.engine.history(id), ctx.readFilter)) throw httpError('NOT_FOUND', `memory ${id} was not found`, { id });
      const removed = await ctx.engine.purge([id]);
      res.json({ memory_id: id, deleted: true, purged: true, versions_removed: removed });
      return;
    }
    await visibleCurrent(ctx, ctx.engine, id);
    const tomb = await ctx.engine.delete(id);
    res.json({ memory_id: id, deleted: true, purged: false, version: tomb.version });
  });

  r.get('/memories/:id/history', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'read');
    const id = requireUuid(String(req.params.id));
    noQueryParams(req.query as Record<string, unknown>);
    const versions = visibleHistory(await ctx.engine.history(id), ctx.readFilter);
    if (!versions) throw httpError('NOT_FOUND', `memory ${id} was not found`, { id });
    res.json({ memory_id: id, versions: versions.map(versionJson) });
  });

  return r;
}

function jobJson(job: InferJob): Record<string, unknown> {
  const { owner: _owner, input: _input, ...rest } = job;
  return rest;
}

function scopeUses(scope: string, key: string): boolean {
  return (scope === 'repo' && key === 'repo') || (scope === 'dir' && (key === 'repo' || key === 'dir')) || (scope === 'user' && key === 'user_id') || (scope === 'session' && key === 'run_id');
}
