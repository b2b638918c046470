/**
 * When LanceStore's upkeep (lance-upkeep.ts) runs: one pass at a time, a forced pass after the
 * running one, and a pass of its own once what a compaction replaced is due for deletion.
 */
import type { Logger } from '../log.js';
import { runUpkeep, type UpkeepDeps, type UpkeepState } from './lance-upkeep.js';
import type { MaintenanceReport } from './types.js';

export interface UpkeepHost {
  /** What a pass works with, asked for each pass. */
  deps(): UpkeepDeps;
  /** Whether the store is open (a closed store runs no pass and schedules none). */
  isOpen(): boolean;
  log: Logger;
}

export class UpkeepSchedule {
  private maintaining: Promise<MaintenanceReport> | null = null;
  /** The pass that deletes what the last compaction replaced (schedulePrune). */
  private pruneTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly state: UpkeepState,
    private readonly host: UpkeepHost,
  ) {}

  /** Resolves once no maintenance is running (it does not start any). */
  async idle(): Promise<void> {
    while (this.maintaining) await this.maintaining.catch(() => {});
  }

  /**
   * Run upkeep now. A call while upkeep is running joins it; a forced call waits for it and then
   * runs its own forced pass (the running one may have skipped work that was not yet due).
   */
  maintain(opts: { force?: boolean } = {}): Promise<MaintenanceReport> {
    if (this.maintaining) {
      const running = this.maintaining;
      return opts.force ? running.catch(() => undefined).then(() => this.maintain(opts)) : running;
    }
    const deps = this.host.deps();
    this.maintaining = (this.host.isOpen() ? runUpkeep(this.state, deps, opts.force ?? false) : Promise.resolve(emptyReport())).finally(() => {
      this.maintaining = null;
      this.schedulePrune();
    });
    return this.maintaining;
  }

  /**
   * A pass of its own when what a compaction replaced is due for deletion (see UpkeepState's
   * prune times): a store that stopped writing gets its disk back then, not one or two of the
   * engine's routine passes later. Nothing is scheduled while nothing is due.
   */
  schedulePrune(): void {
    if (this.pruneTimer) clearTimeout(this.pruneTimer);
    this.pruneTimer = null;
    const due = [this.state.currentPruneAt, this.state.versionsPruneAt].filter((t): t is number => t !== undefined);
    if (due.length === 0 || !this.host.isOpen()) return;
    this.pruneTimer = setTimeout(
      () => {
        this.pruneTimer = null;
        if (this.host.isOpen()) this.maintain().catch((err: unknown) => this.host.log.warn('deleting old table versions failed', { err }));
      },
      Math.max(0, Math.min(...due) - Date.now()) + 50,
    );
    this.pruneTimer.unref?.();
  }

  /** Wait for a running pass and cancel the scheduled one (the store is closing). */
  async stop(): Promise<void> {
    await this.maintaining?.catch(() => {});
    if (this.pruneTimer) clearTimeout(this.pruneTimer);
    this.pruneTimer = null;
  }
}

function emptyReport(): MaintenanceReport {
  return { compacted: false, vectorIndexBuilt: false, ftsRefreshed: false, ms: 0 };
}
