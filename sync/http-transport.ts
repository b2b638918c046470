/**
 * SyncTransport over HTTP with undici: one keep-alive connection pool per server, a timeout on
 * every phase (connect, answer started, body progressing), and the API's error body turned into a
 * `SyncRequestError` with the loop's failure kind.
 */
import type { Agent } from 'undici';
import { loadUndici, type ExportLine } from '../engine/index.js';
import { kindOfStatus, SyncRequestError, type FeedPage, type PushResult, type SyncTransport, type VerifyInfo } from './transport.js';

export interface HttpTransportOptions {
  /** Server address, e.g. https://memory.example.com (a path prefix is kept). */
  baseUrl: string;
  apiKey: string;
  /** Connect, first byte of the answer, and any pause inside the body. @default 30000 */
  timeoutMs?: number;
  /** Sent as User-Agent. */
  userAgent?: string;
}

export class HttpTransport implements SyncTransport {
  readonly baseUrl: string;
  readonly bytes = { sent: 0, received: 0 };
  private readonly agent: Agent;
  private readonly controllers = new Set<AbortController>();
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;

  constructor(opts: HttpTransportOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.agent = new (loadUndici().Agent)({
      connectTimeout: Math.min(this.timeoutMs, 10_000),
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 30_000,
      connections: 4,
    });
    this.headers = { authorization: `Bearer ${opts.apiKey}`, 'user-agent': opts.userAgent ?? 'memory-service-sync', accept: 'application/json' };
  }

  async verify(): Promise<VerifyInfo> {
    return (await this.call('GET', '/api/v1/verify')) as VerifyInfo;
  }

  async push(versions: readonly ExportLine[]): Promise<PushResult[]> {
    try {
      const body = (await this.call('POST', '/v1/sync/push', { versions })) as { results?: PushResult[] };
      if (!Array.isArray(body.results) || body.results.length !== versions.length) {
        throw new SyncRequestError('transient', 'BAD_RESPONSE', 'the server answered a push without one result per version');
      }
      return body.results;
    } catch (err) {
      if (err instanceof SyncRequestError && err.status === 404) {
        throw new SyncRequestError('blocked', 'UNSUPPORTED', `${this.baseUrl} has no sync route (POST /v1/sync/push); upgrade the server`, 404);
      }
      throw err;
    }
  }

  async events(after: number, limit: number): Promise<FeedPage> {
    const page = (await this.call('GET', `/v1/events?after=${after}&limit=${limit}&type=memory.*`)) as FeedPage;
    if (!Array.isArray(page.results) || typeof page.next_after !== 'number') throw new SyncRequestError('transient', 'BAD_RESPONSE', 'the event feed answered an unexpected page');
    return page;
  }

  async purge(memoryId: string): Promise<'purged' | 'absent'> {
    try {
      await this.call('DELETE', `/v1/memories/${encodeURIComponent(memoryId)}?purge=true`);
      return 'purged';
    } catch (err) {
      if (err instanceof SyncRequestError && err.status === 404) return 'absent';
      throw err;
    }
  }

  async close(): Promise<void> {
    for (const c of this.controllers) c.abort(new Error('sync is stopping'));
    await this.agent.destroy().catch(() => {});
  }

  private async call(method: string, pathname: string, json?: unknown): Promise<unknown> {
    const payload = json === undefined ? undefined : JSON.stringify(json);
    const controller = new AbortController();
    this.controllers.add(controller);
    // A hard ceiling as well as undici's per-phase timeouts: a body that trickles never hangs a round.
    const ceiling = setTimeout(() => controller.abort(new Error('request took too long')), this.timeoutMs * 4);
    try {
      let res;
      try {
        res = await loadUndici().request(this.baseUrl + pathname, {
          method: method as 'GET',
          dispatcher: this.agent,
          headers: payload === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' },
          body: payload,
          signal: controller.signal,
        });
      } catch (err) {
        throw networkError(err, method, pathname);
      }
      if (payload !== undefined) this.bytes.sent += Buffer.byteLength(payload);
      let text: string;
      try {
        text = await res.body.text();
      } catch (err) {
        throw networkError(err, method, pathname);
      }
      this.bytes.received += Buffer.byteLength(text);
      let body: unknown = null;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        body = null;
      }
      if (res.statusCode >= 400) {
        const e = (body as { error?: { code?: string; message?: string } } | null)?.error;
        const retryAfter = Number(res.headers['retry-after']);
        throw new SyncRequestError(
          kindOfStatus(res.statusCode),
          e?.code ?? `HTTP_${res.statusCode}`,
          e?.message ?? `${method} ${pathname} answered ${res.statusCode}`,
          res.statusCode,
          Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : null,
        );
      }
      if (body === null && res.statusCode !== 204) throw new SyncRequestError('transient', 'BAD_RESPONSE', `${method} ${pathname} answered ${res.statusCode} without a JSON body`, res.statusCode);
      return body;
    } finally {
      clearTimeout(ceiling);
      this.controllers.delete(controller);
    }
  }
}

/** No answer (refused, reset, timed out, aborted): the network's fault, so always worth a retry. */
function networkError(err: unknown, method: string, pathname: string): SyncRequestError {
  const e = err as { code?: string; message?: string; name?: string };
  const code = typeof e?.code === 'string' ? e.code : e?.name === 'AbortError' ? 'ABORTED' : 'NETWORK';
  return new SyncRequestError('transient', code, `${method} ${pathname.split('?')[0]} failed: ${e?.message ?? String(err)}`);
}
