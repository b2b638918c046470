/**
 * How hook events come into the daemon: captured into the journal (once per capture id), replayed
 * from the journal on start, and taken from the spool hooks wrote while no daemon answered. Each
 * event lands in its session's pending list for the flush queue.
 */
import fs from 'node:fs';
import { EngineError } from '../engine/index.js';
import { excluded, FLUSH_EVENTS, journalPayload, CAPTURE_EVENTS } from './capture.js';
import type { DaemonDeps } from './daemon.js';
import type { FlushQueue } from './flush-queue.js';
import { storageFix, type Health } from './health.js';
import type { Journal, JournalEntry } from './journal.js';
import type { PauseState } from './pause.js';
import type { RecalledPerSession } from './recall-seen.js';
import { repoInfo } from './repo.js';
import { forgetOpenTurn, type LiveSession, type SessionTable } from './sessions.js';
import { CAPTURE_ID_FIELD, ingestSpool } from './spool.js';
import type { TranscriptWatcher } from './watch.js';

/** How often the hooks' spool is looked at (a hook may spool while this daemon starts). */
const SPOOL_SCAN_MS = 1000;
/** Capture ids remembered to drop an event sent twice (a retry after a reset, a spooled copy). */
const MAX_CAPTURE_IDS = 50_000;

export interface CaptureResult {
  captured: boolean;
  j?: number;
  paused?: boolean;
  reason?: string;
  /** This capture id was journaled before (as `j`): nothing new was written. */
  duplicate?: boolean;
}

export interface CaptureIntakeParts {
  health: Health;
  journal: Journal;
  sessions: SessionTable;
  /** The latest live session in a folder (for an event that came without a session id). */
  latestSessionIn: (cwd: string) => string | null;
  pause: PauseState;
  watcher: TranscriptWatcher;
  flushes: FlushQueue;
  /** True once the daemon stops: the spool is not looked at again. */
  stopping: () => boolean;
  /** What recall showed each session (a captured SessionStart makes its next prompt open with the opening block). */
  recalled: RecalledPerSession;
  /** Recent captures, newest last: this appends to it (the daemon's live feed). */
  recent: { at: string; session_id: string; event: string; summary: string }[];
}

export class CaptureIntake {
  /** Capture id → the seq it was journaled with. */
  private readonly captureIds = new Map<string, number>();
  private readonly captureInflight = new Map<string, Promise<JournalEntry>>();
  private spoolTimer: NodeJS.Timeout | null = null;
  private spoolRound: Promise<void> | null = null;

  constructor(
    private readonly deps: DaemonDeps,
    private readonly parts: CaptureIntakeParts,
  ) {}

  /** Open the journal and replay it (fast, so captures are accepted at once). */
  openJournal(): void {
    const { sessions } = this.parts;
    const log = this.deps.logger;
    fs.mkdirSync(this.deps.paths.stateDir, { recursive: true, mode: 0o700 });
    // Seqs continue above anything a session already flushed, whatever is left of the journal.
    const floor = sessions.all().reduce((m, s) => Math.max(m, s.flushedJ), 0) + 1;
    const entries = this.parts.journal.open(floor);
    this.noteJournalDamage();
    let replayed = 0;
    for (const e of entries) {
      const s = sessions.touch(e.s, e.t);
      this.applyMeta(s, e.p);
      if (e.c) this.rememberCaptureId(e.c, e.j);
      if (e.j > s.flushedJ) {
        s.pending.push(e);
        replayed++;
      }
    }
    if (replayed > 0) log.info('journal replayed', { entries: replayed });
    for (const s of sessions.all()) if (!s.ended && s.transcript) this.parts.watcher.watch(s.transcript);
  }

  private rememberCaptureId(id: string, j: number): void {
    this.captureIds.set(id, j);
    if (this.captureIds.size > MAX_CAPTURE_IDS) this.captureIds.delete(this.captureIds.keys().next().value!);
  }

  /** Take in what hooks spooled while they could not reach this daemon; then keep looking every second. */
  async ingestSpool(): Promise<void> {
    this.spoolRound ??= ingestSpool(this.deps.paths.spoolDir, (p) => this.capture(p))
      .then((r) => {
        if (r.ingested > 0 || r.setAside > 0 || r.left > 0) this.deps.logger.info('spooled hook events ingested', { ...r });
      })
      .catch((err: unknown) => this.deps.logger.warn('the spool could not be read', { err }))
      .finally(() => (this.spoolRound = null));
    await this.spoolRound;
    if (!this.spoolTimer && !this.parts.stopping()) {
      this.spoolTimer = setInterval(() => void this.ingestSpool(), SPOOL_SCAN_MS);
      this.spoolTimer.unref();
    }
  }

  /** Stop looking at the spool; resolves once a round in progress has ended. */
  async stopSpool(): Promise<void> {
    if (this.spoolTimer) clearInterval(this.spoolTimer);
    await this.spoolRound;
  }

