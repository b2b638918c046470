/**
 * The sync loop of one machine (DESIGN.md §7): mirrors the local engine into a /v1 server and the
 * server's project feed back, one round at a time. A round verifies the key when due, pushes the
 * outbox (purges, then versions), and — on the pull schedule or when asked — follows the feed.
 *
 * - Local writes request a push-only round shortly after they commit; the feed is pulled every
 *   `intervalMs`; `now()` runs a full round at once.
 * - A failed round is retried after an exponential, jittered delay; a blocked one (bad key, server
 *   without sync) is retried at the longest delay and says why in `status()`.
 * - Off (no transport): nothing touches the network, but purges are still recorded, so turning
 *   sync on later still erases on the server what was erased here.
 * - `stop()` finishes the round in flight and drains the outbox within a deadline; whatever is
 *   left waits, durably, for the next start.
 */
import { silentLogger, type Logger, type MemoryEngine } from '../engine/index.js';
import { backoffDelay } from './backoff.js';
import { PUSH_MAX_BYTES } from './batches.js';
import { pullRound, type PullReport } from './pull.js';
import { pushRound, type PushReport } from './push.js';
import { syncStatus, type SyncStatus } from './status.js';
import { SyncState } from './state.js';
import { SyncRequestError, type FailureKind, type SyncTransport } from './transport.js';
import { verifyKey } from './verify.js';

/** A local write is pushed this long after it commits (writes in between travel together). */
export const PUSH_DELAY_MS = 250;
/** The key is verified again this often (and after any failure). */
const VERIFY_EVERY_MS = 10 * 60_000;

export interface SyncServiceOptions {
  engine: MemoryEngine;
  stateFile: string;
  /** Null: sync is off, with `offReason` saying why. */
  transport: SyncTransport | null;
  offReason?: string;
  /** Pull schedule. */
  intervalMs: number;
  /** Versions per push request. */
  batch: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** @default PUSH_MAX_BYTES */
  maxBytes?: number;
  logger?: Logger;
  /** Jitter source (0 ≤ x < 1). @default Math.random */
  random?: () => number;
  /** Run rounds on a schedule and after local writes; false: only `now()` runs them (tests). @default true */
  auto?: boolean;
}

export type SyncPhase = 'off' | 'starting' | 'idle' | 'syncing' | 'backoff' | 'blocked' | 'stopped';

export interface RoundReport {
  ok: boolean;
  ms: number;
  push: PushReport | null;
  pull: PullReport | null;
  error: { kind: FailureKind | 'internal'; code: string; message: string } | null;
}

export class SyncService {
  readonly state: SyncState;
  private readonly log: Logger;
  private committed = 0;
  private unsubscribe: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<RoundReport> | null = null;
  private pushWantedAt: number | null = null;
  private nextPullAt = 0;
  private failures = 0;
  private retryAt = 0;
  private verifiedAt = 0;
  private stopping = false;
  private readonly remotePurging = new Set<string>();
  /** What status() shows. */
  phase: SyncPhase;
  reachable: boolean | null = null;
  lastOkAt: string | null = null;
  lastError: (RoundReport['error'] & { at: string }) | null = null;
  lastRound: RoundReport | null = null;

  constructor(private readonly opts: SyncServiceOptions) {
    this.log = (opts.logger ?? silentLogger).child('sync');
    this.state = new SyncState(opts.stateFile);
    if (this.state.damagedFile) this.log.warn('the sync state file was damaged; kept it aside and starting over', { file: this.state.damagedFile });
    this.phase = opts.transport ? 'starting' : 'off';
  }

  get enabled(): boolean {
    return this.opts.transport !== null;
  }

  get offReason(): string | null {
    return this.opts.transport ? null : (this.opts.offReason ?? 'sync is not configured');
  }

  get transport(): SyncTransport | null {
    return this.opts.transport;
  }

  /** Highest seq whose append has completed. */
  get committedSeq(): number {
    return this.committed;
  }

  /** When a failed round is tried again (ISO), or null after a success. */
  get nextAttemptAt(): string | null {
    return this.failures > 0 ? new Date(this.retryAt).toISOString() : null;
  }

  /**
   * Follow the engine (call once it is open, before it takes writes): note committed seqs, request
   * pushes, and record purges before the store erases anything. Then start the loop (when on).
   */
  async start(): Promise<void> {
    const { engine } = this.opts;
    await engine.flushWrites();
    this.committed = (await engine.store.stats()).lastSeq;
    this.unsubscribe.push(
      engine.onChange((rows) => {
        for (const r of rows) if (r.seq > this.committed) this.committed = r.seq;
        this.requestPush();
      }),
      engine.onPurge((ids, phase) => {
        if (phase !== 'before') return;
        const local = ids.filter((id) => !this.remotePurging.has(id));
        if (local.length > 0) this.state.addPurge(local);
      }),
    );
    if (!this.enabled) return;
    this.phase = 'idle';
    this.nextPullAt = Date.now();
    this.schedule();
  }

  private get auto(): boolean {
    return this.enabled && this.opts.auto !== false;
  }

  /** A local change: push it soon (coalescing with others). */
  private requestPush(): void {
    if (!this.auto || this.stopping) return;
    this.pushWantedAt ??= Date.now();
    this.schedule();
  }

