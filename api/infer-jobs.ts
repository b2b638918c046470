/**
 * Queued `infer` adds (`POST /v1/memories` with `infer: true, async: true`): the request is kept
 * on disk and answered 202 at once; jobs run one at a time per host and move
 * PENDING → RUNNING → SUCCEEDED (with results) | FAILED (with the error), each change reported to
 * the listener (the server turns them into events). A job cut off by a restart runs again:
 * consolidation makes a second run write nothing twice.
 *
 * A purge reaches the jobs too (`erase`): a job's results that name a purged memory keep only
 * `{memory_id, purged: true}`, on disk and in what `GET /v1/jobs/:id` shows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { uuidv7 } from '../engine/index.js';
import type { JobStatus } from './export-jobs.js';

export interface InferJob<I = unknown, R = unknown> {
  job_id: string;
  status: JobStatus;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Who asked (a key's principal); only they see it. */
  owner: string;
  results: R | null;
  error: string | null;
  /** The request, kept until the job has run. */
  input: I | null;
}

export type InferRunner<I, R> = (input: I, owner: string) => Promise<R>;

/** Where queued infer adds live: `InferJobs` (files) or the server's PostgreSQL store. */
export interface InferJobStore<I = unknown, R = unknown> {
  /** Keep the request and queue it; returns the PENDING job. */
  start(input: I, owner: string): InferJob<I, R> | Promise<InferJob<I, R>>;
  get(id: string): InferJob<I, R> | undefined | Promise<InferJob<I, R> | undefined>;
  /** Resolves once every job this process runs has finished. */
  idle(): Promise<void>;
  /** Take these (purged) memories out of the jobs' results; returns the ids of the jobs changed. */
  erase(memoryIds: readonly string[]): Promise<string[]>;
}

export class InferJobs<I = unknown, R = unknown> implements InferJobStore<I, R> {
  private readonly jobs = new Map<string, InferJob<I, R>>();
  private chain: Promise<unknown> = Promise.resolve();
  /** Memories purged while this process runs: a job finishing later never records them. */
  private readonly erased = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly runner: InferRunner<I, R>,
    private readonly listener: (job: InferJob<I, R>) => void = () => {},
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const unfinished: InferJob<I, R>[] = [];
    for (const f of fs.readdirSync(dir).sort()) {
      if (!f.endsWith('.json')) continue;
      try {
        const job = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as InferJob<I, R>;
        this.jobs.set(job.job_id, job);
        if (job.status === 'PENDING' || job.status === 'RUNNING') unfinished.push(job);
      } catch {
        // a torn job file from a crash before it was acknowledged
      }
    }
    for (const job of unfinished) this.enqueue(job);
  }

  /** Keep the request and queue it; returns the PENDING job. */
  start(input: I, owner: string): InferJob<I, R> {
    const job: InferJob<I, R> = { job_id: uuidv7(), status: 'PENDING', created_at: new Date().toISOString(), started_at: null, finished_at: null, owner, results: null, error: null, input };
    this.jobs.set(job.job_id, job);
    this.save(job);
    this.listener(this.view(job));
    this.enqueue(job);
    return this.view(job);
  }

  get(id: string): InferJob<I, R> | undefined {
    const j = this.jobs.get(id);
    return j ? this.view(j) : undefined;
  }

  /** Resolves once every queued job has finished. */
  async idle(): Promise<void> {
    let last: Promise<unknown> | null = null;
    while (last !== this.chain) {
      last = this.chain;
      await last.catch(() => {});
    }
  }

  private enqueue(job: InferJob<I, R>): void {
    this.chain = this.chain.then(() => this.run(job)).catch(() => {});
  }

  private async run(job: InferJob<I, R>): Promise<void> {
    job.status = 'RUNNING';
    job.started_at = new Date().toISOString();
    this.save(job);
    this.listener(this.view(job));
    try {
      job.results = await this.runner(job.input as I, job.owner);
      if (this.erased.size > 0) eraseResults(job, this.erased);
      job.status = 'SUCCEEDED';
    } catch (err) {
      job.status = 'FAILED';
      job.error = err instanceof Error ? err.message : String(err);
    }
    job.finished_at = new Date().toISOString();
    job.input = null;
    this.save(job);
    this.listener(this.view(job));
  }

  /**
   * Erase these (purged) memories from every job's results, on disk too. Returns the ids of the
   * jobs changed (their `infer.succeeded` events carry the same results and must be redacted).
   * The one erasure method of infer job stores (the PostgreSQL one too).
   */
  async erase(memoryIds: readonly string[]): Promise<string[]> {
    const ids = new Set(memoryIds);
    for (const id of ids) this.erased.add(id);
    const changed: string[] = [];
    for (const job of this.jobs.values()) {
      if (!eraseResults(job, ids)) continue;
      this.save(job);
      changed.push(job.job_id);
    }
    return changed;
  }

  /** A job as shown: never the stored request (it may hold text the caller would not echo). */
  private view(job: InferJob<I, R>): InferJob<I, R> {
    return { ...job, input: null };
  }

  private save(job: InferJob<I, R>): void {
    const f = path.join(this.dir, `${job.job_id}.json`);
    const fd = fs.openSync(`${f}.tmp`, 'w', 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(job));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(`${f}.tmp`, f);
  }
}

/** Replace the results naming these memories with `{memory_id, purged: true}`; true if any did. */
function eraseResults(job: InferJob<unknown, unknown>, ids: ReadonlySet<string>): boolean {
  if (!Array.isArray(job.results)) return false;
  let changed = false;
  job.results = job.results.map((r: unknown) => {
    const id = typeof r === 'object' && r !== null ? (r as { memory_id?: unknown }).memory_id : undefined;
    if (typeof id !== 'string' || !ids.has(id) || (r as { purged?: unknown }).purged === true) return r;
    changed = true;
    return { memory_id: id, purged: true };
  });
  return changed;
}
