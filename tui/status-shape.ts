/**
 * What the dashboard reads from `GET /v1/status` (daemon/status.ts builds it). Sections a daemon
 * may not have (an older daemon, or one without sync) are optional and read defensively, so the
 * dashboard never crashes on a missing field: it shows "-" or "off" instead.
 */

export interface SessionStatus {
  session_id: string;
  repo: string | null;
  state: string;
  /** Which pause applies: all sessions, its repository, or the session itself (null: capturing). */
  paused_by: 'all' | 'repo' | 'session' | null;
  pending: number;
  last_activity: string | null;
  last_flush: string | null;
  memories: number;
}

export interface RecentCapture {
  at: string;
  session_id: string;
  event: string;
  summary: string;
}

export interface ExportRun {
  export_id: string;
  status: string;
  count: number;
  total: number;
  started_at: string | null;
}

export interface ImportRun {
  started_at: string;
  total: number;
  processed: number;
}

export interface ModelStatus {
  id: string | null;
  /** idle | loading | downloading | ready | unavailable */
  state: string;
  /** hybrid (vectors + full text) or text (full text only) */
  mode: string;
  /** Memories waiting for a vector. */
  backlog: number;
  detail: { progress?: number; file?: string; loaded?: number; total?: number; reason?: string } | null;
  /** What to do when the model is unavailable (daemon/model-fix.ts). */
  fix: string | null;
}

export interface DaemonStatus {
  daemon: { pid: number; version: string; uptime_s: number; started_at: string; socket: string; home: string };
  capture: { state: string; paused_all: boolean; paused_sessions: string[]; paused_repos: string[]; session: string | null; sessions: SessionStatus[] };
  memories: { total: number; versions: number; by_space: Record<string, number>; by_scope: Record<string, number | null>; by_category: Record<string, number> };
  context: { cwd: string | null; repo: string | null; dir: string | null; session_id: string | null };
  journal: { pending_events: number; segments: number; bytes: number };
  flush: { backlog_sessions: number; last: { at: string; session_id: string; memories: number } | null };
  model: ModelStatus;
  jobs: { exports: ExportRun[]; imports: ImportRun[] };
  /** Whatever the daemon reports about sync; absent when the daemon has no sync section (shown as "off"). */
  sync: unknown;
  recent: RecentCapture[];
  last_error: { at: string; message: string } | null;
  /** What is wrong right now and how to fix it (empty when healthy). */
  problems: { kind: string; message: string; fix: string; since: string }[];
}

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}
function num(v: unknown, d = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : d;
}
function str(v: unknown, d = ''): string {
  return typeof v === 'string' ? v : d;
}
function strOrNull(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
function arr(v: unknown): Obj[] {
  return Array.isArray(v) ? v.map(obj) : [];
}
function counts<T extends number | null>(v: unknown, missing: T): Record<string, number | T> {
  const out: Record<string, number | T> = {};
  for (const [k, x] of Object.entries(obj(v))) out[k] = typeof x === 'number' ? x : missing;
  return out;
}

/** Normalize a status answer: every field the dashboard reads is present with a sane type. */
export function readStatus(raw: unknown): DaemonStatus {
  const r = obj(raw);
  const d = obj(r.daemon);
  const c = obj(r.capture);
  const m = obj(r.memories);
  const ctx = obj(r.context);
  const j = obj(r.journal);
  const f = obj(r.flush);
  const model = obj(r.model);
  const jobs = obj(r.jobs);
  const last = f.last ? obj(f.last) : null;
  const err = r.last_error ? obj(r.last_error) : null;
  const detail = model.detail ? obj(model.detail) : null;
  return {
    daemon: { pid: num(d.pid), version: str(d.version, '?'), uptime_s: num(d.uptime_s), started_at: str(d.started_at), socket: str(d.socket), home: str(d.home) },
    capture: {
      state: str(c.state, 'capturing'),
      paused_all: c.paused_all === true,
      paused_sessions: Array.isArray(c.paused_sessions) ? c.paused_sessions.filter((x): x is string => typeof x === 'string') : [],
      paused_repos: Array.isArray(c.paused_repos) ? c.paused_repos.filter((x): x is string => typeof x === 'string') : [],
      session: strOrNull(c.session),
      sessions: arr(c.sessions).map((s) => ({
        session_id: str(s.session_id),
        repo: strOrNull(s.repo),
        state: str(s.state, 'capturing'),
        paused_by: s.paused_by === 'all' || s.paused_by === 'repo' || s.paused_by === 'session' ? s.paused_by : null,
        pending: num(s.pending),
        last_activity: strOrNull(s.last_activity),
        last_flush: strOrNull(s.last_flush),
        memories: num(s.memories),
      })),
    },
    memories: { total: num(m.total), versions: num(m.versions), by_space: counts(m.by_space, 0), by_scope: counts(m.by_scope, null), by_category: counts(m.by_category, 0) },
    context: { cwd: strOrNull(ctx.cwd), repo: strOrNull(ctx.repo), dir: strOrNull(ctx.dir), session_id: strOrNull(ctx.session_id) },
    journal: { pending_events: num(j.pending_events), segments: num(j.segments), bytes: num(j.bytes) },
    flush: { backlog_sessions: num(f.backlog_sessions), last: last ? { at: str(last.at), session_id: str(last.session_id), memories: num(last.memories) } : null },
    model: {
      id: strOrNull(model.id),
      state: str(model.state, 'unavailable'),
      mode: str(model.mode, 'text'),
      backlog: num(model.backlog),
      detail: detail ? { ...(typeof detail.progress === 'number' ? { progress: detail.progress } : {}), ...(typeof detail.file === 'string' ? { file: detail.file } : {}), ...(typeof detail.loaded === 'number' ? { loaded: detail.loaded } : {}), ...(typeof detail.total === 'number' ? { total: detail.total } : {}), ...(typeof detail.reason === 'string' ? { reason: detail.reason } : {}) } : null,
      fix: strOrNull(model.fix),
    },
    jobs: {
      exports: arr(jobs.exports).map((x) => ({ export_id: str(x.export_id), status: str(x.status), count: num(x.count), total: num(x.total), started_at: strOrNull(x.started_at) })),
      imports: arr(jobs.imports).map((x) => ({ started_at: str(x.started_at), total: num(x.total), processed: num(x.processed) })),
    },
    sync: r.sync ?? null,
    recent: arr(r.recent).map((x) => ({ at: str(x.at), session_id: str(x.session_id), event: str(x.event), summary: str(x.summary) })),
    last_error: err ? { at: str(err.at), message: str(err.message) } : null,
    problems: arr(obj(r.health).problems).map((x) => ({ kind: str(x.kind), message: str(x.message), fix: str(x.fix), since: str(x.since) })),
  };
}
