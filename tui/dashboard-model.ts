/**
 * The dashboard's view model: everything the status screen shows, as display strings with tones,
 * computed from one status answer and the clock. Components render it as is; tests call it
 * directly. Two models compare equal (JSON) exactly when the screen would look the same, which is
 * how the poller avoids re-rendering an unchanged screen.
 */
import { formatAge, formatBytes, formatCount, formatDuration, formatPercent, fraction, shortId, shortRepo } from './format.js';
import type { DaemonStatus } from './status-shape.js';
import { syncLine } from './sync-view.js';
import type { Tone } from './theme.js';

export interface SessionRow {
  /** null: the "all sessions" row. */
  sessionId: string | null;
  label: string;
  state: string;
  /** Paused by its own pause (what pressing p on it toggles). */
  ownPause: boolean;
  /** Paused because its repository is (service resume in the repository lifts it). */
  repoPause: boolean;
  detail: string;
  tone: Tone;
}

export interface PipelineLine {
  label: string;
  text: string;
  tone: Tone;
  /** 0..1 when this is long work with a known end (drawn as a bar). */
  progress?: number;
}

export interface FeedLine {
  age: string;
  session: string;
  event: string;
  summary: string;
}

export interface DashboardModel {
  daemon: { pid: number; version: string; uptime: string; repo: string | null };
  /** `pause` says which pause covers the dashboard's repository, if any (the panel title). */
  capture: { globalPaused: boolean; pause: string | null; rows: SessionRow[] };
  memories: { total: string; scopes: string[]; spaces: string[]; categories: string[] };
  pipeline: PipelineLine[];
  recent: FeedLine[];
}

/** Sessions shown, most recently active first. */
function sessionRows(s: DaemonStatus, now: number): SessionRow[] {
  const all = s.capture.paused_all;
  const own = new Set(s.capture.paused_sessions);
  const repos = s.capture.paused_repos.length;
  const rows: SessionRow[] = [
    { sessionId: null, label: 'all sessions', state: all ? 'paused' : 'capturing', ownPause: all, repoPause: false, detail: `${s.capture.sessions.length} active${!all && repos > 0 ? ` · ${repos} repo${repos === 1 ? '' : 's'} paused` : ''}`, tone: all ? 'warn' : 'ok' },
  ];
  const sessions = [...s.capture.sessions].sort((a, b) => (b.last_activity ?? '').localeCompare(a.last_activity ?? ''));
  for (const x of sessions) {
    const mine = own.has(x.session_id);
    const by = mine ? 'session' : all ? 'all' : (x.paused_by ?? (x.state === 'paused' ? 'session' : null));
    const paused = by !== null;
    const repo = shortRepo(x.repo);
    rows.push({
      sessionId: x.session_id,
      label: `${shortId(x.session_id)}${repo ? ` ${repo}` : ''}`,
      // Which pause: 'paused' (its own), 'repo paused' (its repository's), 'all paused'.
      state: by === 'session' ? 'paused' : by ? `${by} paused` : 'capturing',
      ownPause: mine,
      repoPause: by === 'repo',
      detail: `${x.pending > 0 ? `${x.pending} waiting · ` : ''}${formatAge(x.last_activity, now)}`,
      tone: paused ? 'warn' : 'ok',
    });
  }
  return rows;
}

/** Which pause applies here: all sessions, this repository, or only some sessions; null when none. */
function pauseKind(s: DaemonStatus): string | null {
  if (s.capture.paused_all) return 'paused: all sessions';
  if (s.context.repo && s.capture.paused_repos.includes(s.context.repo)) return 'paused: this repo';
  if (s.capture.paused_repos.length > 0) return `paused: ${s.capture.paused_repos.map((r) => shortRepo(r) ?? r).join(', ')}`;
  const sessions = s.capture.paused_sessions.length;
  return sessions > 0 ? `paused: ${sessions} session${sessions === 1 ? '' : 's'}` : null;
}

