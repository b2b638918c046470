/**
 * Group commit: writes queued while a batch is being committed are planned, embedded and appended
 * together in the next batch, so many concurrent single writes cost one store append.
 *
 * Every job plans its rows against a view that includes the rows planned by earlier jobs of the
 * same batch, so an update right after an add (or two updates of one memory) stays consistent.
 */
import type { PlannedRow } from './bitemporal.js';
import type { VersionRow } from './types.js';

export interface BatchView {
  /** Rows of the memory's last transaction as they will be after earlier jobs (tombstones included). */
  lastTx(memoryId: string): Promise<VersionRow[]>;
  /** Highest version number of the memory after earlier jobs (0 when unknown). */
  lastVersion(memoryId: string): Promise<number>;
}

export interface Job {
  plan(view: BatchView): Promise<PlannedRow[]>;
}

interface Pending {
  job: Job;
  resolve: (rows: VersionRow[]) => void;
  reject: (err: unknown) => void;
}

/** Work that must run alone: no job is planned or committed while it runs. */
interface Exclusive {
  run: () => Promise<void>;
}

type Item = Pending | Exclusive;

function isExclusive(item: Item): item is Exclusive {
  return 'run' in item;
}

export interface WriteQueueDeps {
  /** Versions of these memories as stored now. */
  versionsOf(ids: readonly string[]): Promise<VersionRow[]>;
  /** Highest stored version of these memories (absent: none), without reading rows. */
  maxVersions(ids: readonly string[]): Promise<Map<string, number>>;
  /** Fill vectors of rows that need one (may leave them null when no model is ready). */
  embed(rows: PlannedRow[]): Promise<void>;
  append(rows: PlannedRow[]): Promise<VersionRow[]>;
  /** Largest number of jobs committed together. */
  maxBatch: number;
}

export class WriteQueue {
  private queue: Item[] = [];
  private running: Promise<void> | null = null;

  constructor(private readonly deps: WriteQueueDeps) {}

  submit(job: Job): Promise<VersionRow[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.kick();
    });
  }

  /**
   * Run `fn` alone, in queue order: jobs submitted before it are committed first, jobs submitted
   * after it wait until it settles. Replication (sync) uses it to read and rewrite a memory's
   * versions without a concurrent write planning against a stale view.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: () => Promise.resolve().then(fn).then(resolve, reject) });
      this.kick();
    });
  }

  private kick(): void {
    if (this.running) return;
    this.running = this.drain().finally(() => {
      this.running = null;
      // Work queued after the drain loop's last check but before this ran would wait forever.
      if (this.queue.length > 0) this.kick();
    });
  }

  /** Resolves once everything queued so far is committed. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    // Let callers of this tick enqueue before the first batch is cut.
    await new Promise((r) => setImmediate(r));
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (isExclusive(head)) {
        this.queue.shift();
        await head.run();
        continue;
      }
      let n = 0;
      while (n < this.queue.length && n < this.deps.maxBatch && !isExclusive(this.queue[n]!)) n++;
      await this.commit(this.queue.splice(0, n) as Pending[]);
    }
  }

  private async commit(batch: Pending[]): Promise<void> {
    const planned = new Map<string, PlannedRow[]>(); // memory_id -> rows planned in this batch
    const storedCache = new Map<string, VersionRow[]>();
    const stored = async (id: string): Promise<VersionRow[]> => {
      let v = storedCache.get(id);
      if (!v) {
        v = await this.deps.versionsOf([id]);
        storedCache.set(id, v);
      }
      return v;
    };
    const view: BatchView = {
      lastVersion: async (id) => {
        const p = planned.get(id);
        if (p && p.length > 0) return p[p.length - 1]!.version;
        const s = storedCache.get(id);
        if (s) return s.length === 0 ? 0 : s[s.length - 1]!.version;
        // An add only needs to know the id is new: no row read for that.
        return (await this.deps.maxVersions([id])).get(id) ?? 0;
      },
      lastTx: async (id) => {
        const p = planned.get(id);
        const rows: VersionRow[] = p && p.length > 0 ? p.map((r) => ({ ...r, seq: 0 })) : await stored(id);
        if (rows.length === 0) return [];
        const tx = rows[rows.length - 1]!.tx;
        return rows.filter((r) => r.tx === tx);
      },
    };
    const ok: { p: Pending; rows: PlannedRow[] }[] = [];
    for (const p of batch) {
      try {
        const rows = await p.job.plan(view);
        for (const r of rows) {
          const list = planned.get(r.memory_id) ?? [];
          list.push(r);
          planned.set(r.memory_id, list);
        }
        ok.push({ p, rows });
      } catch (err) {
        p.reject(err);
      }
    }
    const all = ok.flatMap((x) => x.rows);
    if (all.length === 0) return;
    try {
      await this.deps.embed(all);
      const result = await this.deps.append(all);
      const byId = new Map(result.map((r) => [r.version_id, r]));
      for (const { p, rows } of ok) p.resolve(rows.map((r) => byId.get(r.version_id)!));
    } catch (err) {
      for (const { p } of ok) p.reject(err);
    }
  }
}
