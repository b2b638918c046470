/** The daemon-only routes on its socket: capture, flush, recall, pause, resume, remember, status, local search. */
import path from 'node:path';
import { Router } from 'express';
import { z } from 'zod';
import { HttpError, httpError, parseBody } from '../api/index.js';
import { CATEGORIES, EngineError, memoryJson, mergeFilters, SCOPES, scopeFilter, type MemoryFilter, type Scope } from '../engine/index.js';
import type { Daemon } from './daemon.js';
import { NEXT_SECTION_WEIGHT, turnOf, weighEpisodes } from './episode-rows.js';
import { ForgetLog } from './forget-log.js';
import { JournalWriteError } from './journal.js';
import { repoInfo } from './repo.js';
import { daemonStatus, type JobSources } from './status.js';
import { addTelemetryEventsRoute, telemetryMiddleware } from './telemetry-routes.js';
import type { Telemetry } from './telemetry.js';

const pauseSchema = z.object({ session_id: z.string().min(1).max(256).optional(), all: z.boolean().optional(), cwd: z.string().max(4096).optional() }).strict();
const rememberSchema = z
  .object({
    text: z.string().min(1, 'text must not be empty').max(200_000),
    personal: z.boolean().optional(),
    category: z.enum(CATEGORIES).optional(),
    cwd: z.string().max(4096).optional(),
    session_id: z.string().max(256).optional(),
  })
  .strict();
const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'memory ids are UUIDs');
const localForgetSchema = z.object({ memory_ids: z.array(uuid).min(1).max(1000), purge: z.boolean().optional(), query: z.string().max(10_000).optional() }).strict();
const localListSchema = z
  .object({
    scope: z.enum(SCOPES).optional(),
    category: z.enum(CATEGORIES).optional(),
    since: z.number().int().min(0).optional(),
    cwd: z.string().max(4096).optional(),
    session_id: z.string().max(256).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    cursor: z.string().max(1000).optional(),
  })
  .strict();
const undoSchema = z.object({ memory_id: uuid.optional() }).strict();
const syncNowSchema = z.object({ retry_parked: z.boolean().optional() }).strict();
const flushSchema = z.object({ session_id: z.string().min(1).max(256).optional() }).strict();
const localSearchSchema = z
  .object({
    query: z.string().min(1, 'query must not be empty').max(10_000),
    scope: z.enum(SCOPES).optional(),
    cwd: z.string().max(4096).optional(),
    session_id: z.string().max(256).optional(),
    top_k: z.number().int().min(1).max(100).optional(),
    threshold: z.number().min(0).max(1).optional(),
    /** Apply the absolute relevance floor (engine RELEVANCE_FLOOR): memory.search sets it. */
    relevant: z.boolean().optional(),
    /** The query is being typed (the dashboard): its last word also matches as a prefix. */
    prefix: z.boolean().optional(),
  })
  .strict();

/** A hook payload: an object with at least a session id (hooks send whatever Claude Code gave them). */
function hookBody(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw httpError('VALIDATION_FAILED', 'send the hook event as a JSON object');
  return body as Record<string, unknown>;
}

