/**
 * One project's export jobs in PostgreSQL (SERVICE_DATABASE_URL): the job in `ms_export_jobs`,
 * its NDJSON in `ms_export_chunks` (no local file), so `GET /v1/exports/:id` and its download
 * answer on every replica.
 *
 * - The replica that accepted the export runs it, writing chunks (with the memory ids each holds)
 *   and a heartbeat as it goes; the download is allowed once the job is SUCCEEDED.
 * - A job whose runner stopped (its heartbeat older than `STALE_MS`) is FAILED by the next replica
 *   that reads it, and its partial content dropped, as the embedded store fails a job a restart
 *   cut off.
 * - Every status change commits with its event (`ExportEvents.record`, in the same transaction):
 *   a job is never seen RUNNING or SUCCEEDED by one replica while the feed lacks the event.
 * - `erase(memoryIds)` removes purged memories from every finished export of the project.
 */
import { uuidv7, type MemoryEngine, type MemoryFilter, type SqlClient, type SqlQueryable } from '../engine/index.js';
import type { ExportJob, ExportJobStore } from '../api/index.js';
import { DB_NOW_MS } from './pg-state.js';

/** A chunk is written once it holds this much (or after CHUNK_MS). */
const CHUNK_BYTES = 256 * 1024;
const CHUNK_MS = 5000;
/** A running export whose heartbeat is older than this has lost its runner. */
export const STALE_MS = 60_000;

const JOB_COLS = 'export_id, status, created_at, started_at, finished_at, count, bytes, error, owner';

interface JobRow extends Omit<ExportJob, 'count' | 'bytes'> {
  count: string | number;
  bytes: string | number;
}

function jobOf(r: JobRow): ExportJob {
  return { export_id: r.export_id, status: r.status, created_at: r.created_at, started_at: r.started_at, finished_at: r.finished_at, count: Number(r.count), bytes: Number(r.bytes), error: r.error, owner: r.owner };
}

/** How a job's status changes reach the project's event feed. */
export interface ExportEvents {
  /** Write the event of the job's new status in `tx`, the transaction that stores that status. */
  record(tx: SqlQueryable, job: ExportJob): Promise<void>;
  /** A status change (and its event) committed. */
  committed(): void;
}

const NO_EVENTS: ExportEvents = { record: async () => {}, committed: () => {} };