  private schedule(): void {
    if (!this.auto || this.stopping || this.running) return;
    if (this.timer) clearTimeout(this.timer);
    let due = this.pushWantedAt === null ? this.nextPullAt : Math.min(this.nextPullAt, this.pushWantedAt + PUSH_DELAY_MS);
    if (this.failures > 0) due = this.retryAt;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.round({ pull: this.failures > 0 || Date.now() >= this.nextPullAt });
    }, Math.max(0, due - Date.now()));
    this.timer.unref();
  }

  /** Run a round now (after the one in flight) and report it: push, then pull unless `pull: false`. */
  async now(opts: { retryParked?: boolean; pull?: boolean } = {}): Promise<RoundReport> {
    if (!this.enabled) throw new Error(this.offReason!);
    await this.running?.catch(() => null);
    return this.round({ pull: opts.pull !== false, retryParked: opts.retryParked === true });
  }

  private round(opts: { pull: boolean; retryParked?: boolean }): Promise<RoundReport> {
    if (this.running) return this.running.then(() => this.round(opts));
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.running = this.runRound(opts).finally(() => {
      this.running = null;
      this.schedule();
    });
    return this.running;
  }

  private async runRound(opts: { pull: boolean; retryParked?: boolean }): Promise<RoundReport> {
    const transport = this.opts.transport!;
    const t0 = performance.now();
    this.pushWantedAt = null;
    this.phase = 'syncing';
    const report: RoundReport = { ok: false, ms: 0, push: null, pull: null, error: null };
    try {
      await this.verifyIfDue(transport);
      const ctx = { engine: this.opts.engine, transport, state: this.state, log: this.log, purgeHere: (id: string) => this.purgeHere(id) };
      report.push = await pushRound(
        { ...ctx, batch: this.opts.batch, maxBytes: this.opts.maxBytes ?? PUSH_MAX_BYTES, committedSeq: () => this.committed },
        { retryParked: opts.retryParked === true },
      );
      if (opts.pull) {
        report.pull = await pullRound(ctx);
        this.nextPullAt = Date.now() + this.opts.intervalMs;
      }
      report.ok = true;
      this.failures = 0;
      this.phase = 'idle';
      this.reachable = true;
      this.lastOkAt = new Date().toISOString();
    } catch (err) {
      const e = err instanceof SyncRequestError ? err : null;
      report.error = e ? { kind: e.kind, code: e.code, message: e.message } : { kind: 'internal', code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
      if (!e) this.log.error('sync round failed', { err });
      else this.log.warn('sync round failed', { kind: e.kind, code: e.code, message: e.message });
      this.lastError = { ...report.error, at: new Date().toISOString() };
      this.reachable = e ? e.status !== null : this.reachable;
      this.failures++;
      this.verifiedAt = 0;
      // Refusals of content are parked inside the push; one that reaches here is about the key
      // itself (no read permission for the feed, say): like a bad key, it needs someone to act.
      const blocked = e?.kind === 'blocked' || e?.kind === 'permanent';
      this.retryAt = Date.now() + (blocked ? this.opts.retryMaxMs : backoffDelay(this.failures, { baseMs: this.opts.retryBaseMs, maxMs: this.opts.retryMaxMs, random: this.opts.random }, e?.retryAfterMs ?? null));
      this.phase = this.stopping ? 'stopped' : blocked ? 'blocked' : 'backoff';
    }
    report.ms = performance.now() - t0;
    this.lastRound = report;
    return report;
  }

  /** Check the key at the first round, after any failure, and then every few minutes. */
  private async verifyIfDue(transport: SyncTransport): Promise<void> {
    if (this.verifiedAt > 0 && Date.now() - this.verifiedAt < VERIFY_EVERY_MS) return;
    await verifyKey(transport, this.state, this.log);
    this.verifiedAt = Date.now();
  }

  /** Erase a memory here because the server erased it (without pushing the purge back). */
  private async purgeHere(memoryId: string): Promise<void> {
    this.remotePurging.add(memoryId);
    try {
      await this.opts.engine.purge([memoryId]);
    } finally {
      this.remotePurging.delete(memoryId);
    }
    this.state.forgetMemory(memoryId);
    this.state.purgeDone(memoryId);
    this.state.save();
  }

  status(): SyncStatus {
    return syncStatus(this);
  }

  /** Finish the round in flight, push what is left within `drainMs`, then stop following the engine. */
  async stop(opts: { drainMs: number }): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    const transport = this.opts.transport;
    if (transport) {
      const deadline = Date.now() + opts.drainMs;
      const inTime = <T>(p: Promise<T>): Promise<T | null> => Promise.race([p, new Promise<null>((r) => setTimeout(() => r(null), Math.max(0, deadline - Date.now())).unref())]);
      await inTime(this.running ?? Promise.resolve(null));
      const outbox = this.committed > this.state.pushedSeq || this.state.purges.some((p) => !p.error);
      if (!this.running && this.phase !== 'blocked' && outbox && Date.now() < deadline) await inTime(this.round({ pull: false }));
      await transport.close();
      await this.running?.catch(() => null);
      this.phase = 'stopped';
    }
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
    this.state.save();
  }
}
