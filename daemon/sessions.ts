/**
 * What the daemon knows about each agent session: where it runs, its transcript and cursors.
 * Persisted after each flush; the journal replays whatever happened since.
 */
import { readState, writeState } from './state-file.js';
import type { JournalEntry } from './journal.js';
import type { Turn } from './transcript.js';

export interface SessionRecord {
  id: string;
  cwd: string | null;
  repo: string | null;
  dir: string | null;
  transcript: string | null;
  /** Transcript byte offset up to which turns were flushed. */
  offset: number;
  /**
   * Where the read holding the request of the turn in progress began (see openTurn), while one is.
   * A daemon started again reads the transcript from there, so a turn a restart cut in two is still
   * one episode (what was stored already is found again and not written twice).
   */
  openFrom?: number;
  /**
   * Where the queue line of a prompt typed while the agent worked starts, while the reads so far end
   * before the running turn took it or not (`ReadResult.queuedAt`): the next read, in this daemon or
   * one started again, reads it there.
   */
  queuedAt?: number;
  /** Highest journal seq flushed for this session. */
  flushedJ: number;
  lastActivity: number;
  lastFlush: number | null;
  ended: boolean;
  /** Captured turns or memories produced, for status. */
  memories: number;
}

/** In-memory part of a session: work not yet flushed. */
export interface LiveSession extends SessionRecord {
  pending: JournalEntry[];
  /** Transcript turns read ahead of the flushed offset. */
  buffered: Turn[];
  /** Where the next transcript read starts (≥ offset). */
  readOffset: number;
  /**
   * The turn in progress at the last flush (a compaction or an idle flush inside a long turn), from
   * its request on, redacted: its episode is recorded once the turn ends, request and outcome together.
   */
  openTurn?: Turn[];
  /**
   * The tool results the transcript has shown (their `tool_use_id`, the latest few thousand; in memory
   * only): a PostToolUse event of one of them adds nothing (`mergeTurns`).
   */
  toolResults?: Set<string>;
  /**
   * What was said on transcript lines outside the turns being merged: lines the turns leave out (a
   * rewound branch; `ReadResult.elsewhere`) and the words of turns earlier flushes read (a Stop event
   * that comes after a flush already read its message); as `mergeTurns` compares words, hashed; the
   * latest few thousand, in memory only.
   */
  saidElsewhere?: Set<string>;
}

/** Forget the turn in progress and where to read it again from (a purge, a new transcript, a salvage). */
export function forgetOpenTurn(s: LiveSession): void {
  s.openTurn = undefined;
  s.openFrom = undefined;
}

/** Sessions idle and ended for this long are forgotten (their memories stay). */
const FORGET_AFTER_MS = 7 * 24 * 3600_000;

export class SessionTable {
  private readonly live = new Map<string, LiveSession>();

  constructor(private readonly file: string) {
    const saved = readState<Record<string, SessionRecord>>(file, {});
    const now = Date.now();
    for (const r of Object.values(saved)) {
      if (r.ended && now - r.lastActivity > FORGET_AFTER_MS) continue;
      const { openFrom, ...rec } = r;
      const offset = openFrom ?? r.offset;
      this.live.set(r.id, { ...rec, offset, pending: [], buffered: [], readOffset: offset });
    }
  }

  get(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  /** The session, created on first sight. */
  touch(id: string, now: number): LiveSession {
    let s = this.live.get(id);
    if (!s) {
      s = { id, cwd: null, repo: null, dir: null, transcript: null, offset: 0, flushedJ: 0, lastActivity: now, lastFlush: null, ended: false, memories: 0, pending: [], buffered: [], readOffset: 0 };
      this.live.set(id, s);
    }
    s.lastActivity = now;
    return s;
  }

  all(): LiveSession[] {
    return [...this.live.values()];
  }

  save(): void {
    const out: Record<string, SessionRecord> = {};
    for (const s of this.live.values()) {
      // Only cursors and counts: turns (buffered, a turn in progress), tool-result ids and words said elsewhere stay in memory, never on disk.
      const { pending: _p, buffered: _b, readOffset: _r, openTurn: _o, toolResults: _t, saidElsewhere: _e, ...rec } = s;
      out[s.id] = rec;
    }
    writeState(this.file, out);
  }
}
