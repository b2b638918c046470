/**
 * The per-machine daemon: capture → journal → flush → extract → store, and recall, for every
 * agent session of one user and data dir. Transport-free: daemon/server.ts puts it on a socket.
 * The Daemon composes its parts: the capture intake (capture-intake.ts), the flush queue
 * (flush-queue.ts), the store's opening (store-open.ts), recall for the hooks (recall-hook.ts),
 * pause targets (pause-target.ts) and remember (remember.ts).
 */
import { LanceStore, MemoryEngine, ResidentBudget, type Config, type Embedder, type Extractor, type IngestResult, type Logger, type Paths } from '../engine/index.js';
import { CaptureIntake, type CaptureResult } from './capture-intake.js';
import { flushSession, type FlushResult } from './flush.js';
import { FlushQueue } from './flush-queue.js';
import { Journal } from './journal.js';
import { Health } from './health.js';
import { PauseState } from './pause.js';
import { latestSessionIn, setPaused, type PauseOutcome, type PauseRequest } from './pause-target.js';
import { recallForHook, type RecallHookResult } from './recall-hook.js';
import { RecalledPerSession } from './recall-seen.js';
import { remember, type RememberRequest } from './remember.js';
import { forgetOpenTurn, SessionTable } from './sessions.js';
import { StoreOpener } from './store-open.js';
import { createSync, SYNC_DRAIN_MS } from './sync-setup.js';
import type { SyncService } from '../sync/index.js';
import { TranscriptWatcher } from './watch.js';

export type { CaptureResult };

export interface DaemonDeps {
  config: Config;
  paths: Paths;
  logger: Logger;
  embedder: Embedder | null;
  extractor: Extractor;
  version: string;
}

export class Daemon {
  readonly startedAt = Date.now();
  readonly journal: Journal;
  readonly sessions: SessionTable;
  readonly pause: PauseState;
  readonly engine: MemoryEngine;
  /** What is wrong right now (storage, journal, socket), with the fix: status shows it. */
  readonly health = new Health();
  private readonly store: LanceStore;
  private started = false;
  /** Mirror into a /v1 server (off unless SERVICE_BASE_URL and SERVICE_API_KEY are set). */
  readonly sync: SyncService;
  private readonly watcher: TranscriptWatcher;
  private readonly flushes: FlushQueue;
  private readonly opener: StoreOpener;
  private readonly intake: CaptureIntake;
  private stopping = false;
  lastError: { at: string; message: string } | null = null;
  lastFlush: { at: string; session_id: string; memories: number } | null = null;
  /** Recent captures, newest last (for the dashboard's live feed). */
  readonly recent: { at: string; session_id: string; event: string; summary: string }[] = [];
  /** Memories recall already showed each session (injected once per session). */
  private readonly recalled = new RecalledPerSession();

  constructor(private readonly deps: DaemonDeps) {
    this.journal = new Journal({ dir: deps.paths.journalDir });
    this.sessions = new SessionTable(`${deps.paths.stateDir}/sessions.json`);
    this.pause = new PauseState(`${deps.paths.stateDir}/pause.json`, (id) => this.sessions.get(id)?.repo ?? null);
    this.store = new LanceStore({ dir: deps.paths.lanceDir, dim: deps.embedder?.dim ?? 384, logger: deps.logger, residentBudget: new ResidentBudget(deps.config.residentSearchRows) });
    this.engine = new MemoryEngine({
      store: this.store,
      embedder: deps.embedder,
      logger: deps.logger,
      maxContentChars: deps.config.maxContentChars,
      maxMetadataBytes: deps.config.maxMetadataBytes,
      onUpkeepError: (err) => this.storeFailed(err),
    });
    this.sync = createSync(this.engine, deps.config, deps.paths, deps.logger, deps.version);
    // A purge also takes the flushed journal entries the memory came from off the disk, and the
    // turns in progress held for their episode (a memory may have come from them: its text must not
    // come back in the episode).
    this.engine.onPurge((_ids, phase) => {
      if (phase !== 'after') return;
      for (const s of this.sessions.all()) forgetOpenTurn(s);
      this.scrubJournal();
    });
    this.watcher = new TranscriptWatcher((file) => this.onTranscriptChange(file));
    const { health, sessions, pause, journal, engine, store, sync, watcher, recalled, recent } = this;
    const stopping = (): boolean => this.stopping;
    this.flushes = new FlushQueue(deps, { health, sessions, pause, stopping, flushNow: (id) => this.flushNow(id) });
    this.opener = new StoreOpener(deps, { store, engine, afterOpen: () => this.afterOpen(), stopping, health, sessions, sync });
    this.intake = new CaptureIntake(deps, { health, journal, sessions, latestSessionIn: (cwd) => this.latestSessionIn(cwd), pause, watcher, flushes: this.flushes, stopping, recalled, recent });
  }

