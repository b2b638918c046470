/**
 * Per-key token bucket. Each key holds up to `perMinute` tokens (a minute's worth of burst) and
 * regains `perMinute / 60` per second; a request takes one. An empty bucket answers 429 with
 * Retry-After (whole seconds until the next token) and the error body.
 */
import type { NextFunction, RequestHandler, Response } from 'express';
import { HttpError } from '../api/index.js';
import { callerOfRes } from './auth.js';

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets idle this long are full again and can be forgotten. */
const IDLE_MS = 120_000;
const SWEEP_EVERY = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private calls = 0;

  constructor(
    protected readonly perMinute: number,
    /** A monotonic clock: a wall-clock step (NTP, a VM resume) must not refill or drain buckets. */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.perMs = perMinute / 60_000;
  }

  /** Take a token for `id`: 0 when allowed, else the seconds to wait. */
  take(id: string): { retryAfter: number; remaining: number } {
    const t = this.now();
    if (++this.calls % SWEEP_EVERY === 0) this.sweep(t);
    let b = this.buckets.get(id);
    if (!b) {
      b = { tokens: this.perMinute, at: t };
      this.buckets.set(id, b);
    }
    b.tokens = Math.min(this.perMinute, b.tokens + Math.max(0, t - b.at) * this.perMs);
    b.at = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { retryAfter: 0, remaining: Math.floor(b.tokens) };
    }
    return { retryAfter: Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000)), remaining: 0 };
  }

  private sweep(t: number): void {
    for (const [id, b] of this.buckets) if (t - b.at > IDLE_MS) this.buckets.delete(id);
  }

  middleware(): RequestHandler {
    return (_req, res, next) => {
      const { key } = callerOfRes(res);
      this.answer(res, next, this.take(key.key_id));
    };
  }

  /** Set the RateLimit headers and pass the request on, or refuse it with 429. */
  protected answer(res: Response, next: NextFunction, r: { retryAfter: number; remaining: number }): void {
    res.setHeader('RateLimit-Limit', String(this.perMinute));
    res.setHeader('RateLimit-Remaining', String(r.remaining));
    if (r.retryAfter > 0) {
      next(new HttpError(429, 'RATE_LIMITED', `this key exceeded ${this.perMinute} requests per minute; retry in ${r.retryAfter} s`, { limit_per_minute: this.perMinute, retry_after_s: r.retryAfter }, r.retryAfter));
      return;
    }
    next();
  }
}
