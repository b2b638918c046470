/**
 * Opening the daemon's store: in the background, never caching a failure; opening it again to
 * check it when a read fails after the open; moving a store that cannot open aside and rebuilding
 * it; and the warm-up searches that follow the first open.
 */
import { EngineError, type LanceStore, type MemoryEngine } from '../engine/index.js';
import type { DaemonDeps } from './daemon.js';
import { storageFix, type Health } from './health.js';
import { forgetOpenTurn, type SessionTable } from './sessions.js';
import { environmental, importSalvage, moveAside } from './store-rebuild.js';
import type { SyncService } from '../sync/index.js';

/** After a failed store open, requests fail fast for this long before the next attempt. */
const OPEN_RETRY_MS = 2000;
/** At most one re-check of an open store (storeFailed) per this long. */
const REVERIFY_MS = 30_000;
/** What LanceDB and Arrow say when a store's files are damaged or missing under an open store. */
const STORE_DAMAGE = /lance|arrow|corrupt|decod|panicked|next batch from stream|invalid (page|buffer|file|footer|magic|data)|unexpected (eof|end of file)|not found.*\b(data|_versions|_indices)\b|no such file/i;

export interface StoreOpenParts {
  store: LanceStore;
  engine: MemoryEngine;
  /** Run after every successful open (the daemon does its once-per-process start there). */
  afterOpen: () => Promise<void>;
  /** True once the daemon stops: a failed read then opens nothing again. */
  stopping: () => boolean;
  health: Health;
  /** A rebuilt store reads every session's transcript again and pulls from the server again. */
  sessions: SessionTable;
  sync: SyncService;
}

export class StoreOpener {
  private openFailure: { at: number; err: unknown } | null = null;
  private engineOpen: Promise<void> | null = null;
  private reverifying: Promise<void> | null = null;
  private lastReverify = 0;
  /** Whether the engine has finished opening (recall then runs under its normal deadline). */
  engineIsOpen = false;
  /** Resolves once the first searches have run (the store's files and indexes are loaded). */
  warmed: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: DaemonDeps,
    private readonly parts: StoreOpenParts,
  ) {}

  /** The open in progress or done, or null when none was started or the last one failed. */
  get opening(): Promise<void> | null {
    return this.engineOpen;
  }

  /**
   * Open the engine (LanceDB, model) in the background; flush what the journal replayed. A store
   * that cannot open is moved aside and rebuilt; a failure is never cached: the next call tries
   * again (after OPEN_RETRY_MS, so a broken disk is not hammered).
   */
  openEngine(): Promise<void> {
    if (!this.engineOpen && this.openFailure && Date.now() - this.openFailure.at < OPEN_RETRY_MS) return Promise.reject(this.openFailure.err);
    this.engineOpen ??= this.opened(this.openStore());
    return this.engineOpen;
  }

  private opened(opening: Promise<void>): Promise<void> {
    return opening.then(
      () => {
        this.openFailure = null;
        return this.parts.afterOpen();
      },
      (err: unknown) => {
        this.engineOpen = null;
        this.openFailure = { at: Date.now(), err };
        throw new EngineError('STORE_CLOSED', `the memory store could not open: ${err instanceof Error ? err.message : String(err)}; ${this.parts.health.list().find((p) => p.kind === 'store_open')?.fix ?? 'see the daemon log'}`);
      },
    );
  }

  /**
   * A store read that fails after the store opened may be damage done since (a failing disk,
   * another program writing into the data dir). Open the store again: the open reads it whole, and
   * a store that cannot open is moved aside and rebuilt (openStore). At most once per
   * REVERIFY_MS, and never for errors that are the disk's or the request's.
   */
  storeFailed(err: unknown): void {
    if (this.reverifying || this.parts.stopping() || !this.engineOpen || err instanceof EngineError || environmental(err)) return;
    if (!STORE_DAMAGE.test(err instanceof Error ? err.message : String(err)) || Date.now() - this.lastReverify < REVERIFY_MS) return;
    this.lastReverify = Date.now();
    this.deps.logger.warn('a store read failed after the store opened; opening it again to check it', { err });
    const previous = this.engineOpen;
    this.reverifying = (async () => {
      await previous.catch(() => {});
      this.engineOpen = this.opened(this.parts.engine.suspend().then(() => this.openStore()));
      await this.engineOpen.catch(() => {});
    })().finally(() => (this.reverifying = null));
  }

  /** Open the store; if it cannot open for a reason a new store would not share, rebuild it. */
  private async openStore(): Promise<void> {
    const { engine, health, sessions, sync } = this.parts;
    const log = this.deps.logger;
    const dir = this.deps.paths.lanceDir;
    try {
      await engine.open();
      health.clear('store_open');
      return;
    } catch (err) {
      await this.parts.store.close().catch(() => {});
      log.error('the store could not open', { err, dir });
      if (environmental(err)) {
        health.report('store_open', `the memory store in ${dir} could not open: ${err instanceof Error ? err.message : String(err)}`, storageFix(err, dir));
        throw err;
      }
      health.report('store_open', `the memory store in ${dir} could not open (damaged): ${err instanceof Error ? err.message : String(err)}`, 'the daemon is moving it aside and rebuilding it from what survives');
    }
    const aside = moveAside(dir);
    log.warn('moved the damaged store aside; rebuilding', { aside });
    await engine.open();
    const report = await importSalvage(aside, engine);
    // What the damaged store held and could not be read comes back from the transcripts (read
    // again from their start; consolidation drops what is stored already) and from the server.
    for (const s of sessions.all()) {
      if (!s.transcript) continue;
      s.offset = s.readOffset = 0;
      s.buffered = [];
      forgetOpenTurn(s);
    }
    sessions.save();
    const target = sync.state.target;
    if (sync.enabled && target) sync.state.retarget(target);
    health.clear('store_open');
    health.report(
      'store_rebuilt',
      `the memory store could not open and was rebuilt: ${report.recovered} version(s) recovered from it${sync.enabled ? ', the rest is pulled from the server' : ''}, transcripts are read again${report.failures.length > 0 ? `; unreadable: ${report.failures.slice(0, 3).join('; ')}` : ''}`,
      `the damaged copy is kept at ${aside}: remove it once the rebuilt store looks right`,
    );
    log.warn('store rebuilt', { aside, recovered: report.recovered, failures: report.failures });
  }

  /**
   * Run the searches recall runs, once, right after the engine opens, so that SessionStart and
   * the first prompt after a daemon start find the store (and, once loaded, the model) warm
   * instead of paying for the first read inside their deadline.
   */
  warm(): Promise<void> {
    const { engine } = this.parts;
    const { embedder } = this.deps;
    this.warmed = (async () => {
      const filter = { space: 'personal' as const, user_id: this.deps.config.userId };
      await engine.list({ filter, limit: 1 });
      await engine.search({ query: 'warm up the store', filter, top_k: 1, mode: 'text' });
      this.engineIsOpen = true;
      if (embedder) {
        await embedder.ready();
        await engine.search({ query: 'warm up the model', filter, top_k: 1 });
      }
    })().catch((err: unknown) => {
      this.engineIsOpen = true;
      this.deps.logger.warn('warm-up failed', { err });
    });
    return this.warmed;
  }
}
