/**
 * The undo record of forgets made through the daemon (`service forget`, the dashboard): each
 * forget is one batch of memory ids, kept (the last MAX_BATCHES) in a state file, so `service
 * undo` can restore the last forget after a daemon restart. Purged memories are recorded too,
 * marked as erased: there is nothing left to restore, and undo says so.
 */
import { readState, writeState } from './state-file.js';

export interface ForgetBatch {
  id: string;
  at: string;
  memory_ids: string[];
  purged: boolean;
  /** Set once `undo` restored the batch. */
  undone_at: string | null;
  /** What asked for it, e.g. the query of `forget --query`. */
  query: string | null;
}

/** Forget batches kept for undo. */
export const MAX_BATCHES = 20;

export class ForgetLog {
  private batches: ForgetBatch[];
  private seq = 0;

  constructor(private readonly file: string) {
    this.batches = readState<ForgetBatch[]>(file, []);
    if (!Array.isArray(this.batches)) this.batches = [];
  }

  /**
   * A purge keeps no query (it may quote the erased text: `forget --purge --query "…"`), and
   * drops the query of earlier batches that held the same memories.
   */
  record(memoryIds: readonly string[], opts: { purged: boolean; query?: string | null }): ForgetBatch {
    const batch: ForgetBatch = { id: `f${Date.now().toString(36)}${(this.seq++).toString(36)}`, at: new Date().toISOString(), memory_ids: [...memoryIds], purged: opts.purged, undone_at: null, query: opts.purged ? null : (opts.query ?? null) };
    if (opts.purged) for (const b of this.batches) if (b.memory_ids.some((id) => memoryIds.includes(id))) b.query = null;
    this.batches = [...this.batches, batch].slice(-MAX_BATCHES);
    writeState(this.file, this.batches);
    return batch;
  }

  /** The most recent forget not yet undone (purges included: undo explains they cannot come back). */
  last(): ForgetBatch | null {
    for (let i = this.batches.length - 1; i >= 0; i--) if (!this.batches[i]!.undone_at) return this.batches[i]!;
    return null;
  }

  /** The most recent not-undone batch holding `memoryId`. */
  holding(memoryId: string): ForgetBatch | null {
    for (let i = this.batches.length - 1; i >= 0; i--) {
      const b = this.batches[i]!;
      if (!b.undone_at && b.memory_ids.includes(memoryId)) return b;
    }
    return null;
  }

  /** Mark ids restored; a batch whose ids are all restored counts as undone. */
  restored(batch: ForgetBatch, memoryIds: readonly string[]): void {
    const left = batch.memory_ids.filter((id) => !memoryIds.includes(id));
    const b = this.batches.find((x) => x.id === batch.id);
    if (!b) return;
    if (left.length === 0) b.undone_at = new Date().toISOString();
    else b.memory_ids = left;
    writeState(this.file, this.batches);
  }

  list(): ForgetBatch[] {
    return [...this.batches];
  }
}
