/**
 * Delivers one project's events to its webhooks: fans each durable event out into outbox
 * deliveries, then POSTs them with signed headers, retrying failures (non-2xx, timeouts,
 * connection errors) with exponential backoff and jitter up to the configured attempts.
 *
 * At-least-once: a delivery interrupted by a crash is sent again after the restart, and
 * deliveries may arrive out of order after retries; receivers dedupe by `event_id` and order by
 * the event's `seq` (GET /v1/events/:id).
 */
import { randomUUID } from 'node:crypto';
import { request, type Agent } from 'undici';
import { uuidv7, type Logger } from '../engine/index.js';
import type { EventEntry, ProjectEventLog } from './event-log.js';
import { matchesPatterns, visibleTo } from './event-types.js';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signPayload, TIMESTAMP_HEADER } from './webhook-signature.js';
import type { Attempt, Delivery, DeliveryOutbox } from './webhook-outbox.js';
import type { Webhook, WebhookStore } from './webhook-store.js';
import { deliveryAgent, literalBlocked } from './webhook-target.js';

export interface DispatcherOptions {
  maxAttempts: number;
  retryBaseMs: number;
  timeoutMs: number;
  allowPrivate: boolean;
  logger: Logger;
}

/** No retry waits longer than this. */
const MAX_RETRY_DELAY_MS = 3_600_000;
/** Deliveries in flight at once per project. */
const CONCURRENCY = 8;
const USER_AGENT = 'memory-service-webhooks/1';

interface Payload {
  event_id: string;
  type: string;
  created_at: string;
  data: unknown;
}

