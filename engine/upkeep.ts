/**
 * The engine's background work: the store's upkeep (compaction, index upkeep) on a timer and after
 * bursts of commits, and embedding the backlog of rows stored without a vector.
 */
import type { Logger } from './log.js';
import type { MemoryStore } from './store/types.js';

/**
 * Besides the timer, background upkeep runs after this many commits, so a burst of single writes
 * cannot pile up fragments for a whole timer interval (the store decides whether work is due).
 */
const UPKEEP_EVERY_COMMITS = 16;

export interface UpkeepDeps {
  store: MemoryStore;
  log: Logger;
  /** EngineOptions.background: false runs nothing after commits (and starts no timer). */
  background: boolean;
  /** The engine is closed: start nothing more. */
  closed(): boolean;
  /** Embed the backlog of rows without a vector (MemoryEngine.embedBacklog). */
  embedBacklog(): Promise<number>;
  /** Told when upkeep fails (EngineOptions.onUpkeepError). */
  onError(err: unknown): void;
}

export class BackgroundUpkeep {
  private timer: NodeJS.Timeout | null = null;
  private backlogRunning: Promise<void> | null = null;
  private upkeepRunning: Promise<void> | null = null;
  private commitsSinceUpkeep = 0;
  /** Rows were stored without a vector (no model ready, or embedding failed) since the backlog was last looked for. */
  private storedUnembedded = false;

  constructor(private readonly deps: UpkeepDeps) {}

  startTimer(intervalMs: number): void {
    this.timer = setInterval(() => void this.upkeep(), intervalMs);
    this.timer.unref();
  }

  stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Resolves once the backlog embedding and the upkeep running now have finished. */
  async idle(): Promise<void> {
    await this.backlogRunning?.catch(() => {});
    await this.upkeepRunning;
  }

  /** Rows were just stored without a vector: the next upkeep after commits looks for the backlog. */
  markUnembedded(): void {
    this.storedUnembedded = true;
  }

  kickBacklog(): void {
    if (this.backlogRunning || this.deps.closed()) return;
    this.backlogRunning = this.deps
      .embedBacklog()
      .then(() => undefined)
      .catch((err: unknown) => this.deps.log.warn('backlog embedding failed', { err }))
      .finally(() => (this.backlogRunning = null));
  }

  afterCommit(): void {
    if (!this.deps.background || this.deps.closed()) return;
    if (++this.commitsSinceUpkeep < UPKEEP_EVERY_COMMITS || this.upkeepRunning) return;
    void this.upkeep(false);
  }

  /**
   * The store's upkeep, then the backlog of rows without a vector: looked for on the timer, and
   * after commits only when this engine stored such rows (on PostgreSQL the count is a query of
   * its own, which every 16 commits cost more than the writes at 100k memories).
   */
  private upkeep(timer = true): Promise<void> {
    if (this.deps.closed()) return Promise.resolve();
    if (this.upkeepRunning) return this.upkeepRunning;
    this.commitsSinceUpkeep = 0;
    this.upkeepRunning = (async () => {
      try {
        await this.deps.store.maintain();
        if (!timer && !this.storedUnembedded) return;
        this.storedUnembedded = false;
        const s = await this.deps.store.stats();
        if (s.unembedded > 0) this.kickBacklog();
      } catch (err) {
        this.deps.log.warn('maintenance failed', { err });
        this.deps.onError(err);
      }
    })().finally(() => (this.upkeepRunning = null));
    return this.upkeepRunning;
  }
}