  private noteJournalDamage(): void {
    const damage = this.parts.journal.damage;
    if (damage.length === 0) return;
    this.deps.logger.warn('journal lines skipped on start', { damage });
    const damaged = damage.filter((d) => d.kind === 'damaged');
    if (damaged.length === 0) return; // only a torn last line: a write cut by a crash, never acknowledged
    const where = [...new Set(damaged.map((d) => `${d.segment} line ${d.line}`))].slice(0, 5).join(', ');
    this.parts.health.report(
      'journal_damage',
      `${damaged.length} damaged line(s) in the capture journal were skipped on start (${where}); every entry after them was kept`,
      `nothing to do: the skipped bytes are in ${this.deps.paths.journalDir} until those segments are flushed (the daemon log lists them)`,
    );
  }

  private applyMeta(s: LiveSession, p: Record<string, unknown>): void {
    if (typeof p.cwd === 'string' && p.cwd !== s.cwd) {
      s.cwd = p.cwd;
      const info = repoInfo(p.cwd);
      s.repo = info.repo;
      s.dir = info.dir;
    }
    if (typeof p.transcript_path === 'string' && p.transcript_path !== s.transcript) {
      s.transcript = p.transcript_path;
      s.offset = 0;
      s.readOffset = 0;
      s.buffered = [];
      forgetOpenTurn(s);
    }
  }

  async capture(payload: Record<string, unknown>, opts: { recalling?: boolean } = {}): Promise<CaptureResult> {
    const { health } = this.parts;
    const log = this.deps.logger;
    const event = String(payload.hook_event_name ?? '');
    if (!(CAPTURE_EVENTS as readonly string[]).includes(event)) {
      throw new EngineError('VALIDATION', `hook_event_name must be one of ${CAPTURE_EVENTS.join(', ')}`, { field: 'hook_event_name' });
    }
    const sessionId = this.captureSession(payload, event);
    if (!sessionId) throw new EngineError('VALIDATION', 'session_id is required', { field: 'session_id' });
    const ex = excluded(payload, this.deps.paths.home);
    if (!ex.capture) return { captured: false, ...(ex.reason ? { reason: ex.reason } : {}) };
    // A SessionStart captured, not recalled for: the session's next prompt opens with its opening block.
    if (event === 'SessionStart' && !opts.recalling) this.parts.recalled.started(sessionId, payload.source);
    const now = Date.now();
    const s = this.parts.sessions.touch(sessionId, now);
    const p = journalPayload(event, payload);
    this.applyMeta(s, p);
    if (s.transcript && !s.ended) this.parts.watcher.watch(s.transcript);
    if (this.parts.pause.isPaused(sessionId)) return { captured: false, paused: true };
    const rawId = payload[CAPTURE_ID_FIELD];
    const captureId = typeof rawId === 'string' && rawId.length > 0 && rawId.length <= 128 ? rawId : undefined;
    const seen = captureId ? this.captureIds.get(captureId) : undefined;
    if (seen !== undefined) return { captured: true, j: seen, duplicate: true };
    const inflight = captureId ? this.captureInflight.get(captureId) : undefined;
    if (inflight) return { captured: true, j: (await inflight).j, duplicate: true };
    let entry;
    const appending = this.parts.journal.append({ t: now, s: sessionId, e: event, p, ...(captureId ? { c: captureId } : {}) });
    if (captureId) this.captureInflight.set(captureId, appending);
    try {
      entry = await appending;
    } catch (err) {
      // Refused, never torn: the hook is told, and spools the event or retries.
      health.report('journal_write', err instanceof Error ? err.message : String(err), storageFix(err, this.deps.paths.journalDir));
      log.error('capture refused: the journal could not be written', { err, session: sessionId, event });
      if (captureId) this.captureInflight.delete(captureId);
      throw err;
    }
    if (health.clear('journal_write')) log.info('the journal is writable again');
    if (captureId) {
      this.rememberCaptureId(captureId, entry.j);
      this.captureInflight.delete(captureId);
    }
    s.pending.push(entry);
    this.noteRecent(entry.s, event, p);
    if (FLUSH_EVENTS.has(event)) {
      if (event === 'SessionEnd') s.ended = true;
      this.parts.flushes.flushAfter(sessionId, event);
    }
    return { captured: true, j: entry.j };
  }

  /**
   * The event's session: its session_id, else (a hook that got no stdin from Claude Code) the
   * latest live session in its cwd, logged so the fallback shows in the daemon log.
   */
  private captureSession(payload: Record<string, unknown>, event: string): string | null {
    const log = this.deps.logger;
    if (typeof payload.session_id === 'string' && payload.session_id) {
      if (payload.session_id_source === 'env') log.warn('hook event without stdin: session id taken from CLAUDE_CODE_SESSION_ID', { event, session: payload.session_id });
      return payload.session_id;
    }
    const cwd = typeof payload.cwd === 'string' ? payload.cwd : null;
    const latest = cwd ? this.parts.latestSessionIn(cwd) : null;
    if (latest) log.warn('hook event without a session id: attributed to the latest session in its folder', { event, cwd, session: latest });
    else log.warn('hook event without a session id and no live session in its folder: dropped', { event, cwd });
    return latest;
  }

  private noteRecent(sessionId: string, event: string, p: Record<string, unknown>): void {
    const { recent } = this.parts;
    const text = String(p.prompt ?? p.message ?? p.error ?? p.input ?? p.tool ?? p.source ?? p.reason ?? '');
    recent.push({ at: new Date().toISOString(), session_id: sessionId, event, summary: text.replace(/\s+/g, ' ').slice(0, 120) });
    if (recent.length > 50) recent.shift();
  }
}
