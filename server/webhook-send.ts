/**
 * One signed webhook POST and the retry policy after it, shared by the embedded dispatcher
 * (deliveries in the data dir) and the PostgreSQL one (deliveries claimed from the database).
 */
import { request, type Agent } from 'undici';
import type { Logger } from '../engine/index.js';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signPayload, TIMESTAMP_HEADER } from './webhook-signature.js';
import type { Attempt, Delivery } from './webhook-outbox.js';
import type { Webhook } from './webhook-store.js';
import { deliveryAgent, literalBlocked } from './webhook-target.js';

export interface DispatcherOptions {
  maxAttempts: number;
  retryBaseMs: number;
  timeoutMs: number;
  allowPrivate: boolean;
  logger: Logger;
}

/** No retry waits longer than this. */
export const MAX_RETRY_DELAY_MS = 3_600_000;
/** Deliveries in flight at once per dispatcher. */
export const CONCURRENCY = 8;
const USER_AGENT = 'memory-service-webhooks/1';

export interface Payload {
  event_id: string;
  type: string;
  created_at: string;
  data: unknown;
}

/** An attempt plus the receiver's Retry-After, which the next delay honours. */
export type SentAttempt = Attempt & { retryAfterMs?: number };

/** What to do after an attempt: finish the delivery, or try again after `delay` ms. */
export type Verdict = { finish: 'SUCCEEDED' | 'FAILED' } | { retryInMs: number };

/** Deliveries being sent, each abortable (shutdown), with a callback when one ends. */
export class InFlight {
  private readonly aborts = new Map<string, AbortController>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly logger: Logger,
    private readonly ended: () => void,
  ) {}

  get size(): number {
    return this.aborts.size;
  }

  has(deliveryId: string): boolean {
    return this.aborts.has(deliveryId);
  }

  /** Send one delivery (`work` gets the signal that shutdown aborts); an error is logged. */
  start(deliveryId: string, work: (signal: AbortSignal) => Promise<void>): void {
    const ac = new AbortController();
    this.aborts.set(deliveryId, ac);
    const p = work(ac.signal)
      .catch((err: unknown) => this.logger.error('webhook delivery failed unexpectedly', { err, delivery_id: deliveryId }))
      .finally(() => {
        this.aborts.delete(deliveryId);
        this.running.delete(p);
        this.ended();
      });
    this.running.add(p);
  }

  /** Abort every attempt in flight and wait for them to end. */
  async abortAll(): Promise<void> {
    for (const ac of this.aborts.values()) ac.abort();
    await Promise.all([...this.running]);
  }
}

export class WebhookSender {
  readonly agent: Agent;

  constructor(private readonly opts: DispatcherOptions) {
    this.agent = deliveryAgent({ allowPrivate: opts.allowPrivate, timeoutMs: opts.timeoutMs });
  }

  /** After attempt number `n` of a delivery: done, or the backoff before the next one. */
  verdict(n: number, attempt: SentAttempt): Verdict {
    const ok = attempt.status_code !== null && attempt.status_code >= 200 && attempt.status_code < 300;
    const permanent = attempt.error?.startsWith('refused:') ?? false;
    if (ok) return { finish: 'SUCCEEDED' };
    if (permanent || n >= this.opts.maxAttempts) return { finish: 'FAILED' };
    return { retryInMs: this.backoff(n, attempt) };
  }

  /** Exponential backoff with jitter (half fixed, half random); a receiver's Retry-After is honoured. */
  private backoff(failures: number, attempt: SentAttempt): number {
    const exp = Math.min(MAX_RETRY_DELAY_MS, this.opts.retryBaseMs * 2 ** (failures - 1));
    const jittered = exp / 2 + Math.random() * (exp / 2);
    return Math.min(MAX_RETRY_DELAY_MS, Math.max(jittered, attempt.retryAfterMs ?? 0));
  }

  /** One POST. Returns the attempt, or null when `signal` aborted it (the server is shutting down). */
  async send(hook: Pick<Webhook, 'url' | 'secret'>, d: Pick<Delivery, 'delivery_id' | 'attempts'>, payload: Payload, signal: AbortSignal): Promise<SentAttempt | null> {
    const body = JSON.stringify(payload);
    const ts = String(Math.floor(Date.now() / 1000));
    const started = new Date();
    const t0 = performance.now();
    const base = { attempt: d.attempts.length + 1, started_at: started.toISOString() };
    const url = new URL(hook.url);
    if (literalBlocked(url, this.opts.allowPrivate)) {
      return { ...base, duration_ms: 0, status_code: null, error: 'refused: the target is a loopback, private or reserved address' };
    }
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    try {
      const res = await request(url, {
        method: 'POST',
        body,
        dispatcher: this.agent,
        signal: AbortSignal.any([signal, timeout]),
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          [DELIVERY_HEADER]: d.delivery_id,
          [EVENT_HEADER]: payload.type,
          [TIMESTAMP_HEADER]: ts,
          [SIGNATURE_HEADER]: signPayload(hook.secret, ts, body),
        },
      });
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      const retryAfter = Number(res.headers['retry-after']);
      return {
        ...base,
        duration_ms: Math.round(performance.now() - t0),
        status_code: res.statusCode,
        error: res.statusCode >= 200 && res.statusCode < 300 ? null : `HTTP ${res.statusCode}`,
        ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
      };
    } catch (err) {
      if (signal.aborted) return null;
      const e = err as { code?: string; message?: string };
      const error = timeout.aborted
        ? `timeout after ${this.opts.timeoutMs} ms`
        : e.code === 'EPRIVATETARGET'
          ? 'refused: the target resolves only to loopback, private or reserved addresses'
          : `${e.code ?? 'ERROR'}: ${e.message ?? String(err)}`;
      return { ...base, duration_ms: Math.round(performance.now() - t0), status_code: null, error };
    }
  }

  /** The single signed test POST of `POST /v1/webhooks/:id/test` (type `webhook.test`, not in the event feed), as a finished delivery. */
  async testDelivery(hook: Webhook, ids: { delivery_id: string; event_id: string }): Promise<Delivery> {
    const now = new Date().toISOString();
    const d: Delivery = { ...ids, webhook_id: hook.webhook_id, event_seq: null, type: 'webhook.test', status: 'PENDING', attempts: [], next_attempt_at: null, created_at: now, updated_at: now, test: true };
    const attempt = await this.send(hook, d, { event_id: d.event_id, type: d.type, created_at: now, data: { webhook_id: hook.webhook_id, message: 'test delivery from the memory service' } }, new AbortController().signal);
    const { retryAfterMs: _r, ...recorded } = attempt!; // never null: nothing aborts a test delivery
    const ok = recorded.status_code !== null && recorded.status_code >= 200 && recorded.status_code < 300;
    return { ...d, status: ok ? 'SUCCEEDED' : 'FAILED', attempts: [recorded], updated_at: new Date().toISOString() };
  }

  close(): Promise<void> {
    return this.agent.close().catch(() => {});
  }
}
