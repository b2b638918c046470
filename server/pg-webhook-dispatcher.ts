/**
 * Sends the webhook deliveries of every project kept in PostgreSQL; each replica runs one, and
 * they share the work through the database.
 *
 * - A replica claims due deliveries with `FOR UPDATE SKIP LOCKED` and marks them with a lease
 *   (its owner id and an expiry by the database clock); another replica skips leased rows, so in
 *   normal operation each delivery is sent once, by one replica.
 * - The outcome is written only while the lease is still this replica's. A replica killed
 *   mid-delivery leaves its lease to expire; then any replica claims the delivery and sends it
 *   again: delivery is at least once, and receivers dedupe by `event_id`.
 * - NOTIFY on `ms_deliveries` (sent with every fan-out's commit) wakes idle replicas at once; a
 *   poll every `pollMs` finds what a lost notification, a retry's due time or an expired lease
 *   makes due, so the table is the only source of truth.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { uuidv7, type SqlClient } from '../engine/index.js';
import { deliveryOf, DELIVERY_CHANNEL, DELIVERY_COLS, type DeliveryRow } from './pg-webhooks.js';
import { DB_NOW_MS } from './pg-state.js';
import { CONCURRENCY, InFlight, WebhookSender, type DispatcherOptions } from './webhook-send.js';
import { KEPT_PER_WEBHOOK, type Delivery } from './webhook-outbox.js';
import type { Webhook } from './webhook-store.js';

export interface PgDispatcherOptions extends DispatcherOptions {
  /** Look for due deliveries at least this often. @default 1000 */
  pollMs?: number;
  /** How long a claim holds a delivery. @default twice the timeout plus 5 s: an attempt cannot outlive it */
  leaseMs?: number;
}

const DEFAULT_POLL_MS = 1000;
/** Finished deliveries beyond KEPT_PER_WEBHOOK per webhook are dropped this often. */
const PRUNE_EVERY_MS = 600_000;

