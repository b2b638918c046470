/**
 * Retry delays: exponential in the number of consecutive failures, capped, with jitter so that
 * many machines cut off by one outage do not come back in lockstep. A server's Retry-After is a
 * floor, never shortened.
 */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** 0 ≤ x < 1; injected so tests can pin it. @default Math.random */
  random?: () => number;
}

/** Delay before attempt `failures + 1`: half fixed, half random, of min(max, base · 2^(failures-1)). */
export function backoffDelay(failures: number, opts: BackoffOptions, retryAfterMs: number | null = null): number {
  const random = opts.random ?? Math.random;
  const ceiling = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, Math.min(failures - 1, 30)));
  const delay = ceiling / 2 + random() * (ceiling / 2);
  return Math.round(Math.max(delay, retryAfterMs ?? 0));
}