export class PgExportJobs implements ExportJobStore {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly db: SqlClient,
    private readonly projectId: string,
    private readonly events: ExportEvents = NO_EVENTS,
  ) {}

  /** Run `change` (which returns the job as changed) and record its event in one transaction. */
  private async changed(change: (tx: SqlQueryable) => Promise<ExportJob | undefined>): Promise<ExportJob | undefined> {
    const job = await this.db.transaction(async (tx) => {
      const j = await change(tx);
      if (j) await this.events.record(tx, { ...j });
      return j;
    });
    if (job) this.events.committed();
    return job;
  }

  async start(engine: MemoryEngine, owner: string, filter: MemoryFilter = {}): Promise<ExportJob> {
    const job = (await this.changed(async (tx) => {
      const r = await tx.query<JobRow>(
        `INSERT INTO ms_export_jobs (export_id, project_id, owner, status, created_at, count, bytes, heartbeat_ms)
         VALUES ($1, $2, $3, 'PENDING', $4, 0, 0, ${DB_NOW_MS}) RETURNING ${JOB_COLS}`,
        [uuidv7(), this.projectId, owner, new Date().toISOString()],
      );
      return jobOf(r.rows[0]!);
    }))!;
    const p = this.run(engine, job, filter)
      .catch(() => {}) // recorded on the job when it can be; else the job goes stale and fails
      .finally(() => this.running.delete(p));
    this.running.add(p);
    return job;
  }

  private async update(job: ExportJob, db: SqlQueryable = this.db): Promise<void> {
    await db.query(
      `UPDATE ms_export_jobs SET status = $2, started_at = $3, finished_at = $4, count = $5, bytes = $6, error = $7, heartbeat_ms = ${DB_NOW_MS}
       WHERE export_id = $1`,
      [job.export_id, job.status, job.started_at, job.finished_at, job.count, job.bytes, job.error],
    );
  }

  private async run(engine: MemoryEngine, job: ExportJob, filter: MemoryFilter): Promise<void> {
    await new Promise((r) => setImmediate(r));
    job.status = 'RUNNING';
    job.started_at = new Date().toISOString();
    await this.changed(async (tx) => {
      await this.update(job, tx);
      return job;
    });
    try {
      let n = 0;
      let buf = '';
      let ids: string[] = [];
      let since = Date.now();
      const flush = async (): Promise<void> => {
        await this.db.query(`INSERT INTO ms_export_chunks (export_id, n, memory_ids, data) VALUES ($1, $2, $3, $4)`, [job.export_id, n++, [...new Set(ids)], buf]);
        job.bytes += Buffer.byteLength(buf);
        buf = '';
        ids = [];
        since = Date.now();
        await this.update(job); // count, bytes and the heartbeat
      };
      for await (const line of engine.exportLines(filter)) {
        buf += JSON.stringify(line) + '\n';
        ids.push(line.memory_id);
        job.count++;
        if (buf.length >= CHUNK_BYTES || Date.now() - since >= CHUNK_MS) await flush();
      }
      if (buf) await flush();
      job.status = 'SUCCEEDED';
    } catch (err) {
      job.status = 'FAILED';
      job.error = err instanceof Error ? err.message : String(err);
    }
    job.finished_at = new Date().toISOString();
    await this.changed(async (tx) => {
      if (job.status === 'FAILED') await tx.query(`DELETE FROM ms_export_chunks WHERE export_id = $1`, [job.export_id]);
      await this.update(job, tx);
      return job;
    });
  }

  async get(id: string): Promise<ExportJob | undefined> {
    const r = await this.db.query<JobRow & { stale: boolean }>(
      `SELECT ${JOB_COLS}, (status IN ('PENDING', 'RUNNING') AND heartbeat_ms < ${DB_NOW_MS} - $3) AS stale FROM ms_export_jobs WHERE project_id = $1 AND export_id = $2`,
      [this.projectId, id, STALE_MS],
    );
    const row = r.rows[0];
    if (!row) return undefined;
    if (!row.stale) return jobOf(row);
    // Its runner stopped: fail it (once, whichever replica gets here first) and drop the partial content.
    const failed = await this.changed(async (tx) => {
      const u = await tx.query<JobRow>(
        `UPDATE ms_export_jobs SET status = 'FAILED', error = 'interrupted: the server running it stopped; start a new export', finished_at = $2
         WHERE export_id = $1 AND status IN ('PENDING', 'RUNNING') AND heartbeat_ms < ${DB_NOW_MS} - $3 RETURNING ${JOB_COLS}`,
        [id, new Date().toISOString(), STALE_MS],
      );
      if (u.rows[0]) await tx.query(`DELETE FROM ms_export_chunks WHERE export_id = $1`, [id]);
      return u.rows[0] ? jobOf(u.rows[0]) : undefined;
    });
    return failed ?? this.get(id);
  }

  /** The chunks in order, read a few at a time. */
  async *content(id: string): AsyncGenerator<string> {
    for (let n = 0; ; ) {
      const r = await this.db.query<{ n: number; data: string }>(`SELECT n, data FROM ms_export_chunks WHERE export_id = $1 AND n >= $2 ORDER BY n LIMIT 8`, [id, n]);
      for (const row of r.rows) yield row.data;
      if (r.rows.length < 8) return;
      n = r.rows[r.rows.length - 1]!.n + 1;
    }
  }

  /**
   * Remove the lines of these memories from every export of the project (purge): the chunks
   * holding them are rewritten, and each job's count and bytes follow. Returns the lines removed.
   */
  async erase(memoryIds: readonly string[]): Promise<number> {
    if (memoryIds.length === 0) return 0;
    const gone = new Set(memoryIds);
    return this.db.transaction(async (tx) => {
      const r = await tx.query<{ export_id: string; n: number; data: string }>(
        `SELECT c.export_id, c.n, c.data FROM ms_export_chunks c JOIN ms_export_jobs j USING (export_id)
         WHERE j.project_id = $1 AND c.memory_ids && $2::text[] FOR UPDATE OF c, j`,
        [this.projectId, [...gone]],
      );
      let removed = 0;
      for (const c of r.rows) {
        const lines = c.data.split('\n').filter((l) => l !== '');
        const kept = lines.filter((l) => !gone.has((JSON.parse(l) as { memory_id: string }).memory_id));
        const data = kept.map((l) => l + '\n').join('');
        removed += lines.length - kept.length;
        await tx.query(`UPDATE ms_export_chunks SET data = $3, memory_ids = $4 WHERE export_id = $1 AND n = $2`, [
          c.export_id,
          c.n,
          data,
          [...new Set(kept.map((l) => (JSON.parse(l) as { memory_id: string }).memory_id))],
        ]);
        await tx.query(`UPDATE ms_export_jobs SET count = count - $2, bytes = bytes - $3 WHERE export_id = $1`, [c.export_id, lines.length - kept.length, Buffer.byteLength(c.data) - Buffer.byteLength(data)]);
      }
      return removed;
    });
  }

  async idle(): Promise<void> {
    await Promise.all([...this.running]);
  }
}
