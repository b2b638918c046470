/**
 * When sessions are flushed: requests for a session coalesce while its flush runs, flushes run one
 * at a time, a failed flush is retried with backoff, a Stop waits a moment before its flush, and
 * an idle session with unflushed work is flushed. The flush itself is the caller's (`flushNow`).
 */
import type { DaemonDeps } from './daemon.js';
import { fileSize } from './file-size.js';
import type { FlushResult } from './flush.js';
import { storageFix, type Health } from './health.js';
import type { PauseState } from './pause.js';
import type { SessionTable } from './sessions.js';

export interface FlushQueueParts {
  health: Health;
  sessions: SessionTable;
  pause: PauseState;
  /** Flush one session now (the daemon's flush: it reports success and failure back here). */
  flushNow: (sessionId: string) => Promise<FlushResult | null>;
  /** True once the daemon stops: no retry, settle or coalesced flush starts after that. */
  stopping: () => boolean;
}

const IDLE_CHECK_MS = 2000;
/** A failed flush is retried after this long, doubling up to FLUSH_RETRY_MAX_MS. */
const FLUSH_RETRY_BASE_MS = 1000;
const FLUSH_RETRY_MAX_MS = 60_000;
/**
 * How long a flush waits after Stop (SessionEnd or PreCompact flush at once). `claude -p` exits
 * right after Stop; a flush started then takes both cores of a small machine from its exit. A
 * session is still searchable well within 2 s of its end.
 */
const STOP_SETTLE_MS = 600;

export class FlushQueue {
  private readonly flushRetries = new Map<string, { timer: NodeJS.Timeout | null; attempt: number }>();
  /** Flushes waiting after a Stop (STOP_SETTLE_MS), by session. */
  private readonly stopSettle = new Map<string, NodeJS.Timeout>();
  private readonly flushQueue = new Map<string, { promise: Promise<FlushResult | null>; again: boolean }>();
  private flushChain: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: DaemonDeps,
    private readonly parts: FlushQueueParts,
  ) {}

  /** Flush a session (coalescing requests while one runs). Flushes run one at a time. */
  schedule(sessionId: string): Promise<FlushResult | null> {
    const queued = this.flushQueue.get(sessionId);
    if (queued) {
      queued.again = true;
      return queued.promise;
    }
    const entry = { promise: Promise.resolve<FlushResult | null>(null), again: false };
    // A failed flush neither stops the chain (later flushes still run) nor leaves the session queued.
    entry.promise = this.flushChain.then(async () => {
      try {
        let result: FlushResult | null = null;
        do {
          entry.again = false;
          result = await this.parts.flushNow(sessionId);
        } while (entry.again && !this.parts.stopping());
        return result;
      } finally {
        this.flushQueue.delete(sessionId);
      }
    });
    this.flushChain = entry.promise.catch(() => null);
    this.flushQueue.set(sessionId, entry);
    return entry.promise;
  }

  /** The flush queued or running for a session, if any. */
  queued(sessionId: string): Promise<FlushResult | null> | undefined {
    return this.flushQueue.get(sessionId)?.promise;
  }

  /** Flush one session, or every session with unflushed work. */
  async flush(sessionId?: string): Promise<FlushResult[]> {
    const ids = sessionId ? [sessionId] : this.parts.sessions.all().map((s) => s.id);
    const out: FlushResult[] = [];
    for (const id of ids) {
      const r = await this.schedule(id);
      if (r) out.push(r);
    }
    return out;
  }

  /** A flush event was captured (Stop, SessionEnd, PreCompact): flush now, or after a Stop, in a moment. */
  flushAfter(sessionId: string, event: string): void {
    const pending = this.stopSettle.get(sessionId);
    if (pending) clearTimeout(pending);
    this.stopSettle.delete(sessionId);
    if (event === 'Stop') {
      // The turn is over, but the agent may still be busy (`claude -p` exits right after Stop):
      // the flush (extraction, embedding on both cores) waits a moment, or for SessionEnd.
      const timer = setTimeout(() => {
        this.stopSettle.delete(sessionId);
        if (!this.parts.stopping()) void this.schedule(sessionId).catch(() => {});
      }, STOP_SETTLE_MS);
      timer.unref();
      this.stopSettle.set(sessionId, timer);
    } else void this.schedule(sessionId).catch(() => {});
  }

  /** A flush failed: capture goes on into the journal; the flush is retried with backoff. */
  failed(sessionId: string, err: unknown): void {
    const r = this.flushRetries.get(sessionId) ?? { timer: null, attempt: 0 };
    this.flushRetries.set(sessionId, r);
    const delay = Math.min(FLUSH_RETRY_MAX_MS, FLUSH_RETRY_BASE_MS * 2 ** r.attempt);
    r.attempt++;
    this.parts.health.report(
      'flush',
      `flushing captured events into the store failed (${err instanceof Error ? err.message : String(err)}); capture goes on into the journal, next retry in ${Math.round(delay / 1000)} s`,
      storageFix(err, this.deps.paths.lanceDir),
    );
    if (r.timer || this.parts.stopping()) return;
    r.timer = setTimeout(() => {
      r.timer = null;
      if (!this.parts.stopping()) void this.schedule(sessionId).catch(() => {});
    }, delay);
    r.timer.unref();
  }

  succeeded(sessionId: string): void {
    const r = this.flushRetries.get(sessionId);
    if (r) {
      if (r.timer) clearTimeout(r.timer);
      this.flushRetries.delete(sessionId);
    }
    if (this.flushRetries.size === 0 && this.parts.health.clear('flush')) this.deps.logger.info('flushes work again');
  }

  /** Look for idle sessions with unflushed work every IDLE_CHECK_MS from now on. */
  startIdleCheck(): void {
    this.idleTimer = setInterval(() => this.checkIdle(), IDLE_CHECK_MS);
    this.idleTimer.unref();
  }

  private checkIdle(): void {
    const now = Date.now();
    for (const s of this.parts.sessions.all()) {
      if (this.flushQueue.has(s.id) || this.parts.pause.isPaused(s.id)) continue;
      const grown = s.transcript ? fileSize(s.transcript) > s.readOffset : false;
      if ((s.pending.length > 0 || grown) && now - s.lastActivity >= this.deps.config.idleFlushMs) {
        void this.schedule(s.id).catch(() => {});
      }
    }
  }

  /** Stop every timer: the idle check, the flushes settling after a Stop, the retries. */
  cancelTimers(): void {
    if (this.idleTimer) clearInterval(this.idleTimer);
    for (const t of this.stopSettle.values()) clearTimeout(t);
    for (const r of this.flushRetries.values()) if (r.timer) clearTimeout(r.timer);
  }

  /** Resolves once the flushes queued so far have ended (whether they failed or not). */
  async drained(): Promise<void> {
    await this.flushChain.catch(() => {});
  }
}