  get userId(): string {
    return this.deps.config.userId;
  }

  get paths(): Paths {
    return this.deps.paths;
  }

  get extractor(): Extractor {
    return this.deps.extractor;
  }

  private get log(): Logger {
    return this.deps.logger;
  }

  /** Open the journal and replay it (fast, so captures are accepted at once). */
  openJournal(): void {
    this.intake.openJournal();
  }

  /** Take in what hooks spooled while they could not reach this daemon; then keep looking every second. */
  ingestSpool(): Promise<void> {
    return this.intake.ingestSpool();
  }

  /** Open the engine in the background (StoreOpener.openEngine: a failure is never cached). */
  openEngine(): Promise<void> {
    return this.opener.openEngine();
  }

  /** A store read failed after the store opened: maybe open it again to check it (StoreOpener.storeFailed). */
  storeFailed(err: unknown): void {
    this.opener.storeFailed(err);
  }

  /** Once per process, after the first successful open: sync, the replayed flushes, the idle timer. */
  private async afterOpen(): Promise<void> {
    if (this.started) return;
    this.started = true;
    // Sync follows the engine from before its first write (purges, the outbox cursor). Local
    // work never waits on sync: if it cannot start, the daemon runs local only and says why.
    await this.sync.start().catch((err: unknown) => {
      this.lastError = { at: new Date().toISOString(), message: `sync could not start: ${err instanceof Error ? err.message : String(err)}` };
      this.log.error('sync could not start', { err });
    });
    for (const s of this.sessions.all()) if (s.pending.length > 0) void this.scheduleFlush(s.id).catch(() => {});
    void this.opener.warm();
    this.flushes.startIdleCheck();
  }

  /** Resolves once the first searches have run (the store's files and indexes are loaded). */
  get warmed(): Promise<void> {
    return this.opener.warmed;
  }

  /** The engine once it is open. */
  async ready(): Promise<MemoryEngine> {
    await this.openEngine();
    return this.engine;
  }

  // ------------------------------------------------------------------ capture

  capture(payload: Record<string, unknown>, opts: { recalling?: boolean } = {}): Promise<CaptureResult> {
    return this.intake.capture(payload, opts);
  }

  private onTranscriptChange(file: string): void {
    const now = Date.now();
    for (const s of this.sessions.all()) if (s.transcript === file && !this.pause.isPaused(s.id)) s.lastActivity = now;
  }

  // ------------------------------------------------------------------ flush

  /** Flush a session (coalescing requests while one runs). Flushes run one at a time. */
  scheduleFlush(sessionId: string): Promise<FlushResult | null> {
    return this.flushes.schedule(sessionId);
  }

  private async flushNow(sessionId: string): Promise<FlushResult | null> {
    const s = this.sessions.get(sessionId);
    if (!s) return null;
    const paused = this.pause.isPaused(sessionId);
    try {
      await this.openEngine();
      const result = await flushSession(s, { engine: this.engine, extractor: this.deps.extractor, userId: this.deps.config.userId, readTranscript: !paused });
      this.sessions.save();
      this.compactJournal();
      this.flushes.succeeded(sessionId);
      const written = result.results.filter((r) => r.event !== 'NOOP').length;
      this.lastFlush = { at: new Date().toISOString(), session_id: sessionId, memories: written };
      if (s.ended && s.transcript) this.watcher.unwatch(s.transcript);
      this.log.info('flushed', { session: sessionId, turns: result.turns, candidates: result.candidates, written });
      if (result.refused) this.log.warn('records the store refused were left out of the flush', { session: sessionId, refused: result.refused });
      return result;
    } catch (err) {
      this.lastError = { at: new Date().toISOString(), message: err instanceof Error ? err.message : String(err) };
      this.log.error('flush failed', { session: sessionId, err });
      this.storeFailed(err);
      this.flushes.failed(sessionId, err);
      throw err;
    }
  }

