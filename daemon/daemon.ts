/**
 * The per-machine daemon: capture → journal → flush → extract → store, and recall, for every
 * agent session of one user and data dir. Transport-free: daemon/server.ts puts it on a socket.
 */
import fs from 'node:fs';
import { EngineError, LanceStore, MemoryEngine, redact, ResidentBudget, type Config, type Embedder, type Extractor, type IngestResult, type Logger, type Paths } from '../engine/index.js';
import { excluded, FLUSH_EVENTS, journalPayload, CAPTURE_EVENTS } from './capture.js';
import { flushSession, readAhead, type FlushResult } from './flush.js';
import { Journal } from './journal.js';
import { PauseState } from './pause.js';
import { recall } from './recall.js';
import { repoInfo } from './repo.js';
import { SessionTable, type LiveSession } from './sessions.js';
import { createSync, SYNC_DRAIN_MS } from './sync-setup.js';
import type { SyncService } from '../sync/index.js';
import { TranscriptWatcher } from './watch.js';

export interface DaemonDeps {
  config: Config;
  paths: Paths;
  logger: Logger;
  embedder: Embedder | null;
  extractor: Extractor;
  version: string;
}

export interface CaptureResult {
  captured: boolean;
  j?: number;
  paused?: boolean;
  reason?: string;
}

const IDLE_CHECK_MS = 2000;

export class Daemon {
  readonly startedAt = Date.now();
  readonly journal: Journal;
  readonly sessions: SessionTable;
  readonly pause: PauseState;
  readonly engine: MemoryEngine;
  /** Mirror into a /v1 server (off unless SERVICE_BASE_URL and SERVICE_API_KEY are set). */
  readonly sync: SyncService;
  private readonly watcher: TranscriptWatcher;
  private engineOpen: Promise<void> | null = null;
  private readonly flushQueue = new Map<string, { promise: Promise<FlushResult | null>; again: boolean }>();
  private flushChain: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  lastError: { at: string; message: string } | null = null;
  lastFlush: { at: string; session_id: string; memories: number } | null = null;
  /** Recent captures, newest last (for the dashboard's live feed). */
  readonly recent: { at: string; session_id: string; event: string; summary: string }[] = [];

  constructor(private readonly deps: DaemonDeps) {
    this.journal = new Journal({ dir: deps.paths.journalDir });
    this.sessions = new SessionTable(`${deps.paths.stateDir}/sessions.json`);
    this.pause = new PauseState(`${deps.paths.stateDir}/pause.json`, (id) => this.sessions.get(id)?.repo ?? null);
    this.engine = new MemoryEngine({
      store: new LanceStore({ dir: deps.paths.lanceDir, dim: deps.embedder?.dim ?? 384, logger: deps.logger, residentBudget: new ResidentBudget(deps.config.residentSearchRows) }),
      embedder: deps.embedder,
      logger: deps.logger,
      maxContentChars: deps.config.maxContentChars,
      maxMetadataBytes: deps.config.maxMetadataBytes,
    });
    this.sync = createSync(this.engine, deps.config, deps.paths, deps.logger, deps.version);
    this.watcher = new TranscriptWatcher((file) => this.onTranscriptChange(file));
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
    fs.mkdirSync(this.deps.paths.stateDir, { recursive: true, mode: 0o700 });
    const entries = this.journal.open();
    let replayed = 0;
    for (const e of entries) {
      const s = this.sessions.touch(e.s, e.t);
      this.applyMeta(s, e.p);
      if (e.j > s.flushedJ) {
        s.pending.push(e);
        replayed++;
      }
    }
    if (replayed > 0) this.log.info('journal replayed', { entries: replayed });
    for (const s of this.sessions.all()) if (!s.ended && s.transcript) this.watcher.watch(s.transcript);
  }

