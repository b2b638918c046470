/** What `service sync status` and the daemon's `/v1/status` show about sync. */
import type { ParkedVersion, PendingPurge, VerifyRecord } from './state.js';
import type { RoundReport, SyncPhase, SyncService } from './service.js';

/** Parked versions listed in full (the count is always exact). */
const PARKED_SHOWN = 20;

export interface SyncStatus {
  enabled: boolean;
  /** Why sync is off (null when on). */
  reason: string | null;
  state: SyncPhase;
  server: string | null;
  /** Did the server answer the last request (null: not tried yet)? */
  reachable: boolean | null;
  last_ok_at: string | null;
  last_error: { at: string; kind: string; code: string; message: string } | null;
  /** When a failed round is tried again. */
  next_attempt_at: string | null;
  last_push: { at: string; versions: number } | null;
  last_pull: { at: string; versions: number } | null;
  backlog: {
    /** At most this many local versions wait to be pushed; 0 means the server has all of them. */
    versions: number;
    /** Local purges not yet applied on the server. */
    purges: number;
  };
  parked: { versions: number; items: ParkedVersion[]; purges: PendingPurge[] };
  verify: VerifyRecord | null;
  cursor: { pushed_seq: number; committed_seq: number; pull_after: number };
  bytes: { sent: number; received: number };
  last_round: RoundReport | null;
}

export function syncStatus(s: SyncService): SyncStatus {
  const st = s.state;
  const purges = st.purges;
  const parked = st.parked;
  const failing = s.phase === 'backoff' || s.phase === 'blocked';
  return {
    enabled: s.enabled,
    reason: s.offReason,
    state: s.phase,
    server: s.transport?.baseUrl ?? null,
    reachable: s.reachable,
    last_ok_at: s.lastOkAt,
    last_error: s.lastError,
    next_attempt_at: failing ? s.nextAttemptAt : null,
    last_push: st.lastPush,
    last_pull: st.lastPull,
    backlog: {
      versions: Math.max(0, s.committedSeq - st.pushedSeq - st.serverSeqs.size),
      purges: purges.filter((p) => !p.error).length,
    },
    parked: { versions: parked.length, items: parked.slice(0, PARKED_SHOWN), purges: purges.filter((p) => p.error) },
    verify: st.verify,
    cursor: { pushed_seq: st.pushedSeq, committed_seq: s.committedSeq, pull_after: st.pullAfter },
    bytes: s.transport ? { ...s.transport.bytes } : { sent: 0, received: 0 },
    last_round: s.lastRound,
  };
}