export class PgWebhookDispatcher {
  /** This replica's lease owner id. */
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly sender: WebhookSender;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly inflight: InFlight;
  private readonly timers = new Set<NodeJS.Timeout>();
  private ticking: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: SqlClient,
    private readonly opts: PgDispatcherOptions,
  ) {
    this.sender = new WebhookSender(opts);
    this.inflight = new InFlight(opts.logger, () => this.kick());
    this.pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
    this.leaseMs = opts.leaseMs ?? opts.timeoutMs * 2 + 5000;
  }

  async start(): Promise<void> {
    if (this.db.listen) {
      this.unlisten = await this.db.listen(DELIVERY_CHANNEL, () => this.kick()).catch((err: unknown) => {
        this.opts.logger.warn('cannot LISTEN for webhook deliveries; polling only', { err });
        return null;
      });
    }
    this.every(this.pollMs, () => this.kick());
    this.every(PRUNE_EVERY_MS, () => void this.prune().catch((err: unknown) => this.opts.logger.warn('could not prune old webhook deliveries', { err })));
    await this.prune().catch((err: unknown) => this.opts.logger.warn('could not prune old webhook deliveries', { err }));
    this.kick();
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.timers.add(t);
  }

  private after(ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.kick();
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  /** Look for due deliveries now (coalesced: one look at a time, another after it if asked meanwhile). */
  kick(): void {
    if (this.closed) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = (async () => {
      do {
        this.again = false;
        await this.tick().catch((err: unknown) => this.opts.logger.error('webhook dispatch failed; retrying at the next poll', { err }));
      } while (this.again && !this.closed);
    })().finally(() => (this.ticking = null));
  }

  private async tick(): Promise<void> {
    const free = CONCURRENCY - this.inflight.size;
    if (free <= 0 || this.closed) return; // a finishing delivery kicks again
    const claimed = await this.claim(free);
    if (this.closed) {
      await this.release(claimed.map((r) => r.delivery_id));
      return;
    }
    for (const row of claimed) this.launch(row);
    if (claimed.length < free) {
      // Wake when the next retry falls due or a lease expires (the poll covers anything later).
      const r = await this.db.query<{ wait: number | null }>(
        `SELECT min(GREATEST(next_at_ms, COALESCE(lease_until_ms, 0))) - ${DB_NOW_MS} AS wait FROM ms_deliveries WHERE status = 'PENDING'`,
      );
      const wait = r.rows[0]?.wait;
      if (wait !== null && wait !== undefined && wait < this.pollMs) this.after(Math.max(5, Math.ceil(wait)));
    }
  }

  /** Take up to `n` due deliveries no live lease holds, leased to this replica. */
  private async claim(n: number): Promise<DeliveryRow[]> {
    const r = await this.db.query<DeliveryRow>(
      `WITH now AS (SELECT ${DB_NOW_MS} AS t),
       due AS (
         SELECT d.delivery_id FROM ms_deliveries d, now
         WHERE d.status = 'PENDING' AND d.next_at_ms <= now.t AND (d.lease_until_ms IS NULL OR d.lease_until_ms < now.t)
         ORDER BY d.next_at_ms, d.event_seq
         LIMIT $1
         FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE ms_deliveries d SET lease_owner = $2, lease_until_ms = now.t + $3
       FROM due, now WHERE d.delivery_id = due.delivery_id
       RETURNING ${DELIVERY_COLS.split(', ').map((c) => `d.${c}`).join(', ')}`,
      [n, this.owner, this.leaseMs],
    );
    return r.rows;
  }

  private launch(row: DeliveryRow): void {
    this.inflight.start(row.delivery_id, (signal) => this.deliver(row, signal));
  }

  private async deliver(row: DeliveryRow, signal: AbortSignal): Promise<void> {
    const d = deliveryOf(row);
    const hook = (await this.db.query<{ url: string; secret: string }>(`SELECT url, secret FROM ms_webhooks WHERE webhook_id = $1`, [d.webhook_id])).rows[0];
    if (!hook) return; // deleted meanwhile, with its deliveries
    const event =
      d.event_seq === null
        ? undefined
        : (await this.db.query<{ event_id: string; type: string; data: unknown; created_at: string }>(`SELECT event_id, type, data, created_at FROM ms_events WHERE project_id = $1 AND seq = $2`, [row.project_id, d.event_seq])).rows[0];
    if (!event) {
      await this.record(d, { status: 'FAILED', attempts: d.attempts, retryInMs: null });
      return;
    }
    const attempt = await this.sender.send(hook, d, { event_id: event.event_id, type: event.type, created_at: event.created_at, data: event.data }, signal);
    if (attempt === null) {
      await this.release([d.delivery_id]);
      return;
    }
    const { retryAfterMs: _r, ...recorded } = attempt;
    const verdict = this.sender.verdict(d.attempts.length + 1, attempt);
    const attempts = [...d.attempts, recorded];
    if ('finish' in verdict) await this.record(d, { status: verdict.finish, attempts, retryInMs: null });
    else {
      await this.record(d, { status: 'PENDING', attempts, retryInMs: verdict.retryInMs });
      this.after(Math.min(verdict.retryInMs, this.pollMs));
    }
  }

  /** Hand claimed deliveries back at once (shutting down) rather than at their leases' expiry. */
  private async release(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(`UPDATE ms_deliveries SET lease_owner = NULL, lease_until_ms = NULL WHERE delivery_id = ANY($1::text[]) AND lease_owner = $2`, [ids, this.owner]);
  }

  /** Write an outcome, only while this replica still holds the lease (else another has taken over). */
  private async record(d: Delivery, o: { status: Delivery['status']; attempts: Delivery['attempts']; retryInMs: number | null }): Promise<void> {
    await this.db.query(
      `UPDATE ms_deliveries SET status = $3, attempts = $4::json, next_at_ms = CASE WHEN $5::float8 IS NULL THEN NULL ELSE ${DB_NOW_MS} + $5::float8 END,
         lease_owner = NULL, lease_until_ms = NULL, updated_at = $6
       WHERE delivery_id = $1 AND lease_owner = $2`,
      [d.delivery_id, this.owner, o.status, JSON.stringify(o.attempts), o.retryInMs, new Date().toISOString()],
    );
  }

  /** A signed `webhook.test` POST, recorded among the webhook's deliveries. */
  async test(projectId: string, hook: Webhook): Promise<Delivery> {
    const done = await this.sender.testDelivery(hook, { delivery_id: uuidv7(), event_id: randomUUID() });
    await this.db.query(
      `INSERT INTO ms_deliveries (${DELIVERY_COLS}) VALUES ($1, $2, $3, $4, NULL, $5, $6, $7::json, NULL, $8, $9, true)`,
      [done.delivery_id, projectId, hook.webhook_id, done.event_id, done.type, done.status, JSON.stringify(done.attempts), done.created_at, done.updated_at],
    );
    return done;
  }

  /** Drop each webhook's oldest finished deliveries beyond KEPT_PER_WEBHOOK. */
  private async prune(): Promise<void> {
    await this.db.query(
      `DELETE FROM ms_deliveries WHERE delivery_id IN (
         SELECT delivery_id FROM (
           SELECT delivery_id, row_number() OVER (PARTITION BY webhook_id ORDER BY delivery_id DESC) AS n FROM ms_deliveries WHERE status <> 'PENDING'
         ) kept WHERE n > $1)`,
      [KEPT_PER_WEBHOOK],
    );
  }

  /** Stop: abort attempts in flight (their leases are handed back), stop listening. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.ticking;
    await this.inflight.abortAll();
    await this.unlisten?.();
    await this.sender.close();
  }
}
