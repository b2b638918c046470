/**
 * HTTP load for the server benchmarks: closed loop from autocannon, constant rate (open loop) from
 * loadtest, each run summed up as one row of a results table.
 */
import autocannon from 'autocannon';
import { loadTest, type LoadTestOptions, type LoadTestResult } from 'loadtest';

export interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  /** What the errors were: requests past autocannon's 10 s timeout (counted in its errors), non-2xx answers, other connection errors. */
  errorKinds: string;
}

/** The runs' defaults: seconds per run and autocannon's connections. */
export interface LoadSettings {
  duration: number;
  connections: number;
}

/** `load` (autocannon, closed loop) and `fixedRate` (loadtest, open loop) with these defaults. */
export function loadRunners(settings: LoadSettings) {
  async function load(name: string, url: string, key: string, path_: string, body: () => string, opts: { overallRate?: number; connections?: number } = {}): Promise<Row> {
    const result = await autocannon({
      url: url + path_,
      method: 'POST',
      connections: opts.connections ?? settings.connections,
      duration: settings.duration,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      requests: [{ setupRequest: (req) => ({ ...req, body: body() }) }],
      ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
    });
    return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total, errors: result.errors + result.non2xx, errorKinds: errorKinds(result) };
  }

  /**
   * Requests at a constant rate, open loop (loadtest's requestsPerSecond: one request every
   * 1000/rate ms whatever the answers, a new connection when none is free), latency from each
   * request's send. autocannon's `overallRate` is not that: each connection sends back to back until
   * it has made its share of the second, then waits for the next second, so every second starts with
   * a burst of up to `connections` requests, and its latency histogram adds corrected values for a
   * 1 ms expected interval.
   */
  async function fixedRate(name: string, url: string, key: string, path_: string, rate: number, body: () => string, seconds = settings.duration): Promise<Row> {
    // Without a callback loadtest returns a promise (its typings only describe the callback form).
    const run = loadTest as unknown as (options: LoadTestOptions) => Promise<LoadTestResult & { effectiveRps: number }>;
    const r = await run({
      url: url + path_,
      method: 'POST',
      requestsPerSecond: rate,
      maxSeconds: seconds,
      headers: { authorization: `Bearer ${key}` },
      contentType: 'application/json',
      // loadtest calls a function body once per request (its typings only list string and object).
      body: body as unknown as string,
      agentKeepAlive: true,
      quiet: true,
    });
    const statuses = Object.entries(r.errorCodes ?? {}).map(([code, n]) => `${n}× ${code}`);
    return { name, rps: r.effectiveRps, p50: r.percentiles[50] ?? NaN, p99: r.percentiles[99] ?? NaN, requests: r.totalRequests, errors: r.totalErrors, errorKinds: statuses.length > 0 ? ` (${statuses.join(', ')})` : '' };
  }

  return { load, fixedRate };
}

function errorKinds(r: { errors: number; timeouts: number; non2xx: number; statusCodeStats?: Partial<Record<string, { count?: number }>> }): string {
  const statuses = Object.entries(r.statusCodeStats ?? {})
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, s]) => `${s?.count ?? 0}× ${code}`);
  const parts = [...(r.timeouts > 0 ? [`${r.timeouts} timed out`] : []), ...statuses, ...(r.errors - r.timeouts > 0 ? [`${r.errors - r.timeouts} connection errors`] : [])];
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** Runs against several replicas at once as one row: throughput and counts added, latency of the worse. */
export function combined(name: string, parts: readonly Row[]): Row {
  return {
    name: `${name}; p99 per replica ${parts.map((r) => r.p99).join(' / ')} ms`,
    rps: parts.reduce((n, r) => n + r.rps, 0),
    p50: Math.max(...parts.map((r) => r.p50)),
    p99: Math.max(...parts.map((r) => r.p99)),
    requests: parts.reduce((n, r) => n + r.requests, 0),
    errors: parts.reduce((n, r) => n + r.errors, 0),
    errorKinds: parts.map((r) => r.errorKinds).join(''),
  };
}
