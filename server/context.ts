/**
 * Per-request context: opens the caller's project and hands the /v1 routes an ApiContext that
 * confines them to it (personal memories only for their owner, exports owned by the member).
 */
import type { RequestHandler, Response } from 'express';
import { httpError, type ApiContext, type IdempotencyStore, type Permission } from '../api/index.js';
import type { Config, PlannedRow } from '../engine/index.js';
import { callerOfRes } from './auth.js';
import type { ProjectRegistry } from './project-registry.js';
import type { ProjectRuntime } from './project-runtime.js';

const IMPORT_CHECK_CHUNK = 500;

export function projectContext(projects: ProjectRegistry, idempotency: IdempotencyStore, config: Config): RequestHandler {
  return async (req, res, next) => {
    const caller = callerOfRes(res);
    const project = await projects.get(caller.project_id);
    const member = caller.member.member_id;
    const ctx: ApiContext = {
      engine: project.engine,
      principal: member,
      tenant: caller.project_id,
      permissions: new Set<Permission>(caller.permissions),
      readFilter: { personal_owner: member },
      ownerId: member,
      defaultUserId: null,
      exports: project.exports,
      idempotency,
      extractor: project.extractor,
      inferJobs: project.inferJobs,
      importRewrite: (row: PlannedRow) => (row.space === 'personal' ? { ...row, owner_id: member } : row),
      importGuard: async (rows) => {
        // Importing a version of another member's personal memory would change it: refuse.
        const ids = [...new Set(rows.map((r) => r.memory_id))];
        for (let i = 0; i < ids.length; i += IMPORT_CHECK_CHUNK) {
          for (const v of await project.engine.store.versionsOf(ids.slice(i, i + IMPORT_CHECK_CHUNK))) {
            if (v.space === 'personal' && v.owner_id !== member) {
              throw httpError('CONFLICT', `memory ${v.memory_id} already exists and belongs to another member; nothing was imported`, { memory_id: v.memory_id });
            }
          }
        }
      },
      onImport: (result) => project.events.importCompleted(result, member),
      limits: { pageSizeMax: config.pageSizeMax },
      storeChangeSeen: typeof res.locals.storeChange === 'number' ? res.locals.storeChange : undefined,
    };
    res.locals.project = project;
    res.locals.ctx = ctx;
    if (config.databaseUrl && WRITES.has(req.method) && !READS_BY_POST.test(req.path)) eventsBeforeAnswer(res, project);
    next();
  };
}

const WRITES: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** POSTs that write nothing: a search need not wait for the event log (a query, and the log's queue, per search). */
const READS_BY_POST = /\/memories\/search$/;

/**
 * With replicas on one database, a write is answered once its events are committed and indexed
 * here: a webhook paused or resumed through another replica afterwards then sees them on the
 * right side of its cursor. Version and export events commit with what they describe (a failed
 * event write fails the request); the others (imports, infer jobs) commit in batches just behind,
 * and a failed commit of those does not hold the answer: they stay queued for the next batch.
 */
function eventsBeforeAnswer(res: Response, project: ProjectRuntime): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    void project.log
      .flush()
      .catch(() => {})
      .then(() => json(body));
    return res;
  };
}

export function projectOf(res: Response): ProjectRuntime {
  const p = res.locals.project as ProjectRuntime | undefined;
  if (!p) throw new Error('no project: the project context middleware must run first');
  return p;
}