export class WebhookDispatcher {
  private readonly agent: Agent;
  private readonly inflight = new Map<string, AbortController>();
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private tickQueued = false;
  private fanChain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly hooks: WebhookStore,
    private readonly outbox: DeliveryOutbox,
    private readonly log: ProjectEventLog,
    private readonly opts: DispatcherOptions,
  ) {
    this.agent = deliveryAgent({ allowPrivate: opts.allowPrivate, timeoutMs: opts.timeoutMs });
  }

  /** Resume: fan out events recorded after the outbox's cursor, follow new ones, send what is due. */
  async start(): Promise<void> {
    // Deliveries of webhooks deleted before the last stop are still in the journal: drop them.
    const known = new Set(this.hooks.list().map((h) => h.webhook_id));
    for (const id of this.outbox.webhookIds()) if (!known.has(id)) this.outbox.removeWebhook(id);
    this.log.onDurable((entries) => this.fanOut(entries));
    this.fanOut(this.log.entriesAfter(this.outbox.fannedOut));
    await this.fanChain;
    this.kick();
  }

  private fanOut(entries: readonly EventEntry[]): void {
    if (entries.length === 0 || this.closed) return;
    const hooks = this.hooks.list().filter((h) => h.active);
    // Without active webhooks there is nothing to persist: a webhook created or resumed later
    // starts after the log's head, so a stale cursor only costs a quick rescan at the next start.
    if (hooks.length === 0) return;
    const now = new Date().toISOString();
    for (const e of entries) {
      for (const h of hooks) {
        if (e.seq <= h.from_seq || !matchesPatterns(e.type, h.events) || !visibleTo(e.visible_to, h.member_id) || this.outbox.has(h.webhook_id, e.event_id)) continue;
        this.outbox.put({ delivery_id: uuidv7(), webhook_id: h.webhook_id, event_id: e.event_id, event_seq: e.seq, type: e.type, status: 'PENDING', attempts: [], next_attempt_at: now, created_at: now, updated_at: now, test: false });
      }
    }
    const last = entries[entries.length - 1]!.seq;
    this.fanChain = this.fanChain
      .then(async () => {
        await this.outbox.flush();
        this.outbox.setFannedOut(last);
      })
      .catch((err: unknown) => this.opts.logger.error('webhook fan-out could not be persisted', { err }));
    this.kick();
  }

  /** Look for due deliveries soon (coalesced). */
  private kick(): void {
    if (this.tickQueued || this.closed) return;
    this.tickQueued = true;
    setImmediate(() => {
      this.tickQueued = false;
      this.tick();
    });
  }

  private tick(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const now = Date.now();
    const waiting = this.outbox.pending().filter((d) => !this.inflight.has(d.delivery_id));
    waiting.sort((a, b) => Date.parse(a.next_attempt_at!) - Date.parse(b.next_attempt_at!) || (a.event_seq ?? 0) - (b.event_seq ?? 0));
    for (const d of waiting) {
      if (this.inflight.size >= CONCURRENCY) return; // a finishing delivery kicks again
      const due = Date.parse(d.next_attempt_at!);
      if (due > now) {
        this.timer = setTimeout(() => this.tick(), Math.min(due - now, MAX_RETRY_DELAY_MS));
        this.timer.unref();
        return;
      }
      this.launch(d);
    }
  }

  private launch(d: Delivery): void {
    const hook = this.hooks.get(d.webhook_id);
    if (!hook) return;
    const ac = new AbortController();
    this.inflight.set(d.delivery_id, ac);
    const p = this.deliver(hook, d, ac.signal)
      .catch((err: unknown) => this.opts.logger.error('webhook delivery failed unexpectedly', { err, delivery_id: d.delivery_id }))
      .finally(() => {
        this.inflight.delete(d.delivery_id);
        this.running.delete(p);
        this.kick();
      });
    this.running.add(p);
  }

  private async deliver(hook: Webhook, d: Delivery, signal: AbortSignal): Promise<void> {
    const [event] = d.event_seq === null ? [] : await this.log.bySeq([d.event_seq]);
    if (!event) {
      this.finish(d, 'FAILED', null);
      return;
    }
    const attempt = await this.send(hook, d, { event_id: event.event_id, type: event.type, created_at: event.created_at, data: event.data }, signal);
    if (attempt === null) return; // shut down mid-attempt: stays pending, sent again after the restart
    const n = d.attempts.length + 1;
    const ok = attempt.status_code !== null && attempt.status_code >= 200 && attempt.status_code < 300;
    const permanent = attempt.error?.startsWith('refused:') ?? false;
    if (ok || permanent || n >= this.opts.maxAttempts || !this.outbox.get(d.delivery_id)) {
      this.finish(d, ok ? 'SUCCEEDED' : 'FAILED', attempt);
      return;
    }
    const delay = this.backoff(n, attempt);
    this.outbox.put({ ...d, attempts: [...d.attempts, attempt], next_attempt_at: new Date(Date.now() + delay).toISOString(), updated_at: new Date().toISOString() });
  }

  private finish(d: Delivery, status: 'SUCCEEDED' | 'FAILED', attempt: Attempt | null): void {
    if (!this.outbox.get(d.delivery_id)) return; // its webhook was deleted meanwhile
    this.outbox.put({ ...d, status, attempts: attempt ? [...d.attempts, attempt] : d.attempts, next_attempt_at: null, updated_at: new Date().toISOString() });
  }

  /** Exponential backoff with jitter (half fixed, half random); a receiver's Retry-After is honoured. */
  private backoff(failures: number, attempt: Attempt & { retryAfterMs?: number }): number {
    const exp = Math.min(MAX_RETRY_DELAY_MS, this.opts.retryBaseMs * 2 ** (failures - 1));
    const jittered = exp / 2 + Math.random() * (exp / 2);
    return Math.min(MAX_RETRY_DELAY_MS, Math.max(jittered, attempt.retryAfterMs ?? 0));
  }

  /** One POST. Returns the attempt, or null when the server is shutting down. */
  private async send(hook: Webhook, d: Delivery, payload: Payload, signal: AbortSignal): Promise<(Attempt & { retryAfterMs?: number }) | null> {
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

  /** A single signed test POST (type `webhook.test`, not part of the event feed), recorded like any delivery. */
  async test(hook: Webhook): Promise<Delivery> {
    const now = new Date().toISOString();
    const d: Delivery = { delivery_id: uuidv7(), webhook_id: hook.webhook_id, event_id: randomUUID(), event_seq: null, type: 'webhook.test', status: 'PENDING', attempts: [], next_attempt_at: null, created_at: now, updated_at: now, test: true };
    const attempt = await this.send(hook, d, { event_id: d.event_id, type: d.type, created_at: now, data: { webhook_id: hook.webhook_id, message: 'test delivery from the memory service' } }, new AbortController().signal);
    const { retryAfterMs: _r, ...recorded } = attempt!; // never null: nothing aborts a test delivery
    const ok = recorded.status_code !== null && recorded.status_code >= 200 && recorded.status_code < 300;
    const done: Delivery = { ...d, status: ok ? 'SUCCEEDED' : 'FAILED', attempts: [recorded], updated_at: new Date().toISOString() };
    this.outbox.put(done);
    await this.outbox.flush();
    return done;
  }

  /** Stop: abort attempts in flight (they stay pending), persist the outbox. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const ac of this.inflight.values()) ac.abort();
    await Promise.all([...this.running]);
    await this.fanChain;
    await this.agent.close().catch(() => {});
  }
}
