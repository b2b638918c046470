/** What `service status` and the dashboard show: health, capture state, counts, backlog, model. */
import { modelFix } from './model-fix.js';
import type { ExportJob } from '../api/index.js';
import { CATEGORIES, extractorInfo, scopeFilter, SCOPES, type MemoryEngine, type MemoryFilter } from '../engine/index.js';
import type { Daemon } from './daemon.js';
import type { ImportRun } from './import-progress.js';
import { repoInfo } from './repo.js';

export interface StatusContext {
  version: string;
  cwd?: string | undefined;
  session_id?: string | undefined;
  /** Where running exports and imports are found (absent: status reports none). */
  jobs?: JobSources | undefined;
}

export interface JobSources {
  exports: { list(): ExportJob[] };
  imports: { list(): ImportRun[] };
}

/** Long work in flight, for progress: exports with versions written of `total`, imports with lines processed of `total`. */
export interface JobsStatus {
  exports: { export_id: string; status: 'PENDING' | 'RUNNING'; count: number; total: number; started_at: string | null }[];
  imports: ImportRun[];
}

/** Running exports and imports; an export's total is every stored version (it exports them all). */
export function jobsStatus(sources: JobSources | undefined, versions: number): JobsStatus {
  const exports: JobsStatus['exports'] = [];
  for (const j of sources?.exports.list() ?? []) {
    if (j.status === 'PENDING' || j.status === 'RUNNING') exports.push({ export_id: j.export_id, status: j.status, count: j.count, total: Math.max(versions, j.count), started_at: j.started_at });
  }
  return { exports, imports: sources?.imports.list() ?? [] };
}

export async function daemonStatus(daemon: Daemon, ctx: StatusContext): Promise<Record<string, unknown>> {
  // A store that cannot open does not take status down with it: status is how the user learns why.
  const engine = await daemon.ready().catch(() => null);
  if (!engine) return { ...baseStatus(daemon, ctx), memories: null, model: null, store: { state: 'unavailable' }, jobs: jobsStatus(ctx.jobs, 0) };
  const es = await engine.status();
  if (!ctx.session_id && ctx.cwd) ctx = { ...ctx, session_id: daemon.latestSessionIn(ctx.cwd) ?? undefined };
  const info = ctx.cwd ? repoInfo(ctx.cwd) : null;
  const scopeCtx = { user_id: daemon.userId, repo: info?.repo ?? null, dir: info?.dir ?? null, run_id: ctx.session_id ?? null };
  const byScope: Record<string, number | null> = {};
  for (const s of SCOPES) {
    let f: MemoryFilter | null = null;
    try {
      f = scopeFilter(s, scopeCtx);
    } catch {
      f = null;
    }
    byScope[s] = f ? await engine.count(f) : null;
  }
  const byCategory: Record<string, number> = {};
  for (const c of CATEGORIES) byCategory[c] = await engine.count({ category: c });
  const bySpace = { project: await engine.count({ space: 'project' }), personal: await engine.count({ space: 'personal' }) };
  return {
    ...baseStatus(daemon, ctx),
    memories: { total: es.memories, versions: es.versions, by_space: bySpace, by_scope: byScope, by_place: await byPlace(engine, bySpace, scopeCtx), by_category: byCategory },
    model: { ...es.model, mode: es.mode, backlog: es.backlog, vector_index: es.vectorIndex, fix: modelFix(es.model) },
    store: { state: 'open' },
    jobs: jobsStatus(ctx.jobs, es.versions),
  };
}

/**
 * Where the memories are, in parts that never overlap and add up to the total (the scopes overlap:
 * dir and session lie inside repo and user). `repo` scope = this_repo + project_wide.
 */
export interface PlaceCounts {
  /** Project memories of the current repository (0 outside one). */
  this_repo: number;
  /** Project memories with no repository (REST writes, a teammate's): in every repository's scope. */
  project_wide: number;
  /** Project memories of other repositories: no scope from here shows them. */
  other_repos: number;
  /** This user's personal memories (`user` scope). */
  personal: number;
  /** Personal memories of other users (none unless a store was imported from elsewhere). */
  others_personal: number;
}

async function byPlace(engine: MemoryEngine, bySpace: { project: number; personal: number }, ctx: { user_id: string; repo: string | null }): Promise<PlaceCounts> {
  const thisRepo = ctx.repo ? await engine.count({ space: 'project', repo: ctx.repo }) : 0;
  const projectWide = await engine.count({ space: 'project', repo: null });
  const personal = await engine.count({ space: 'personal', user_id: ctx.user_id });
  return { this_repo: thisRepo, project_wide: projectWide, other_repos: bySpace.project - thisRepo - projectWide, personal, others_personal: bySpace.personal - personal };
}

/** Everything status reports that does not need the store. */
function baseStatus(daemon: Daemon, ctx: StatusContext): Record<string, unknown> {
  if (!ctx.session_id && ctx.cwd) ctx = { ...ctx, session_id: daemon.latestSessionIn(ctx.cwd) ?? undefined };
  const info = ctx.cwd ? repoInfo(ctx.cwd) : null;
  const sessions = daemon.sessions.all();
  const journal = daemon.journal.stats();
  const pending = sessions.reduce((n, s) => n + s.pending.length, 0);
  const problems = daemon.health.list();
  return {
    health: { ok: problems.length === 0, problems },
    daemon: { pid: process.pid, version: ctx.version, uptime_s: Math.round((Date.now() - daemon.startedAt) / 1000), started_at: new Date(daemon.startedAt).toISOString(), socket: daemon.paths.socket, home: daemon.paths.home },
    capture: {
      state: daemon.pause.all ? 'paused' : 'capturing',
      paused_all: daemon.pause.all,
      paused_sessions: daemon.pause.pausedSessions(),
      paused_repos: daemon.pause.pausedRepos(),
      session: ctx.session_id ? (daemon.pause.isPaused(ctx.session_id) ? 'paused' : 'capturing') : null,
      sessions: sessions
        .filter((s) => !s.ended || s.pending.length > 0)
        .map((s) => ({ session_id: s.id, repo: s.repo, state: daemon.pause.isPaused(s.id) ? 'paused' : 'capturing', paused_by: daemon.pause.pausedBy(s.id), pending: s.pending.length, last_activity: new Date(s.lastActivity).toISOString(), last_flush: s.lastFlush ? new Date(s.lastFlush).toISOString() : null, memories: s.memories })),
    },
    context: { cwd: ctx.cwd ?? null, repo: info?.repo ?? null, dir: info?.dir ?? null, session_id: ctx.session_id ?? null },
    journal: { pending_events: pending, segments: journal.segments, bytes: journal.bytes, next_seq: journal.next },
    flush: { backlog_sessions: sessions.filter((s) => s.pending.length > 0).length, last: daemon.lastFlush },
    extractor: extractorInfo(daemon.extractor),
    sync: daemon.sync.status(),
    recent: daemon.recent.slice(-20),
    last_error: daemon.lastError,
  };
}
