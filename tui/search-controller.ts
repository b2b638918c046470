/**
 * Live search as you type: each change of query or scope waits `debounceMs` for the next
 * keystroke, then asks the daemon; answers to superseded queries are dropped, so the results on
 * screen always belong to the query on screen.
 */
import { DaemonApiError, type DaemonClient } from '../daemon/client.js';
import { emptyHint, type SearchHit } from './search-model.js';

export interface SearchState {
  query: string;
  /** The scope asked for; null lets the daemon use its default. */
  scope: string | null;
  /** The scope the daemon searched (known after the first answer). */
  searchedScope: string | null;
  loading: boolean;
  hits: SearchHit[];
  /** hybrid or text. */
  mode: string | null;
  hint: string | null;
  error: string | null;
}

export interface SearchOptions {
  client: Pick<DaemonClient, 'localSearch'>;
  cwd: string;
  /** @default 200 */
  debounceMs?: number;
  /** @default 20 */
  topK?: number;
}

export class SearchController {
  private state: SearchState = { query: '', scope: null, searchedScope: null, loading: false, hits: [], mode: null, hint: null, error: null };
  private readonly listeners = new Set<(s: SearchState) => void>();
  private timer: NodeJS.Timeout | null = null;
  private seq = 0;
  private disposed = false;

  constructor(private readonly opts: SearchOptions) {}

  get(): SearchState {
    return this.state;
  }

  subscribe(listener: (s: SearchState) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** A new query or scope: searched after the debounce (at once for an empty query: no results). */
  set(query: string, scope: string | null): void {
    if (query === this.state.query && scope === this.state.scope) return;
    this.update({ query, scope });
    this.schedule(this.opts.debounceMs ?? 200);
  }

  /** Search again now (after a forget, so the forgotten memory leaves the list). */
  refresh(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    return this.run();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.listeners.clear();
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.seq++;
    if (this.state.query.trim() === '') {
      this.update({ loading: false, hits: [], hint: null, error: null });
      return;
    }
    this.update({ loading: true });
    this.timer = setTimeout(() => void this.run(), ms);
  }

  private async run(): Promise<void> {
    const seq = ++this.seq;
    const { query, scope } = this.state;
    if (query.trim() === '') {
      this.update({ loading: false, hits: [], hint: null, error: null });
      return;
    }
    this.update({ loading: true });
    try {
      // prefix: the word being typed matches as a prefix ("postg" finds postgres).
      const r = await this.opts.client.localSearch({ query, cwd: this.opts.cwd, top_k: this.opts.topK ?? 20, prefix: true, ...(scope ? { scope } : {}) });
      if (seq !== this.seq || this.disposed) return;
      const hits: SearchHit[] = r.results;
      this.update({ loading: false, hits, mode: r.mode, searchedScope: r.scope, error: null, hint: hits.length === 0 ? emptyHint(r.scope, r.repo, r.other_scopes) : null });
    } catch (err) {
      if (seq !== this.seq || this.disposed) return;
      this.update({ loading: false, error: errorText(err) });
    }
  }

  private update(patch: Partial<SearchState>): void {
    if (this.disposed) return;
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l(this.state);
  }
}

/** The daemon's reason; a scope that does not apply here (no repository, no session) can be changed with tab (said first: long reasons are cut at the screen's edge). */
function errorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const scoped = err instanceof DaemonApiError && err.status === 422 && typeof (err.details as { scope?: unknown } | undefined)?.scope === 'string';
  return scoped ? `press tab for another scope. ${message}` : message;
}
