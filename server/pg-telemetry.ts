/**
 * One project's telemetry counts in PostgreSQL (SERVICE_DATABASE_URL), shared by every replica:
 * a batch is folded in memory (the embedded store's own fold) and added to the counts in one
 * transaction of increments, so batches taken by different replicas at once all count.
 */
import type { SqlClient } from '../engine/index.js';
import { foldTelemetry, MAX_INSTALLS, telemetrySummary, type EventCount, type RuntimeCount, type TelemetryCounts, type TelemetryDoc, type TelemetryEvent } from './telemetry.js';

export class PgTelemetryStore implements TelemetryCounts {
  constructor(
    private readonly db: SqlClient,
    private readonly projectId: string,
  ) {}

  async record(events: readonly TelemetryEvent[]): Promise<void> {
    const batch: Omit<TelemetryDoc, 'installs' | 'since'> = { events_total: 0, by_event: {}, by_runtime: {} };
    const installs = new Set<string>();
    foldTelemetry(batch, installs, events, MAX_INSTALLS);
    const ev = Object.values(batch.by_event);
    const rt = Object.values(batch.by_runtime);
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO ms_telemetry (project_id, since, events_total) VALUES ($1, $2, $3)
         ON CONFLICT (project_id) DO UPDATE SET events_total = ms_telemetry.events_total + excluded.events_total`,
        [this.projectId, new Date().toISOString(), batch.events_total],
      );
      await tx.query(
        `INSERT INTO ms_telemetry_events AS t (project_id, event, plugin_version, error_class, count, dur_count, dur_total_ms, dur_max_ms)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::float8[], $8::float8[])
         ON CONFLICT (project_id, event, plugin_version, error_class) DO UPDATE SET
           count = t.count + excluded.count, dur_count = t.dur_count + excluded.dur_count,
           dur_total_ms = t.dur_total_ms + excluded.dur_total_ms, dur_max_ms = GREATEST(t.dur_max_ms, excluded.dur_max_ms)`,
        [this.projectId, ev.map((c) => c.event), ev.map((c) => c.plugin_version), ev.map((c) => c.error_class ?? ''), ev.map((c) => c.count), ev.map((c) => c.duration.count), ev.map((c) => c.duration.total_ms), ev.map((c) => c.duration.max_ms)],
      );
      await tx.query(
        `INSERT INTO ms_telemetry_runtimes AS t (project_id, os, arch, node_major, count)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[], $5::bigint[])
         ON CONFLICT (project_id, os, arch, node_major) DO UPDATE SET count = t.count + excluded.count`,
        [this.projectId, rt.map((r) => r.os), rt.map((r) => r.arch), rt.map((r) => r.node_major), rt.map((r) => r.count)],
      );
      // Past MAX_INSTALLS the count stops growing, as on the embedded backend.
      await tx.query(
        `INSERT INTO ms_telemetry_installs (project_id, hash)
         SELECT $1, h FROM unnest($2::text[]) AS h WHERE (SELECT count(*) FROM ms_telemetry_installs WHERE project_id = $1) < $3
         ON CONFLICT DO NOTHING`,
        [this.projectId, [...installs], MAX_INSTALLS],
      );
    });
  }

  async summary(): Promise<Record<string, unknown>> {
    const [head, ev, rt, inst] = await Promise.all([
      this.db.query<{ since: string; events_total: number }>(`SELECT since, events_total FROM ms_telemetry WHERE project_id = $1`, [this.projectId]),
      this.db.query<{ event: string; plugin_version: string; error_class: string; count: number; dur_count: number; dur_total_ms: number; dur_max_ms: number }>(
        `SELECT event, plugin_version, error_class, count, dur_count, dur_total_ms, dur_max_ms FROM ms_telemetry_events WHERE project_id = $1`,
        [this.projectId],
      ),
      this.db.query<RuntimeCount>(`SELECT os, arch, node_major, count FROM ms_telemetry_runtimes WHERE project_id = $1`, [this.projectId]),
      this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ms_telemetry_installs WHERE project_id = $1`, [this.projectId]),
    ]);
    const by_event: Record<string, EventCount> = {};
    for (const r of ev.rows) {
      by_event[JSON.stringify([r.event, r.plugin_version, r.error_class])] = {
        event: r.event,
        plugin_version: r.plugin_version,
        error_class: r.error_class === '' ? null : r.error_class,
        count: r.count,
        duration: { count: r.dur_count, total_ms: r.dur_total_ms, max_ms: r.dur_max_ms },
      };
    }
    const by_runtime: Record<string, RuntimeCount> = {};
    for (const r of rt.rows) by_runtime[JSON.stringify([r.os, r.arch, r.node_major])] = { os: r.os, arch: r.arch, node_major: r.node_major, count: r.count };
    const h = head.rows[0];
    return telemetrySummary({ since: h?.since ?? new Date().toISOString(), events_total: h?.events_total ?? 0, by_event, by_runtime }, inst.rows[0]?.n ?? 0);
  }

  flush(): void {
    // Every batch is committed before POST /v1/telemetry answers.
  }
}
