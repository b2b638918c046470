/**
 * A deterministic stand-in for the daemon client: answers from in-memory state, records calls,
 * and can be switched "down" (every call fails as an unreachable daemon does).
 */
import { DaemonApiError, DaemonUnreachableError, type MemoryResult } from '../../daemon/client.js';
import type { DashboardClient } from '../../tui/dashboard-state.js';
import type { MemoryVersion } from '../../tui/detail-model.js';
import { statusFixture } from './fixtures.js';

export class FakeClient implements DashboardClient {
  readonly socketPath = '/tmp/fake/daemon.sock';
  down = false;
  status_: Record<string, unknown> = statusFixture();
  memories: (MemoryResult & { score: number })[] = [];
  histories: Record<string, MemoryVersion[]> = {};
  calls: { method: string; arg?: unknown }[] = [];
  /** Answers to search wait for this (tests release them in any order). */
  searchGate: ((query: string) => Promise<void>) | null = null;

  private check(method: string, arg?: unknown): void {
    this.calls.push({ method, arg });
    if (this.down) throw new DaemonUnreachableError(this.socketPath);
  }

  callsOf(method: string): unknown[] {
    return this.calls.filter((c) => c.method === method).map((c) => c.arg);
  }

  async status<T>(ctx?: unknown): Promise<T> {
    this.check('status', ctx);
    return structuredClone(this.status_) as T;
  }

  async localSearch(req: { query: string; scope?: string; cwd?: string; top_k?: number }) {
    this.check('localSearch', req);
    await this.searchGate?.(req.query);
    if (this.down) throw new DaemonUnreachableError(this.socketPath);
    const words = req.query.toLowerCase().split(/\s+/).filter(Boolean);
    const results = this.memories.filter((m) => words.every((w) => m.content.toLowerCase().includes(w)));
    const other_scopes: Record<string, number | null> = results.length ? {} : { repo: 0, dir: 0, user: 3, session: null };
    return { results, mode: 'hybrid', scope: req.scope ?? 'repo', repo: 'github.com/acme/shop', dir: '.', other_scopes };
  }

  async localList(req: { cwd?: string; limit?: number }) {
    this.check('localList', req);
    const results = [...this.memories].sort((a, b) => b.updated_at.localeCompare(a.updated_at)).slice(0, req.limit ?? 20);
    return { results, next_cursor: null, scope: null, repo: 'github.com/acme/shop' };
  }

  async get(id: string): Promise<MemoryResult> {
    this.check('get', id);
    const m = this.memories.find((x) => x.memory_id === id);
    if (!m) throw new DaemonApiError(404, 'NOT_FOUND', `memory ${id} was not found`);
    return m;
  }

  async history(id: string): Promise<{ memory_id: string; versions: MemoryVersion[] }> {
    this.check('history', id);
    return { memory_id: id, versions: this.histories[id] ?? [] };
  }

  async localForget(req: { memory_ids: string[] }): Promise<{ batch_id: string | null; forgotten: string[]; not_found: string[]; purged: boolean }> {
    const id = req.memory_ids[0]!;
    this.check('forget', id);
    this.memories = this.memories.filter((m) => m.memory_id !== id);
    return { batch_id: 'f1', forgotten: [id], not_found: [], purged: false };
  }

  async pause(req: { session_id?: string; all?: boolean }) {
    this.check('pause', req);
    const capture = this.status_.capture as { paused_all: boolean; paused_sessions: string[] };
    if (req.all) capture.paused_all = true;
    else if (req.session_id) capture.paused_sessions.push(req.session_id);
    return { paused_all: capture.paused_all, paused_sessions: capture.paused_sessions, session_id: req.session_id ?? null };
  }

  async resume(req: { session_id?: string; all?: boolean }) {
    this.check('resume', req);
    const capture = this.status_.capture as { paused_all: boolean; paused_sessions: string[] };
    if (req.all) {
      capture.paused_all = false;
      capture.paused_sessions = [];
    } else capture.paused_sessions = capture.paused_sessions.filter((s) => s !== req.session_id);
    return { paused_all: capture.paused_all, paused_sessions: capture.paused_sessions, session_id: req.session_id ?? null };
  }
}
