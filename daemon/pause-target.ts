/**
 * Pausing and resuming capture from a command: which sessions a target means (a session, a
 * repository, a working directory, or all), and what happens to what they captured so far.
 */
import { EngineError } from '../engine/index.js';
import { fileSize } from './file-size.js';
import { readAhead } from './flush.js';
import type { FlushQueue } from './flush-queue.js';
import type { PauseState } from './pause.js';
import { repoInfo } from './repo.js';
import type { SessionTable } from './sessions.js';

export interface PauseRequest {
  session_id?: string | null;
  all?: boolean;
  cwd?: string;
  repo?: string | null;
}

export interface PauseOutcome {
  paused_all: boolean;
  paused_sessions: string[];
  paused_repos: string[];
  session_id: string | null;
  repo: string | null;
}

/** Pause automatic capture for a session or all; what was captured before is flushed. */
export async function setPaused(deps: { sessions: SessionTable; pause: PauseState; flushes: FlushQueue }, target: PauseRequest, paused: boolean): Promise<PauseOutcome> {
  const { sessions, pause, flushes } = deps;
  // From a working directory: the whole repository (every session, new ones too), else the latest session there.
  if (!target.all && !target.session_id && target.cwd) {
    const repo = repoInfo(target.cwd).repo;
    target = repo ? { ...target, repo } : { ...target, session_id: latestSessionIn(sessions, target.cwd) };
  }
  if (!target.all && !target.session_id && !target.repo) {
    throw new EngineError('VALIDATION', 'not in a repository and no active agent session here; pass a session id, or pause everything with --all', { field: 'session_id' });
  }
  if (target.session_id && !target.all && !sessions.get(target.session_id)) {
    throw new EngineError('NOT_FOUND', `no agent session ${target.session_id} is known to this daemon; see service status for the sessions`, { session_id: target.session_id });
  }
  const affected = target.all ? sessions.all() : target.repo ? sessions.all().filter((s) => s.repo === target.repo) : [sessions.get(target.session_id!)!];
  if (paused) {
    // Take in what the transcript holds up to now, then stop reading it.
    for (const s of affected) if (!pause.isPaused(s.id)) readAhead(s);
    pause.pause(target);
    for (const s of affected) if (s.pending.length > 0 || s.buffered.length > 0) void flushes.schedule(s.id).catch(() => {});
  } else {
    const wasPaused = affected.filter((s) => pause.isPaused(s.id));
    // Nothing said while paused is ever captured: finish what was taken in before the pause
    // (still paused, so the transcript is not read), then skip the transcript to its end.
    for (const s of wasPaused) {
      await flushes.queued(s.id)?.catch(() => null);
      const size = s.transcript ? fileSize(s.transcript) : 0;
      s.offset = s.readOffset = size;
      s.buffered = [];
      s.openFrom = undefined;
      s.queuedAt = undefined;
    }
    pause.resume(target);
    sessions.save();
  }
  return { paused_all: pause.all, paused_sessions: pause.pausedSessions(), paused_repos: pause.pausedRepos(), session_id: target.session_id ?? null, repo: target.repo ?? null };
}

/** The most recently active, not ended session working in `cwd` (or below it). */
export function latestSessionIn(sessions: SessionTable, cwd: string): string | null {
  const here = cwd.replace(/\/+$/, '');
  const match = sessions
    .all()
    .filter((s) => !s.ended && s.cwd && (s.cwd === here || s.cwd.startsWith(`${here}/`) || here.startsWith(`${s.cwd}/`)))
    .sort((a, b) => b.lastActivity - a.lastActivity);
  return match[0]?.id ?? null;
}
