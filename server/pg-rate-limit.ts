/**
 * The per-key token bucket of RateLimiter, kept in PostgreSQL so every replica draws from one
 * bucket: one UPSERT per request refills by the database clock and takes a token when there is one
 * (the request's one statement before its route: `pgRequestGate`).
 */
import type { NextFunction, Response } from 'express';
import { storeChangesSql, type SqlClient } from '../engine/index.js';
import { DB_NOW_MS } from './pg-state.js';
import { TENANCY_VERSION_SQL } from './pg-tenancy.js';
import { RateLimiter } from './rate-limit.js';

export interface SharedTake {
  retryAfter: number;
  remaining: number;
  /** The tenancy document's version in the database when the token was taken. */
  tenancyVersion: number | null;
  /** The project's store change number then (null: no such store yet). */
  storeChange: number | null;
}

interface Waiter {
  projectId: string;
  resolve: (t: SharedTake) => void;
  reject: (err: unknown) => void;
}

interface QueuedKey {
  waiters: Waiter[];
}

interface TakeRow {
  key_id: string;
  tokens: number;
  granted: number;
  tenancy_version: number | null;
  store_changes: Record<string, number> | null;
}

export class PgRateLimiter extends RateLimiter {
  /** Requests waiting for the next statement, by key. */
  private queued = new Map<string, QueuedKey>();
  private running = false;

  constructor(
    private readonly db: SqlClient,
    perMinute: number,
  ) {
    super(perMinute);
  }

  /**
   * Take a token from the shared bucket of `id`. The statement that takes it also reads the
   * tenancy document's version and how far the project `projectId`'s store is
   * (`storeChangesSql`): with them a request needs no other statement before its route
   * (`pgRequestGate`). Requests that arrive while a statement runs go together in the next one,
   * all keys at once, each key's tokens taken in arrival order: under load a replica sends a few
   * statements, not one per request queued on the bucket's row lock.
   */
  takeShared(id: string, projectId = ''): Promise<SharedTake> {
    return new Promise((resolve, reject) => {
      let key = this.queued.get(id);
      if (!key) this.queued.set(id, (key = { waiters: [] }));
      key.waiters.push({ projectId, resolve, reject });
      if (!this.running) {
        this.running = true;
        // The requests of this turn of the event loop go in the first statement.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queued.size > 0) {
      const batch = this.queued;
      this.queued = new Map();
      try {
        this.settle(batch, await this.takeAll(batch));
      } catch (err) {
        for (const k of batch.values()) for (const w of k.waiters) w.reject(err);
      }
    }
    this.running = false;
  }

  /** One statement: every key's tokens (as many as it has waiters), the tenancy version, the stores' change numbers. */
  private async takeAll(batch: Map<string, QueuedKey>): Promise<TakeRow[]> {
    const ids = [...batch.keys()];
    const projects = [...new Set([...batch.values()].flatMap((k) => k.waiters.map((w) => w.projectId)))];
    const refill = `LEAST($3::float8, b.tokens + (excluded.at_ms - b.at_ms) * $4::float8)`;
    // A new row holds the full bucket less what it grants; a row that exists is asked for as many
    // tokens as the new row would have granted (P - excluded.tokens: how many waiters, at most P).
    const want = `round($3::float8 - excluded.tokens)`;
    const granted = `LEAST(${want}, floor(${refill}))`;
    const r = await this.db.query<TakeRow>(
      `WITH now AS (SELECT ${DB_NOW_MS} AS t),
            b AS (INSERT INTO ms_rate_buckets AS b (key_id, tokens, at_ms, allowed, granted)
                  SELECT w.key_id, $3::float8 - LEAST(w.n, floor($3::float8)), now.t, LEAST(w.n, floor($3::float8)) >= 1, LEAST(w.n, floor($3::float8))::int
                  FROM unnest($1::text[], $2::int[]) AS w(key_id, n) CROSS JOIN now
                  ON CONFLICT (key_id) DO UPDATE SET
                    tokens = ${refill} - ${granted},
                    granted = ${granted}::int,
                    allowed = ${granted} >= 1,
                    at_ms = excluded.at_ms
                  RETURNING key_id, tokens, granted)
       SELECT b.key_id, b.tokens, b.granted, ${TENANCY_VERSION_SQL} AS tenancy_version,
              ${storeChangesSql('$5')} AS store_changes
       FROM b`,
      [ids, ids.map((id) => batch.get(id)!.waiters.length), this.perMinute, this.perMinute / 60_000, projects],
    );
    return r.rows;
  }

  private settle(batch: Map<string, QueuedKey>, rows: readonly TakeRow[]): void {
    const perMs = this.perMinute / 60_000;
    for (const row of rows) {
      const key = batch.get(row.key_id);
      if (!key) continue;
      batch.delete(row.key_id);
      const tokens = Number(row.tokens);
      const granted = Number(row.granted);
      const changes = (row.store_changes ?? {}) as Record<string, number>;
      key.waiters.forEach((w, i) => {
        const change = changes[w.projectId];
        const seen = { tenancyVersion: row.tenancy_version === null ? null : Number(row.tenancy_version), storeChange: change === undefined || change === null ? null : Number(change) };
        // In arrival order: the first `granted` are allowed (each sees what was left after its own token).
        if (i < granted) w.resolve({ retryAfter: 0, remaining: Math.floor(tokens + (granted - 1 - i)), ...seen });
        else w.resolve({ retryAfter: Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)), remaining: 0, ...seen });
      });
    }
    for (const k of batch.values()) for (const w of k.waiters) w.reject(new Error('the rate-limit statement returned no row for a key'));
  }

  /** Set the RateLimit headers and pass the request on, or refuse it with 429. */
  respond(res: Response, next: NextFunction, r: { retryAfter: number; remaining: number }): void {
    this.answer(res, next, r);
  }
}
