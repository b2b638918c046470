/**
 * The one client of the daemon's Unix socket, for the CLI, the TUI and the MCP server.
 * It imports nothing of ours (only node: built-ins) so thin processes load it fast.
 * Wire errors come back as `DaemonApiError` with the API's code; a daemon that is not there is a
 * `DaemonUnreachableError` (code DAEMON_UNREACHABLE).
 */
import http from 'node:http';
import fs from 'node:fs';
import nodePath from 'node:path';

export class DaemonUnreachableError extends Error {
  readonly code = 'DAEMON_UNREACHABLE';
  constructor(
    readonly socketPath: string,
    cause?: unknown,
  ) {
    super(`the memory daemon is not running (no answer on ${socketPath}); start it with: service daemon start`);
    this.name = 'DaemonUnreachableError';
    if (cause !== undefined) (this as { cause?: unknown }).cause = cause;
  }
}

export class DaemonApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'DaemonApiError';
  }
}

export interface ClientOptions {
  socketPath: string;
  /** Per-request timeout. @default 10000 */
  timeoutMs?: number;
}

export interface MemoryResult {
  memory_id: string;
  content: string;
  score?: number;
  category: string;
  space: string;
  repo: string | null;
  dir: string | null;
  run_id: string | null;
  user_id: string;
  created_at: string;
  updated_at: string;
  valid_from: string;
  valid_to: string | null;
  version: number;
  metadata: Record<string, unknown>;
  source: Record<string, unknown>;
}

/** One hit of `POST /v1/local/search`. */
export interface LocalSearchHit {
  memory_id: string;
  content: string;
  score: number;
  category: string;
  space: string;
  repo: string | null;
  updated_at: string;
}

export interface SearchRequest {
  query: string;
  scope?: 'repo' | 'dir' | 'user' | 'session';
  repo?: string;
  dir?: string;
  run_id?: string;
  user_id?: string;
  top_k?: number;
  threshold?: number;
  filters?: Record<string, unknown>;
}

export class DaemonClient {
  constructor(private readonly opts: ClientOptions) {}

  get socketPath(): string {
    return this.opts.socketPath;
  }