export function daemonRouter(daemon: Daemon, opts: { version: string; defaultScope: Scope; topK: number; telemetry?: Telemetry | null; jobs?: JobSources; settings?: Record<string, string> }): Router {
  const r = Router();
  if (opts.telemetry) {
    r.use(telemetryMiddleware(opts.telemetry, opts.defaultScope));
    addTelemetryEventsRoute(r, opts.telemetry);
  }

  r.post('/capture', async (req, res) => {
    try {
      res.json(await daemon.capture(hookBody(req.body)));
    } catch (err) {
      // Refused, not torn: a 503 the hook spools or retries (it was not acknowledged).
      if (err instanceof JournalWriteError) throw new HttpError(503, 'UNAVAILABLE', err.message, { journal: 'refused' }, 1);
      throw err;
    }
  });

  r.post('/recall', async (req, res) => {
    const out = await daemon.recall(hookBody(req.body));
    if (out.timed_out) res.locals.telemetryError = 'RecallTimeout';
    res.json(out);
  });

  r.post('/flush', async (req, res) => {
    const b = parseBody(flushSchema, req.body ?? {});
    const results = await daemon.flush(b.session_id);
    res.json({ flushed: results.map((x) => ({ session_id: x.session_id, turns: x.turns, candidates: x.candidates, memories: x.results })) });
  });

  r.post('/pause', async (req, res) => {
    const b = parseBody(pauseSchema, req.body ?? {});
    res.json(await daemon.setPaused(b, true));
  });

  r.post('/resume', async (req, res) => {
    const b = parseBody(pauseSchema, req.body ?? {});
    res.json(await daemon.setPaused(b, false));
  });

  r.post('/remember', async (req, res) => {
    const b = parseBody(rememberSchema, req.body);
    res.status(201).json({ results: await daemon.remember(b) });
  });

  r.get('/sync/status', (_req, res) => {
    res.json(daemon.sync.status());
  });

  /** Run a sync round now (push, then pull) and answer with its report and the status after it. */
  r.post('/sync/now', async (req, res) => {
    const b = parseBody(syncNowSchema, req.body ?? {});
    if (!daemon.sync.enabled) throw httpError('CONFLICT', `sync is off: ${daemon.sync.offReason}`, { enabled: false });
    await daemon.ready();
    const round = await daemon.sync.now({ retryParked: b.retry_parked === true });
    res.json({ round, status: daemon.sync.status() });
  });

  const forgets = new ForgetLog(path.join(daemon.paths.stateDir, 'forgets.json'));

  /** Forget (or erase, with purge) memories by id as one undoable batch. Unknown ids are reported, not fatal. */
  r.post('/local/forget', async (req, res) => {
    const b = parseBody(localForgetSchema, req.body);
    const engine = await daemon.ready();
    const forgotten: string[] = [];
    const notFound: string[] = [];
    const ids = [...new Set(b.memory_ids)];
    if (b.purge) {
      // One purge for the batch: exports and the journal are rewritten once, not once per memory.
      const known = new Set((await engine.store.versionsOf(ids)).map((r) => r.memory_id));
      for (const id of ids) (known.has(id) ? forgotten : notFound).push(id);
      if (forgotten.length > 0) await engine.purge(forgotten);
    }
    for (const id of b.purge ? [] : ids) {
      try {
        await engine.delete(id);
        forgotten.push(id);
      } catch (err) {
        if (err instanceof EngineError && err.code === 'NOT_FOUND') notFound.push(id);
        else throw err;
      }
    }
    const batch = forgotten.length > 0 ? forgets.record(forgotten, { purged: b.purge === true, query: b.query ?? null }) : null;
    res.json({ batch_id: batch?.id ?? null, forgotten, not_found: notFound, purged: b.purge === true });
  });

  /** Restore the last forget (or the forget of one memory) from history. */
  r.post('/local/undo', async (req, res) => {
    const b = parseBody(undoSchema, req.body ?? {});
    const engine = await daemon.ready();
    const batch = b.memory_id ? forgets.holding(b.memory_id) : forgets.last();
    if (!batch && !b.memory_id) throw httpError('NOT_FOUND', 'there is no forget to undo', {});
    if (batch?.purged) throw httpError('CONFLICT', `the forget of ${batch.at} erased ${batch.memory_ids.length === 1 ? 'its memory' : `its ${batch.memory_ids.length} memories`} with every version (--purge): it cannot be undone`, { batch_id: batch.id });
    const ids = b.memory_id ? [b.memory_id] : batch!.memory_ids;
    const restored: string[] = [];
    const current: string[] = [];
    for (const id of ids) {
      try {
        await engine.restore(id);
        restored.push(id);
      } catch (err) {
        if (!(err instanceof EngineError)) throw err;
        if (err.code === 'CONFLICT') current.push(id);
        else if (b.memory_id) throw err;
      }
    }
    if (batch) forgets.restored(batch, [...restored, ...current]);
    if (b.memory_id && restored.length === 0) throw httpError('CONFLICT', `memory ${b.memory_id} is not forgotten; nothing to restore`, { memory_id: b.memory_id });
    res.json({ batch_id: batch?.id ?? null, forgotten_at: batch?.at ?? null, restored, already_current: current });
  });

  /** Browse: current memories newest first, by scope (resolved from cwd), category and update time. */
  r.post('/local/list', async (req, res) => {
    const b = parseBody(localListSchema, req.body ?? {});
    const engine = await daemon.ready();
    const cwd = b.cwd ?? process.cwd();
    const info = repoInfo(cwd);
    const ctx = { user_id: daemon.userId, repo: info.repo, dir: info.dir, run_id: b.session_id ?? daemon.latestSessionIn(cwd) };
    let filter: MemoryFilter = {};
    if (b.scope) {
      try {
        filter = scopeFilter(b.scope, ctx);
      } catch {
        throw httpError('VALIDATION_FAILED', b.scope === 'session' ? `scope "session" needs an agent session: none has worked in ${cwd} yet (or pass --session)` : `scope "${b.scope}" needs a repository, and ${cwd} is not inside one; use --scope user or no scope`, { scope: b.scope });
      }
    }
    if (b.category) filter = mergeFilters(filter, { category: b.category });
    if (b.since !== undefined) filter = mergeFilters(filter, { updated_at: { gte: b.since } });
    const page = await engine.list({ filter, limit: b.limit ?? 20, cursor: b.cursor });
    res.json({ results: page.results.map(memoryJson), next_cursor: page.next_cursor, scope: b.scope ?? null, repo: info.repo });
  });

  /** The settings this daemon runs with (secrets as fingerprints), for callers to compare with theirs. */
  r.get('/local/config', (_req, res) => {
    res.json({ pid: process.pid, settings: opts.settings ?? {} });
  });

  r.get('/local/forgets', (_req, res) => {
    res.json({ forgets: forgets.list() });
  });

  r.get('/status', async (req, res) => {
    const q = req.query as Record<string, string | undefined>;
    res.json(await daemonStatus(daemon, { version: opts.version, cwd: q.cwd, session_id: q.session_id, jobs: opts.jobs }));
  });

  /**
   * Search from a working directory: the daemon resolves repo, dir, user and session for the scope.
   * Without a session id, scope session means the most recent live session working in cwd.
   * When nothing is found, the answer says how many memories the other scopes hold.
   */
  r.post('/local/search', async (req, res) => {
    const b = parseBody(localSearchSchema, req.body);
    const engine = await daemon.ready();
    const cwd = b.cwd ?? process.cwd();
    const info = repoInfo(cwd);
    // Without a session id, "this session" is the most recent agent session working here.
    const ctx = { user_id: daemon.userId, repo: info.repo, dir: info.dir, run_id: b.session_id ?? daemon.latestSessionIn(cwd) };
    const scope = b.scope ?? opts.defaultScope;
    if ((scope === 'repo' || scope === 'dir') && !info.repo) {
      throw httpError('VALIDATION_FAILED', `scope "${scope}" searches the current repository, and ${cwd} is not inside one; run it in a repository or use --scope user`, { scope });
    }
    if (scope === 'session' && !ctx.run_id) {
      throw httpError('VALIDATION_FAILED', `scope "session" needs an agent session: none has worked in ${cwd} yet (or pass --session)`, { scope });
    }
    const topK = b.top_k ?? opts.topK;
    // Blocks of one episode record show once, a document's twice (weighEpisodes): ask for more (up to 60), keep top_k.
    const out = await engine.search({ query: b.query, scope, ...ctx, top_k: Math.max(topK, Math.min(topK * 3, 60)), threshold: b.threshold, relevance: b.relevant === true, textOf: turnOf, prefix: b.prefix === true });
    const counts: Record<string, number | null> = {};
    if (out.results.length === 0) {
      for (const s of SCOPES) {
        let f: MemoryFilter | null = null;
        try {
          f = scopeFilter(s, ctx);
        } catch {
          f = null;
        }
        counts[s] = f ? await engine.count(f) : null;
      }
    }
    res.json({
      // Extracted facts before episodes (daemon/episodes.ts).
      results: weighEpisodes(out.results, Number.POSITIVE_INFINITY, NEXT_SECTION_WEIGHT).slice(0, topK).map((h) => ({ memory_id: h.row.memory_id, content: h.row.content, score: h.score, category: h.row.category, space: h.row.space, repo: h.row.repo, updated_at: new Date(h.row.recorded_at).toISOString() })),
      mode: out.mode,
      scope,
      repo: info.repo,
      dir: info.dir,
      other_scopes: counts,
    });
  });

  return r;
}