  /** Open the engine (LanceDB, model) in the background; flush what the journal replayed. */
  openEngine(): Promise<void> {
    this.engineOpen ??= this.engine.open().then(async () => {
      // Sync follows the engine from before its first write (purges, the outbox cursor). Local
      // work never waits on sync: if it cannot start, the daemon runs local only and says why.
      await this.sync.start().catch((err: unknown) => {
        this.lastError = { at: new Date().toISOString(), message: `sync could not start: ${err instanceof Error ? err.message : String(err)}` };
        this.log.error('sync could not start', { err });
      });
      for (const s of this.sessions.all()) if (s.pending.length > 0) void this.scheduleFlush(s.id);
      this.idleTimer = setInterval(() => this.checkIdle(), IDLE_CHECK_MS);
      this.idleTimer.unref();
    });
    return this.engineOpen;
  }

  /** The engine once it is open. */
  async ready(): Promise<MemoryEngine> {
    await this.openEngine();
    return this.engine;
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
    }
  }

  // ------------------------------------------------------------------ capture

  async capture(payload: Record<string, unknown>): Promise<CaptureResult> {
    const event = String(payload.hook_event_name ?? '');
    if (!(CAPTURE_EVENTS as readonly string[]).includes(event)) {
      throw new EngineError('VALIDATION', `hook_event_name must be one of ${CAPTURE_EVENTS.join(', ')}`, { field: 'hook_event_name' });
    }
    const sessionId = typeof payload.session_id === 'string' && payload.session_id ? payload.session_id : null;
    if (!sessionId) throw new EngineError('VALIDATION', 'session_id is required', { field: 'session_id' });
    const ex = excluded(payload, this.deps.paths.home);
    if (!ex.capture) return { captured: false, ...(ex.reason ? { reason: ex.reason } : {}) };
    const now = Date.now();
    const s = this.sessions.touch(sessionId, now);
    const p = journalPayload(event, payload);
    this.applyMeta(s, p);
    if (s.transcript && !s.ended) this.watcher.watch(s.transcript);
    if (this.pause.isPaused(sessionId)) return { captured: false, paused: true };
    const entry = await this.journal.append({ t: now, s: sessionId, e: event, p });
    s.pending.push(entry);
    this.noteRecent(entry.s, event, p);
    if (FLUSH_EVENTS.has(event)) {
      if (event === 'SessionEnd') s.ended = true;
      void this.scheduleFlush(sessionId);
    }
    return { captured: true, j: entry.j };
  }

  private noteRecent(sessionId: string, event: string, p: Record<string, unknown>): void {
    const text = String(p.prompt ?? p.message ?? p.error ?? p.input ?? p.tool ?? p.source ?? p.reason ?? '');
    this.recent.push({ at: new Date().toISOString(), session_id: sessionId, event, summary: text.replace(/\s+/g, ' ').slice(0, 120) });
    if (this.recent.length > 50) this.recent.shift();
  }

  private onTranscriptChange(file: string): void {
    const now = Date.now();
    for (const s of this.sessions.all()) if (s.transcript === file && !this.pause.isPaused(s.id)) s.lastActivity = now;
  }

  // ------------------------------------------------------------------ flush

  /** Flush a session (coalescing requests while one runs). Flushes run one at a time. */
  scheduleFlush(sessionId: string): Promise<FlushResult | null> {
    const queued = this.flushQueue.get(sessionId);
    if (queued) {
      queued.again = true;
      return queued.promise;
    }
    const entry = { promise: Promise.resolve<FlushResult | null>(null), again: false };
    entry.promise = (this.flushChain = this.flushChain.then(async () => {
      let result: FlushResult | null = null;
      do {
        entry.again = false;
        result = await this.flushNow(sessionId);
      } while (entry.again && !this.stopping);
      this.flushQueue.delete(sessionId);
      return result;
    })) as Promise<FlushResult | null>;
    this.flushQueue.set(sessionId, entry);
    return entry.promise;
  }

  private async flushNow(sessionId: string): Promise<FlushResult | null> {
    const s = this.sessions.get(sessionId);
    if (!s) return null;
    await this.openEngine();
    const paused = this.pause.isPaused(sessionId);
    try {
      const result = await flushSession(s, { engine: this.engine, extractor: this.deps.extractor, userId: this.deps.config.userId, readTranscript: !paused });
      this.sessions.save();
      this.journal.compact((e) => e.j <= (this.sessions.get(e.s)?.flushedJ ?? Number.MAX_SAFE_INTEGER));
      const written = result.results.filter((r) => r.event !== 'NOOP').length;
      this.lastFlush = { at: new Date().toISOString(), session_id: sessionId, memories: written };
      if (s.ended && s.transcript) this.watcher.unwatch(s.transcript);
      this.log.info('flushed', { session: sessionId, turns: result.turns, candidates: result.candidates, written });
      return result;
    } catch (err) {
      this.lastError = { at: new Date().toISOString(), message: err instanceof Error ? err.message : String(err) };
      this.log.error('flush failed', { session: sessionId, err });
      throw err;
    }
  }

  /** Flush one session, or every session with unflushed work. */
  async flush(sessionId?: string): Promise<FlushResult[]> {
    const ids = sessionId ? [sessionId] : this.sessions.all().map((s) => s.id);
    const out: FlushResult[] = [];
    for (const id of ids) {
      const r = await this.scheduleFlush(id);
      if (r) out.push(r);
    }
    return out;
  }

  private checkIdle(): void {
    const now = Date.now();
    for (const s of this.sessions.all()) {
      if (this.flushQueue.has(s.id) || this.pause.isPaused(s.id)) continue;
      const grown = s.transcript ? fileSize(s.transcript) > s.readOffset : false;
      if ((s.pending.length > 0 || grown) && now - s.lastActivity >= this.deps.config.idleFlushMs) {
        void this.scheduleFlush(s.id).catch(() => {});
      }
    }
  }

  // ------------------------------------------------------------------ pause

  /** Pause automatic capture for a session or all; what was captured before is flushed. */
  async setPaused(target: { session_id?: string | null; all?: boolean; cwd?: string; repo?: string | null }, paused: boolean): Promise<{ paused_all: boolean; paused_sessions: string[]; paused_repos: string[]; session_id: string | null; repo: string | null }> {
    // From a working directory: the whole repository (every session, new ones too), else the latest session there.
    if (!target.all && !target.session_id && target.cwd) {
      const repo = repoInfo(target.cwd).repo;
      target = repo ? { ...target, repo } : { ...target, session_id: this.latestSessionIn(target.cwd) };
    }
    if (!target.all && !target.session_id && !target.repo) {
      throw new EngineError('VALIDATION', 'not in a repository and no active agent session here; pass a session id, or pause everything with --all', { field: 'session_id' });
    }
    if (target.session_id && !target.all && !this.sessions.get(target.session_id)) {
      throw new EngineError('NOT_FOUND', `no agent session ${target.session_id} is known to this daemon; see service status for the sessions`, { session_id: target.session_id });
    }
    const affected = target.all ? this.sessions.all() : target.repo ? this.sessions.all().filter((s) => s.repo === target.repo) : [this.sessions.get(target.session_id!)!];
    if (paused) {
      // Take in what the transcript holds up to now, then stop reading it.
      for (const s of affected) if (!this.pause.isPaused(s.id)) readAhead(s);
      this.pause.pause(target);
      for (const s of affected) if (s.pending.length > 0 || s.buffered.length > 0) void this.scheduleFlush(s.id).catch(() => {});
    } else {
      const wasPaused = affected.filter((s) => this.pause.isPaused(s.id));
      // Nothing said while paused is ever captured: finish what was taken in before the pause
      // (still paused, so the transcript is not read), then skip the transcript to its end.
      for (const s of wasPaused) {
        await this.flushQueue.get(s.id)?.promise.catch(() => null);
        const size = s.transcript ? fileSize(s.transcript) : 0;
        s.offset = s.readOffset = size;
        s.buffered = [];
      }
      this.pause.resume(target);
      this.sessions.save();
    }
    return { paused_all: this.pause.all, paused_sessions: this.pause.pausedSessions(), paused_repos: this.pause.pausedRepos(), session_id: target.session_id ?? null, repo: target.repo ?? null };
  }

  /** The most recently active, not ended session working in `cwd` (or below it). */
  latestSessionIn(cwd: string): string | null {
    const here = cwd.replace(/\/+$/, '');
    const match = this.sessions
      .all()
      .filter((s) => !s.ended && s.cwd && (s.cwd === here || s.cwd.startsWith(`${here}/`) || here.startsWith(`${s.cwd}/`)))
      .sort((a, b) => b.lastActivity - a.lastActivity);
    return match[0]?.id ?? null;
  }

  // ------------------------------------------------------------------ recall

  async recall(payload: Record<string, unknown>): Promise<{ context: string; count: number; timed_out?: boolean; captured?: boolean }> {
    const event = payload.hook_event_name === 'SessionStart' ? 'SessionStart' : 'UserPromptSubmit';
    const capture = this.capture({ ...payload, hook_event_name: event }).catch((err: unknown) => {
      this.log.warn('capture during recall failed', { err });
      return { captured: false } as CaptureResult;
    });
    const ex = excluded(payload, this.deps.paths.home);
    let result: { text: string; count: number } | null = { text: '', count: 0 };
    if (ex.capture) {
      const cwd = typeof payload.cwd === 'string' ? payload.cwd : process.cwd();
      const work = this.ready().then((engine) =>
        recall(
          engine,
          {
            event,
            session_id: typeof payload.session_id === 'string' ? payload.session_id : null,
            repo: repoInfo(cwd),
            user_id: this.deps.config.userId,
            prompt: typeof payload.prompt === 'string' ? redact(payload.prompt).text : undefined,
          },
          { maxTokens: this.deps.config.contextTokens },
        ),
      );
      result = await withDeadline(work, this.deps.config.recallDeadlineMs).catch((err: unknown) => {
        this.log.warn('recall failed', { err });
        return { text: '', count: 0 };
      });
    }
    const captured = await capture;
    if (result === null) return { context: '', count: 0, timed_out: true, captured: captured.captured };
    return { context: result.text, count: result.count, captured: captured.captured };
  }

  // ------------------------------------------------------------------ remember

  async remember(req: { text: string; personal?: boolean; category?: string; cwd?: string; session_id?: string }): Promise<IngestResult[]> {
    const text = typeof req.text === 'string' ? req.text.trim() : '';
    if (!text) throw new EngineError('VALIDATION', 'text must be a non-empty string', { field: 'text' });
    const engine = await this.ready();
    const clean = redact(text).text;
    const info = repoInfo(req.cwd ?? process.cwd());
    const guessed = (await this.deps.extractor.extract([{ role: 'user', text: clean }]))[0];
    const category = (req.category ?? guessed?.category ?? 'note') as IngestResult['category'];
    return engine.ingest(
      [{ content: clean, category: category as never, space: req.personal ? 'personal' : 'project', confidence: 1, subject: guessed?.subject ?? null, role: 'user' }],
      {
        user_id: this.deps.config.userId,
        owner_id: this.deps.config.userId,
        run_id: req.session_id ?? null,
        repo: req.personal ? null : info.repo,
        dir: req.personal ? null : info.dir,
        source: { kind: 'remember', session_id: req.session_id ?? null },
      },
    );
  }

  // ------------------------------------------------------------------ lifecycle

  /** Stop: finish flushes in flight, commit queued writes, close the journal and the store. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.idleTimer) clearInterval(this.idleTimer);
    await this.watcher.close();
    await this.flushChain.catch(() => {});
    this.sessions.save();
    await this.journal.close();
    if (this.engineOpen) {
      await this.engineOpen.catch(() => {});
      // What was just flushed, and anything else not yet on the server, gets a last push.
      await this.sync.stop({ drainMs: SYNC_DRAIN_MS }).catch((err: unknown) => this.log.warn('sync did not stop cleanly', { err }));
      await this.engine.close();
    } else {
      await this.sync.stop({ drainMs: 0 });
    }
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** Resolve with the value, or null when it is not there in time. */
function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | null> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(null), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
