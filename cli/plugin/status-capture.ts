/**
 * The capture line of `service plugin status`, and when there is no memory yet, which of SPEC §7's
 * causes it is: capture paused, the session not flushed yet, or no session reaching the daemon.
 */
import type { Config } from '../../engine/index.js';
import type { Check } from './status.js';

/** The part of the daemon's GET /v1/status this check reads. */
export interface DaemonStatus {
  daemon: { pid: number; version: string; uptime_s: number };
  capture: { state: string; paused_all: boolean; session: string | null; sessions: { session_id: string; pending: number; last_flush: string | null }[] };
  memories: { total: number; by_scope: Record<string, number | null> };
  context: { repo: string | null; session_id: string | null };
  journal: { pending_events: number };
}

export function captureCheck(s: DaemonStatus, config: Config): Check {
  const scopes = Object.entries(s.memories.by_scope)
    .filter(([, n]) => n !== null)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const where = s.context.session_id ? ` (session ${s.context.session_id})` : '';
  const count = `${s.memories.total} memories${scopes ? ` (here: ${scopes})` : ''}`;
  if (s.capture.paused_all) return { id: 'capture', level: 'warn', summary: `paused for every session; ${count}`, fix: 'service resume --all (nothing said while paused is captured; /memory:remember still works)' };
  if (s.capture.session === 'paused') return { id: 'capture', level: 'warn', summary: `paused for this session${where}; ${count}`, fix: '/memory:resume (or: service resume)' };
  if (s.memories.total > 0) return { id: 'capture', level: 'ok', summary: `capturing${where}; ${count}` };
  // No memory at all: say which cause it is.
  if (s.journal.pending_events > 0) {
    const minutes = Math.round(config.idleFlushMs / 60_000);
    return {
      id: 'capture',
      level: 'warn',
      summary: `no memory yet: ${s.journal.pending_events} captured events wait to be flushed`,
      fix: `they are flushed at the session's next Stop, compaction or end, or after ${minutes || 1} idle minute(s) (SERVICE_IDLE_FLUSH_MS)`,
    };
  }
  if (s.capture.sessions.length === 0) {
    return { id: 'capture', level: 'warn', summary: 'no memory yet: no agent session has reached the daemon', fix: 'restart Claude Code so it loads the plugin, work in a session, then check again (claude --debug shows hook errors)' };
  }
  return { id: 'capture', level: 'info', summary: 'capturing; sessions were flushed but held nothing worth remembering yet', fix: '/memory:remember stores something explicitly' };
}
