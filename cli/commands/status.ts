/** `service status`: capture state and health, with what to do when something is off. */
import { parse } from '../args.js';
import { callerSession } from '../caller-session.js';
import { EXIT, type Command } from '../command.js';
import { readyDaemon } from '../daemon-control.js';
import { plural } from '../plural.js';

interface Status {
  daemon: { pid: number; version: string; uptime_s: number; socket: string; home: string };
  capture: { state: string; paused_all: boolean; session: string | null; sessions: { session_id: string; state: string; pending: number; last_flush: string | null; memories: number }[] };
  memories: null | { total: number; by_space: Record<string, number>; by_scope: Record<string, number | null>; by_place?: Places; by_category: Record<string, number> };
  context: { repo: string | null; session_id: string | null };
  journal: { pending_events: number; segments: number; bytes: number };
  flush: { backlog_sessions: number; last: { at: string; memories: number } | null };
  model: null | { id: string | null; state: string; mode: string; backlog: number; detail?: { progress?: number; reason?: string }; fix?: string | null };
  health?: { ok: boolean; problems: { message: string; fix: string; since: string }[] };
  last_error: { at: string; message: string } | null;
  sync?: { enabled: boolean; reason: string | null; state: string; server: string | null; backlog: { versions: number; purges: number }; parked: { versions: number }; last_ok_at: string | null };
}

interface Places {
  this_repo: number;
  project_wide: number;
  other_repos: number;
  personal: number;
  others_personal: number;
}

/** "8 = 4 this repository + 2 project-wide (no repository) + 2 personal": parts that add up to the total. */
export function placesLine(total: number, p: Places, inRepo: boolean): string {
  const parts: [number, string][] = [
    [p.this_repo, 'this repository'],
    [p.project_wide, 'project-wide (no repository)'],
    [p.other_repos, inRepo ? 'other repositories' : 'in repositories'],
    [p.personal, 'personal'],
    [p.others_personal, "other users' personal"],
  ];
  const shown = parts.filter(([n, label], i) => n > 0 || (i === 0 && inRepo) || label === 'personal');
  return `${total} = ${shown.map(([n, label]) => `${n} ${label}`).join(' + ')}`;
}

export const statusCommand: Command = {
  path: ['status'],
  summary: 'capture state, memory counts, backlog, model and health',
  usage: 'service status [--session ID]',
  async run(args, ctx) {
    const { values } = parse(args, { session: { type: 'string' } }, this.usage);
    const caller = callerSession(ctx.io.env, values.session);
    const s = await (await readyDaemon(ctx)).status<Status>({ cwd: process.cwd(), ...(caller.session_id ? { session_id: caller.session_id } : {}) });
    if (values.json) {
      ctx.json(s);
      return EXIT.OK;
    }
    const session = s.context.session_id;
    const captureLine = s.capture.paused_all ? 'paused for all sessions (service resume --all)' : session ? `${s.capture.session} (session ${session})` : 'capturing (no agent session seen here yet)';
    const model = !s.model
      ? 'unavailable while the store cannot open'
      : s.model.state === 'ready'
        ? `${s.model.id} (hybrid search)`
        : s.model.state === 'downloading'
          ? `${s.model.id} downloading ${Math.round(s.model.detail?.progress ?? 0)}% (full-text search meanwhile)`
          : `${s.model.id ?? 'none'} ${s.model.state}: full-text search only`;
    ctx.out(`daemon     running, pid ${s.daemon.pid}, version ${s.daemon.version}, up ${s.daemon.uptime_s}s`);
    ctx.out(`capture    ${captureLine}`);
    for (const p of s.health?.problems ?? []) ctx.out(`problem    ${p.message} (since ${p.since})\n           fix: ${p.fix}`);
    if (s.memories) {
      ctx.out(`memories   ${s.memories.total} total: ${s.memories.by_space.project ?? 0} project, ${s.memories.by_space.personal ?? 0} personal`);
      if (s.memories.by_place) ctx.out(`           ${placesLine(s.memories.total, s.memories.by_place, s.context.repo !== null)}`);
      ctx.out(`scopes     ${Object.entries(s.memories.by_scope).map(([k, v]) => `${k} ${v ?? '-'}`).join(', ')} (repo = this repository + project-wide; dir and session lie within repo and user)`);
      if (s.context.repo) ctx.out(`repository ${s.context.repo}`);
    } else ctx.out('memories   unavailable: the store cannot open (see the problem above)');
    ctx.out(`backlog    ${s.journal.pending_events} captured events waiting in ${s.flush.backlog_sessions} session(s); embedding backlog ${s.model?.backlog ?? '-'}`);
    ctx.out(`last flush ${s.flush.last ? `${s.flush.last.at} (${plural(s.flush.last.memories, 'memory', 'memories')})` : 'none yet'}`);
    ctx.out(`model      ${model}`);
    if (s.model?.state === 'unavailable') {
      if (s.model.detail?.reason) ctx.out(`  why      ${s.model.detail.reason}`);
      if (s.model.fix) ctx.out(`  fix      ${s.model.fix}`);
    }
    if (s.sync) {
      const y = s.sync;
      ctx.out(
        `sync       ${y.enabled ? `${y.state} with ${y.server}; ${y.backlog.versions === 0 ? 'nothing waiting' : `up to ${y.backlog.versions} versions waiting`}${y.parked.versions > 0 ? `, ${y.parked.versions} parked` : ''}; last success ${y.last_ok_at ?? 'never'} (service sync status)` : `off: ${y.reason}`}`,
      );
    }
    if (s.last_error) ctx.out(`last error ${s.last_error.at}: ${s.last_error.message}`);
    if (s.memories?.total === 0) {
      ctx.out('');
      ctx.out(s.capture.state === 'paused' || s.capture.session === 'paused' ? 'No memories yet: capture is paused (service resume).' : 'No memories yet: memories appear after a session is flushed (at Stop, compaction, session end, or when idle).');
    }
    return EXIT.OK;
  },
};
