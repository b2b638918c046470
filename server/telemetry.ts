/**
 * Aggregate counts of the plugin's anonymous telemetry for one project (`telemetry.json`). Only
 * counts are kept: per (event, plugin version, error class) with duration statistics, per runtime
 * (os, arch, Node major), and the number of distinct installs (install ids are kept only as
 * truncated SHA-256 hashes, to count them).
 */
import { createHash } from 'node:crypto';
import { readJson, writeAtomic } from './atomic-file.js';

export interface TelemetryEvent {
  event: string;
  plugin_version: string;
  runtime: { node: string; os: string; arch: string };
  duration_ms?: number | undefined;
  error_class?: string | undefined;
  install_id: string;
}

export interface EventCount {
  event: string;
  plugin_version: string;
  error_class: string | null;
  count: number;
  duration: { count: number; total_ms: number; max_ms: number };
}

export interface RuntimeCount {
  os: string;
  arch: string;
  node_major: number;
  count: number;
}

export interface TelemetryDoc {
  since: string;
  events_total: number;
  installs: string[];
  by_event: Record<string, EventCount>;
  by_runtime: Record<string, RuntimeCount>;
}

/** Distinct installs counted per project; past it the count stops growing (documented). */
export const MAX_INSTALLS = 100_000;
/** Counts reach the disk at most this long after they change. */
const FLUSH_DELAY_MS = 5000;

export class TelemetryStore implements TelemetryCounts {
  private readonly doc: TelemetryDoc;
  private readonly installs: Set<string>;
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly file: string) {
    this.doc = readJson<TelemetryDoc>(file, { since: new Date().toISOString(), events_total: 0, installs: [], by_event: {}, by_runtime: {} });
    this.installs = new Set(this.doc.installs);
  }

  record(events: readonly TelemetryEvent[]): void {
    foldTelemetry(this.doc, this.installs, events, MAX_INSTALLS);
    this.dirty = true;
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_DELAY_MS);
      this.timer.unref();
    }
  }

  summary(): Record<string, unknown> {
    return telemetrySummary(this.doc, this.installs.size);
  }

  /** Persist if anything changed (shortly after a change, and at shutdown). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.dirty) return;
    this.doc.installs = [...this.installs];
    writeAtomic(this.file, JSON.stringify(this.doc));
    this.dirty = false;
  }
}

/** Add a batch to the counts (installs as truncated hashes, while fewer than `maxInstalls`). */
export function foldTelemetry(doc: Omit<TelemetryDoc, 'installs' | 'since'>, installs: Set<string>, events: readonly TelemetryEvent[], maxInstalls: number): void {
  for (const e of events) {
    doc.events_total++;
    const error = e.error_class ?? null;
    const k = JSON.stringify([e.event, e.plugin_version, error]);
    const c = (doc.by_event[k] ??= { event: e.event, plugin_version: e.plugin_version, error_class: error, count: 0, duration: { count: 0, total_ms: 0, max_ms: 0 } });
    c.count++;
    if (e.duration_ms !== undefined) {
      c.duration.count++;
      c.duration.total_ms += e.duration_ms;
      c.duration.max_ms = Math.max(c.duration.max_ms, e.duration_ms);
    }
    const major = Number(/^v?(\d+)/.exec(e.runtime.node)?.[1] ?? 0);
    const rk = JSON.stringify([e.runtime.os, e.runtime.arch, major]);
    const r = (doc.by_runtime[rk] ??= { os: e.runtime.os, arch: e.runtime.arch, node_major: major, count: 0 });
    r.count++;
    if (installs.size < maxInstalls) installs.add(createHash('sha256').update(e.install_id).digest('hex').slice(0, 16));
  }
}

/** The summary `GET /v1/telemetry/summary` shows. */
export function telemetrySummary(doc: Pick<TelemetryDoc, 'since' | 'events_total' | 'by_event' | 'by_runtime'>, installs: number): Record<string, unknown> {
  return {
    since: doc.since,
    events_total: doc.events_total,
    installs,
    by_event: Object.values(doc.by_event)
      .sort((a, b) => b.count - a.count)
      .map((c) => ({
        event: c.event,
        plugin_version: c.plugin_version,
        error_class: c.error_class,
        count: c.count,
        duration_ms: c.duration.count === 0 ? null : { count: c.duration.count, mean: Math.round((c.duration.total_ms / c.duration.count) * 10) / 10, max: c.duration.max_ms },
      })),
    by_runtime: Object.values(doc.by_runtime).sort((a, b) => b.count - a.count),
  };
}

/** A project's telemetry counts: this file (embedded) or PostgreSQL (`PgTelemetryStore`). */
export interface TelemetryCounts {
  record(events: readonly TelemetryEvent[]): void | Promise<void>;
  summary(): Record<string, unknown> | Promise<Record<string, unknown>>;
  flush(): void;
}
