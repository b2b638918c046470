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
import { uuidv7 } from '../engine/index.js';
import type { EventEntry, ProjectEventLog } from './event-log.js';
import { matchesPatterns, visibleTo } from './event-types.js';
import { CONCURRENCY, InFlight, MAX_RETRY_DELAY_MS, WebhookSender, type DispatcherOptions } from './webhook-send.js';
import type { Attempt, Delivery, DeliveryOutbox } from './webhook-outbox.js';
import type { Webhook, WebhookStore } from './webhook-store.js';

export type { DispatcherOptions } from './webhook-send.js';

export class WebhookDispatcher {
  private readonly sender: WebhookSender;
  private readonly inflight: InFlight;
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
    this.sender = new WebhookSender(opts);
    this.inflight = new InFlight(opts.logger, () => this.kick());
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
    this.inflight.start(d.delivery_id, (signal) => this.deliver(hook, d, signal));
  }

  private async deliver(hook: Webhook, d: Delivery, signal: AbortSignal): Promise<void> {
    const [event] = d.event_seq === null ? [] : await this.log.bySeq([d.event_seq]);
    if (!event) {
      this.finish(d, 'FAILED', null);
      return;
    }
    const attempt = await this.sender.send(hook, d, { event_id: event.event_id, type: event.type, created_at: event.created_at, data: event.data }, signal);
    if (attempt === null) return; // shut down mid-attempt: stays pending, sent again after the restart
    const verdict = this.sender.verdict(d.attempts.length + 1, attempt);
    const { retryAfterMs: _r, ...recorded } = attempt;
    if ('finish' in verdict || !this.outbox.get(d.delivery_id)) {
      this.finish(d, 'finish' in verdict ? verdict.finish : 'FAILED', recorded);
      return;
    }
    this.outbox.put({ ...d, attempts: [...d.attempts, recorded], next_attempt_at: new Date(Date.now() + verdict.retryInMs).toISOString(), updated_at: new Date().toISOString() });
  }

  private finish(d: Delivery, status: 'SUCCEEDED' | 'FAILED', attempt: Attempt | null): void {
    if (!this.outbox.get(d.delivery_id)) return; // its webhook was deleted meanwhile
    this.outbox.put({ ...d, status, attempts: attempt ? [...d.attempts, attempt] : d.attempts, next_attempt_at: null, updated_at: new Date().toISOString() });
  }

  /** A single signed test POST (type `webhook.test`, not part of the event feed), recorded like any delivery. */
  async test(hook: Webhook): Promise<Delivery> {
    const done = await this.sender.testDelivery(hook, { delivery_id: uuidv7(), event_id: randomUUID() });
    this.outbox.put(done);
    await this.outbox.flush();
    return done;
  }

  /** Stop: abort attempts in flight (they stay pending), persist the outbox. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.inflight.abortAll();
    await this.fanChain;
    await this.sender.close();
  }
}
