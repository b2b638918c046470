/**
 * One project's queued `infer` adds in PostgreSQL (SERVICE_DATABASE_URL): `GET /v1/jobs/:id`
 * answers on every replica.
 *
 * - The replica that accepted a job runs it (one at a time per replica and project), holding a
 *   lease it renews while the job runs. A job whose lease expired (its replica died) is claimed
 *   by a replica that has the project open (checked at open and every RECOVER_EVERY_MS) and run
 *   again, as a restart reruns it on the embedded backend: consolidation makes a second run
 *   write nothing twice.
 * - The stored request is dropped once the job has run; `erase(memoryIds)` removes purged
 *   memories from the results of finished jobs.
 */
import { randomUUID } from 'node:crypto';
import { uuidv7, type Logger, type SqlClient } from '../engine/index.js';
import type { InferJob, InferJobStore } from '../api/index.js';
import { DB_NOW_MS } from './pg-state.js';

/** How long a job's lease lasts without renewal; renewed every third of it while the job runs. */
const LEASE_MS = 60_000;
const RECOVER_EVERY_MS = 30_000;

const JOB_COLS = 'job_id, status, created_at, started_at, finished_at, owner, results, error';

type Row<I, R> = Omit<InferJob<I, R>, 'input'> & { input?: I | null };

export class PgInferJobs<I, R extends readonly { memory_id: string }[]> implements InferJobStore<I, R> {
  private readonly me = randomUUID();
  private chain: Promise<unknown> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly db: SqlClient,
    private readonly projectId: string,
    private readonly runner: (input: I, owner: string) => Promise<R>,
    private readonly listener: (job: InferJob<I, R>) => void,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => this.recover(), RECOVER_EVERY_MS);
    this.timer.unref();
    this.recover();
  }

  async start(input: I, owner: string): Promise<InferJob<I, R>> {
    const r = await this.db.query<Row<I, R>>(
      `INSERT INTO ms_infer_jobs (job_id, project_id, owner, status, created_at, input, lease_owner, lease_until_ms)
       VALUES ($1, $2, $3, 'PENDING', $4, $5::json, $6, ${DB_NOW_MS} + $7) RETURNING ${JOB_COLS}, input`,
      [uuidv7(), this.projectId, owner, new Date().toISOString(), JSON.stringify(input), this.me, LEASE_MS],
    );
    const job = r.rows[0]!;
    this.listener(view(job));
    this.enqueue(job);
    return view(job);
  }

  async get(id: string): Promise<InferJob<I, R> | undefined> {
    const r = await this.db.query<Row<I, R>>(`SELECT ${JOB_COLS} FROM ms_infer_jobs WHERE project_id = $1 AND job_id = $2`, [this.projectId, id]);
    return r.rows[0] ? view(r.rows[0]) : undefined;
  }

  /** Claim the unfinished jobs of the project whose replica stopped renewing their lease, and run them. */
  private recover(): void {
    if (this.closed) return;
    this.db
      .query<Row<I, R>>(
        `UPDATE ms_infer_jobs SET lease_owner = $2, lease_until_ms = ${DB_NOW_MS} + $3
         WHERE job_id IN (SELECT job_id FROM ms_infer_jobs WHERE project_id = $1 AND status IN ('PENDING', 'RUNNING') AND lease_until_ms < ${DB_NOW_MS} ORDER BY job_id FOR UPDATE SKIP LOCKED)
         RETURNING ${JOB_COLS}, input`,
        [this.projectId, this.me, LEASE_MS],
      )
      .then((r) => {
        for (const job of r.rows.sort((a, b) => (a.job_id < b.job_id ? -1 : 1))) this.enqueue(job);
      })
      .catch((err: unknown) => this.logger.warn('could not look for interrupted infer jobs', { err }));
  }

  private enqueue(job: Row<I, R>): void {
    this.chain = this.chain.then(() => this.run(job)).catch((err: unknown) => this.logger.error('an infer job could not be recorded', { err, job_id: job.job_id }));
  }

  private async run(job: Row<I, R>): Promise<void> {
    const mine = `job_id = $1 AND lease_owner = $2`;
    const renew = setInterval(() => {
      void this.db.query(`UPDATE ms_infer_jobs SET lease_until_ms = ${DB_NOW_MS} + $3 WHERE ${mine}`, [job.job_id, this.me, LEASE_MS]).catch(() => {});
    }, LEASE_MS / 3);
    renew.unref();
    try {
      const started = await this.db.query<Row<I, R>>(`UPDATE ms_infer_jobs SET status = 'RUNNING', started_at = $3 WHERE ${mine} RETURNING ${JOB_COLS}`, [job.job_id, this.me, new Date().toISOString()]);
      if (!started.rows[0]) return; // another replica took it over
      this.listener(view(started.rows[0]));
      let results: R | null = null;
      let error: string | null = null;
      try {
        results = await this.runner(job.input as I, job.owner);
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      }
      const done = await this.db.query<Row<I, R>>(
        `UPDATE ms_infer_jobs SET status = $3, results = $4::json, error = $5, finished_at = $6, input = NULL, lease_owner = NULL, lease_until_ms = NULL
         WHERE ${mine} RETURNING ${JOB_COLS}`,
        [job.job_id, this.me, error === null ? 'SUCCEEDED' : 'FAILED', results === null ? null : JSON.stringify(results), error, new Date().toISOString()],
      );
      if (done.rows[0]) this.listener(view(done.rows[0]));
    } finally {
      clearInterval(renew);
    }
  }

  /** Remove these memories from the results of the project's jobs (purge). Returns the ids of the jobs changed. */
  async erase(memoryIds: readonly string[]): Promise<string[]> {
    if (memoryIds.length === 0) return [];
    const gone = new Set(memoryIds);
    return this.db.transaction(async (tx) => {
      const r = await tx.query<{ job_id: string; results: R }>(
        `SELECT job_id, results FROM ms_infer_jobs WHERE project_id = $1 AND results IS NOT NULL AND EXISTS (SELECT 1 FROM json_array_elements(results) x WHERE x->>'memory_id' = ANY($2::text[])) FOR UPDATE`,
        [this.projectId, [...gone]],
      );
      for (const row of r.rows) {
        await tx.query(`UPDATE ms_infer_jobs SET results = $2::json WHERE job_id = $1`, [row.job_id, JSON.stringify(row.results.filter((x) => !gone.has(x.memory_id)))]);
      }
      return r.rows.map((row) => row.job_id);
    });
  }

  async idle(): Promise<void> {
    let last: Promise<unknown> | null = null;
    while (last !== this.chain) {
      last = this.chain;
      await last.catch(() => {});
    }
  }

  /** Stop looking for interrupted jobs and wait for the queued ones. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.idle();
  }
}

/** A job as shown: never the stored request. */
function view<I, R>(job: Row<I, R>): InferJob<I, R> {
  return { job_id: job.job_id, status: job.status, created_at: job.created_at, started_at: job.started_at, finished_at: job.finished_at, owner: job.owner, results: job.results, error: job.error, input: null };
}