  /** One request; resolves with the parsed JSON body (or text for non-JSON answers). */
  request<T = unknown>(method: string, path: string, body?: unknown, opts: { timeoutMs?: number; contentType?: string } = {}): Promise<T> {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return new Promise<T>((resolve, reject) => {
      // Nothing is sent to a socket another user could have placed or could read.
      const untrusted = untrustedSocket(this.opts.socketPath);
      if (untrusted) {
        reject(new DaemonUnreachableError(this.opts.socketPath, new Error(`refusing to use the daemon socket: ${untrusted}`)));
        return;
      }
      const req = http.request(
        {
          socketPath: this.opts.socketPath,
          // A connection per request: Node's global agent keeps sockets alive, and one the daemon
          // closes after its 5 s keep-alive can be reused at that very moment ("socket hang up").
          // A Unix-socket connect costs well under a millisecond.
          agent: false,
          method,
          path,
          headers: payload === undefined ? {} : { 'Content-Type': opts.contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(payload) },
          timeout: opts.timeoutMs ?? this.opts.timeoutMs ?? 10_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const isJson = /^application\/json/.test(res.headers['content-type'] ?? '');
            let parsed: unknown = text;
            if (isJson && text) {
              try {
                parsed = JSON.parse(text);
              } catch {
                parsed = text;
              }
            }
            const status = res.statusCode ?? 0;
            if (status >= 400) {
              const e = (parsed as { error?: { code?: string; message?: string; details?: unknown; request_id?: string } })?.error;
              reject(new DaemonApiError(status, e?.code ?? 'HTTP_' + status, e?.message ?? text.slice(0, 200), e?.details, e?.request_id));
              return;
            }
            resolve(parsed as T);
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`daemon did not answer ${method} ${path} in time`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED' || err.code === 'ENOTSOCK' || err.code === 'EACCES') reject(new DaemonUnreachableError(this.opts.socketPath, err));
        else reject(err);
      });
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** True when something answers on the socket. */
  async ping(timeoutMs = 1000): Promise<boolean> {
    try {
      await this.request('GET', '/health', undefined, { timeoutMs });
      return true;
    } catch {
      return false;
    }
  }

  status<T = Record<string, unknown>>(ctx: { cwd?: string; session_id?: string } = {}): Promise<T> {
    const q = new URLSearchParams(Object.entries(ctx).filter(([, v]) => v !== undefined) as [string, string][]).toString();
    return this.request<T>('GET', `/v1/status${q ? `?${q}` : ''}`);
  }

  /** Sync state: last push and pull, backlog, parked versions, reachability, key check. */
  syncStatus<T = Record<string, unknown>>(): Promise<T> {
    return this.request<T>('GET', '/v1/sync/status');
  }

  /** Run a sync round now (push, then pull); `retry_parked` sends parked versions again. */
  syncNow<T = { round: Record<string, unknown>; status: Record<string, unknown> }>(opts: { retry_parked?: boolean } = {}, timeoutMs = 600_000): Promise<T> {
    return this.request<T>('POST', '/v1/sync/now', opts, { timeoutMs });
  }

  search(req: SearchRequest): Promise<{ results: MemoryResult[]; mode: string }> {
    return this.request('POST', '/v1/memories/search', req);
  }

  /** Scope-aware search from a working directory (the daemon resolves repo and dir). */
  localSearch(req: { query: string; scope?: string; cwd?: string; session_id?: string; top_k?: number; relevant?: boolean; prefix?: boolean }): Promise<{ results: LocalSearchHit[]; mode: string; scope: string; repo: string | null; dir: string | null; other_scopes: Record<string, number | null> }> {
    return this.request('POST', '/v1/local/search', req);
  }

  remember(req: { text: string; personal?: boolean; category?: string; cwd?: string; session_id?: string }): Promise<{ results: { memory_id: string; content: string; event: string }[] }> {
    return this.request('POST', '/v1/remember', req);
  }

  pause(req: { session_id?: string; all?: boolean; cwd?: string }): Promise<{ paused_all: boolean; paused_sessions: string[]; paused_repos?: string[]; session_id: string | null; repo?: string | null }> {
    return this.request('POST', '/v1/pause', req);
  }

  resume(req: { session_id?: string; all?: boolean; cwd?: string }): Promise<{ paused_all: boolean; paused_sessions: string[]; paused_repos?: string[]; session_id: string | null; repo?: string | null }> {
    return this.request('POST', '/v1/resume', req);
  }

  get(id: string): Promise<MemoryResult> {
    return this.request('GET', `/v1/memories/${encodeURIComponent(id)}`);
  }

  forget(id: string, purge = false): Promise<{ memory_id: string; deleted: boolean }> {
    return this.request('DELETE', `/v1/memories/${encodeURIComponent(id)}${purge ? '?purge=true' : ''}`);
  }

  /** Current memories newest first, by scope (resolved from cwd), category and update time. */
  localList(req: { scope?: string; category?: string; since?: number; cwd?: string; session_id?: string; limit?: number; cursor?: string }): Promise<{ results: MemoryResult[]; next_cursor: string | null; scope: string | null; repo: string | null }> {
    return this.request('POST', '/v1/local/list', req);
  }

  /** Correct a memory's content (a new version; history keeps the old one). */
  update(id: string, patch: { content: string }): Promise<MemoryResult> {
    return this.request('PATCH', `/v1/memories/${encodeURIComponent(id)}`, patch);
  }

  /** Forget (or erase, with purge) memories as one batch that `undo` can restore. */
  localForget(req: { memory_ids: string[]; purge?: boolean; query?: string }): Promise<{ batch_id: string | null; forgotten: string[]; not_found: string[]; purged: boolean }> {
    return this.request('POST', '/v1/local/forget', req);
  }

  /** Restore the last forget, or the forget of one memory. */
  undo(req: { memory_id?: string } = {}): Promise<{ batch_id: string | null; forgotten_at: string | null; restored: string[]; already_current: string[] }> {
    return this.request('POST', '/v1/local/undo', req);
  }

  history(id: string): Promise<{ memory_id: string; versions: (MemoryResult & { event: string; recorded_at: string; superseded_at: string | null })[] }> {
    return this.request('GET', `/v1/memories/${encodeURIComponent(id)}/history`);
  }

  flush(req: { session_id?: string } = {}): Promise<Record<string, unknown>> {
    return this.request('POST', '/v1/flush', req);
  }

  recall(req: Record<string, unknown>): Promise<{ context: string; count: number }> {
    return this.request('POST', '/v1/recall', req);
  }

  capture(event: Record<string, unknown>): Promise<{ captured: boolean; paused?: boolean; j?: number }> {
    return this.request('POST', '/v1/capture', event);
  }

  async exportAll(): Promise<string> {
    const job = await this.request<{ export_id: string; status: string }>('POST', '/v1/exports', {});
    for (let i = 0; ; i++) {
      const s = await this.request<{ status: string; error: string | null }>('GET', `/v1/exports/${job.export_id}`);
      if (s.status === 'SUCCEEDED') break;
      if (s.status === 'FAILED') throw new DaemonApiError(500, 'EXPORT_FAILED', s.error ?? 'export failed');
      await new Promise((r) => setTimeout(r, Math.min(500, 20 * (i + 1))));
    }
    return this.request<string>('GET', `/v1/exports/${job.export_id}/download`, undefined, { timeoutMs: 600_000 });
  }

  importNdjson(text: string): Promise<{ imported: number; skipped: number; memories: number }> {
    return this.request('POST', '/v1/imports', text, { contentType: 'application/x-ndjson', timeoutMs: 600_000 });
  }
}

/**
 * Why a client must not talk to this socket, or null when it may: the socket and its directory
 * belong to this user and the directory admits nobody else. A missing socket is null (connecting
 * then fails as "not running").
 */
export function untrustedSocket(socketPath: string): string | null {
  const me = typeof process.getuid === 'function' ? process.getuid() : null;
  if (me === null) return null;
  let sock: fs.Stats;
  try {
    sock = fs.lstatSync(socketPath);
  } catch {
    return null;
  }
  if (!sock.isSocket()) return `${socketPath} is not a socket`;
  if (sock.uid !== me) return `${socketPath} belongs to another user (uid ${sock.uid})`;
  const dir = fs.lstatSync(nodePath.dirname(socketPath));
  if (!dir.isDirectory() || dir.uid !== me || (dir.mode & 0o077) !== 0) {
    return `${nodePath.dirname(socketPath)} is open to other users (mode ${(dir.mode & 0o777).toString(8)}, owner uid ${dir.uid})`;
  }
  return null;
}