function modelLine(s: DaemonStatus): PipelineLine {
  const m = s.model;
  const id = m.id ?? 'no model';
  if (m.state === 'ready') return { label: 'model', text: `ready · ${id} · hybrid search`, tone: 'ok' };
  if (m.state === 'downloading') {
    const p = fraction(m.detail?.progress ?? 0, 100);
    const size = m.detail?.total ? ` of ${formatBytes(m.detail.total)}` : '';
    return { label: 'model', text: `downloading ${id} ${formatPercent(p)}${size} · lexical search meanwhile`, tone: 'warn', progress: p };
  }
  if (m.state === 'loading' || m.state === 'idle') return { label: 'model', text: `loading ${id} · lexical search meanwhile`, tone: 'muted' };
  return { label: 'model', text: `lexical only (full-text search)${m.detail?.reason ? ` · ${m.detail.reason}` : ''}`, tone: 'warn' };
}

function pipelineLines(s: DaemonStatus, now: number, embedPeak: number): PipelineLine[] {
  const pending = s.journal.pending_events;
  const flush = s.flush.last ? `last flush ${formatAge(s.flush.last.at, now)}, ${formatCount(s.flush.last.memories)} new` : 'no flush yet';
  const lines: PipelineLine[] = [
    {
      label: 'journal',
      text: pending > 0 ? `${formatCount(pending)} events to flush in ${s.flush.backlog_sessions} session${s.flush.backlog_sessions === 1 ? '' : 's'} · ${flush}` : `nothing waiting · ${flush}`,
      tone: 'normal',
    },
    modelLine(s),
    ...(s.model.state === 'unavailable' && s.model.fix ? [{ label: 'fix', text: s.model.fix, tone: 'warn' as const }] : []),
  ];
  if (s.model.backlog > 0) {
    if (s.model.state === 'ready') {
      const peak = Math.max(embedPeak, s.model.backlog);
      const done = peak - s.model.backlog;
      lines.push({ label: 'embed', text: `re-embedding ${formatCount(done)}/${formatCount(peak)} · ${formatCount(s.model.backlog)} waiting`, tone: 'accent', progress: fraction(done, peak) });
    } else lines.push({ label: 'embed', text: `${formatCount(s.model.backlog)} memories wait for the model (full-text finds them)`, tone: 'muted' });
  }
  const sync = syncLine(s.sync, now);
  lines.push({ label: 'sync', text: sync.text, tone: sync.tone });
  for (const e of s.jobs.exports) {
    lines.push({ label: 'export', text: `${formatCount(e.count)}/${formatCount(e.total)} versions written`, tone: 'accent', progress: fraction(e.count, e.total) });
  }
  for (const i of s.jobs.imports) {
    lines.push({ label: 'import', text: `${formatCount(i.processed)}/${formatCount(i.total)} versions`, tone: 'accent', progress: fraction(i.processed, i.total) });
  }
  for (const p of s.problems) lines.push({ label: 'problem', text: `${p.message} · fix: ${p.fix}`, tone: 'error' });
  if (s.last_error) lines.push({ label: 'error', text: `${formatAge(s.last_error.at, now)}: ${s.last_error.message}`, tone: 'error' });
  return lines;
}

export function dashboardModel(s: DaemonStatus, now: number, embedPeak = 0): DashboardModel {
  const m = s.memories;
  const categories = Object.entries(m.by_category)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${k} ${formatCount(n)}`);
  return {
    daemon: { pid: s.daemon.pid, version: s.daemon.version, uptime: formatDuration(s.daemon.uptime_s), repo: s.context.repo ? shortRepo(s.context.repo) : null },
    capture: { globalPaused: s.capture.paused_all, pause: pauseKind(s), rows: sessionRows(s, now) },
    memories: {
      total: formatCount(m.total),
      scopes: Object.entries(m.by_scope).map(([k, n]) => `${k} ${n === null ? '-' : formatCount(n)}`),
      spaces: Object.entries(m.by_space).map(([k, n]) => `${k} ${formatCount(n)}`),
      categories: categories.length > 0 ? categories : ['none yet'],
    },
    pipeline: pipelineLines(s, now, embedPeak),
    recent: [...s.recent].reverse().map((r) => ({ age: formatAge(r.at, now), session: shortId(r.session_id), event: r.event, summary: r.summary.replace(/\s+/g, ' ').trim() })),
  };
}