  /** Delete journal segments every entry of which is flushed (a failure only leaves them longer). */
  private compactJournal(): void {
    try {
      this.journal.compact((e) => e.j <= (this.sessions.get(e.s)?.flushedJ ?? Number.MAX_SAFE_INTEGER));
    } catch (err) {
      this.log.warn('journal compaction failed; flushed segments stay until the next flush', { err });
    }
  }

  /**
   * Rewrite journal segments without their flushed entries (after a purge). Entries not flushed
   * yet stay: no memory was made from them, so they are not the purged memory's source.
   */
  private scrubJournal(): void {
    try {
      const removed = this.journal.scrub((e) => e.j <= (this.sessions.get(e.s)?.flushedJ ?? Number.MAX_SAFE_INTEGER));
      if (removed > 0) this.log.info('journal scrubbed after a purge', { entries: removed });
    } catch (err) {
      this.log.warn('journal scrub after a purge failed; flushed entries stay until their segments are compacted', { err });
    }
  }

  /** Flush one session, or every session with unflushed work. */
  flush(sessionId?: string): Promise<FlushResult[]> {
    return this.flushes.flush(sessionId);
  }

  // ------------------------------------------------------------------ pause

  /** Pause automatic capture for a session or all; what was captured before is flushed. */
  setPaused(target: PauseRequest, paused: boolean): Promise<PauseOutcome> {
    return setPaused({ sessions: this.sessions, pause: this.pause, flushes: this.flushes }, target, paused);
  }

  /** The most recently active, not ended session working in `cwd` (or below it). */
  latestSessionIn(cwd: string): string | null {
    return latestSessionIn(this.sessions, cwd);
  }

  // ------------------------------------------------------------------ recall

  recall(payload: Record<string, unknown>): Promise<RecallHookResult> {
    return recallForHook(this.deps, { recalled: this.recalled, engineIsOpen: () => this.opener.engineIsOpen, capture: (p, opts) => this.capture(p, opts), ready: () => this.ready() }, payload);
  }

  // ------------------------------------------------------------------ remember

  remember(req: RememberRequest): Promise<IngestResult[]> {
    return remember({ config: this.deps.config, extractor: this.deps.extractor, ready: () => this.ready() }, req);
  }

  // ------------------------------------------------------------------ lifecycle

  /** A rejection nobody handled (the process-level last resort): logged and shown; the daemon keeps running. */
  noteUnexpected(err: unknown): void {
    this.lastError = { at: new Date().toISOString(), message: `unexpected error (the daemon kept running): ${err instanceof Error ? err.message : String(err)}` };
    this.log.error('unhandled rejection; the daemon keeps running', { err });
  }

  /** Stop: finish flushes in flight, commit queued writes, close the journal and the store. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    // The idle check, the flushes settling after a Stop, the retries; then the spool.
    this.flushes.cancelTimers();
    await this.intake.stopSpool();
    await this.watcher.close();
    await this.flushes.drained();
    this.sessions.save();
    await this.journal.close();
    const engineOpen = this.opener.opening;
    if (engineOpen) {
      await engineOpen.catch(() => {});
      // What was just flushed, and anything else not yet on the server, gets a last push.
      await this.sync.stop({ drainMs: SYNC_DRAIN_MS }).catch((err: unknown) => this.log.warn('sync did not stop cleanly', { err }));
      await this.engine.close();
    } else {
      await this.sync.stop({ drainMs: 0 });
    }
  }
}
