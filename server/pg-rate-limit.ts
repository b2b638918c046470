/**
 * The per-key token bucket of RateLimiter, kept in PostgreSQL so every replica draws from one
 * bucket: one UPSERT per request refills by the database clock and takes a token when there is one.
 */
import type { RequestHandler } from 'express';
import type { SqlClient } from '../engine/index.js';
import { callerOfRes } from './auth.js';
import { DB_NOW_MS } from './pg-state.js';
import { RateLimiter } from './rate-limit.js';

export class PgRateLimiter extends RateLimiter {
  constructor(
    private readonly db: SqlClient,
    perMinute: number,
  ) {
    super(perMinute);
  }

  /** Take a token from the shared bucket of `id`. */
  async takeShared(id: string): Promise<{ retryAfter: number; remaining: number }> {
    const perMs = this.perMinute / 60_000;
    const r = await this.db.query<{ tokens: number; allowed: boolean }>(
      `WITH now AS (SELECT ${DB_NOW_MS} AS t)
       INSERT INTO ms_rate_buckets AS b (key_id, tokens, at_ms, allowed) SELECT $1, $2::float8 - 1, now.t, true FROM now
       ON CONFLICT (key_id) DO UPDATE SET
         tokens = LEAST($2::float8, b.tokens + (excluded.at_ms - b.at_ms) * $3::float8) - CASE WHEN LEAST($2::float8, b.tokens + (excluded.at_ms - b.at_ms) * $3::float8) >= 1 THEN 1 ELSE 0 END,
         allowed = LEAST($2::float8, b.tokens + (excluded.at_ms - b.at_ms) * $3::float8) >= 1,
         at_ms = excluded.at_ms
       RETURNING tokens, allowed`,
      [id, this.perMinute, perMs],
    );
    const { tokens, allowed } = r.rows[0]!;
    if (allowed) return { retryAfter: 0, remaining: Math.floor(Number(tokens)) };
    return { retryAfter: Math.max(1, Math.ceil((1 - Number(tokens)) / perMs / 1000)), remaining: 0 };
  }

  override middleware(): RequestHandler {
    return (_req, res, next) => {
      const { key } = callerOfRes(res);
      this.takeShared(key.key_id).then((r) => this.answer(res, next, r), next);
    };
  }
}
