/**
 * The recent memories list (`r`): the newest memories of every scope, newest first, loaded when
 * the list opens and kept fresh while it is shown. Answers to a superseded load are dropped.
 */
import type { DaemonClient, MemoryResult } from '../daemon/client.js';

export interface RecentState {
  loading: boolean;
  items: MemoryResult[];
  error: string | null;
}

export interface RecentOptions {
  client: Pick<DaemonClient, 'localList'>;
  cwd: string;
  /** @default 50 */
  limit?: number;
}

export class RecentMemories {
  private state: RecentState = { loading: false, items: [], error: null };
  private readonly listeners = new Set<(s: RecentState) => void>();
  private seq = 0;
  private disposed = false;

  constructor(private readonly opts: RecentOptions) {}

  get(): RecentState {
    return this.state;
  }

  subscribe(listener: (s: RecentState) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Load the newest memories now. */
  async refresh(): Promise<void> {
    const seq = ++this.seq;
    this.update({ loading: true });
    try {
      const r = await this.opts.client.localList({ cwd: this.opts.cwd, limit: this.opts.limit ?? 50 });
      if (seq === this.seq) this.update({ loading: false, items: r.results, error: null });
    } catch (err) {
      if (seq === this.seq) this.update({ loading: false, error: err instanceof Error ? err.message : String(err) });
    }
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }

  private update(patch: Partial<RecentState>): void {
    if (this.disposed) return;
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l(this.state);
  }
}
