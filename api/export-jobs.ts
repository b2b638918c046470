/**
 * Export jobs: `POST /v1/exports` starts one, `GET /v1/exports/:id` reports its status
 * (PENDING → RUNNING → SUCCEEDED | FAILED) and `…/download` streams the NDJSON file. Jobs and
 * files live in one directory, so they survive restarts; a job cut off by a restart is FAILED.
 */
import fs from 'node:fs';
import path from 'node:path';
import { uuidv7, type MemoryEngine, type MemoryFilter } from '../engine/index.js';

export type JobStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';

export interface ExportJob {
  export_id: string;
  status: JobStatus;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Version lines written. */
  count: number;
  bytes: number;
  error: string | null;
  /** Who asked for it (a key's principal); only they may read it. */
  owner: string;
}

export type JobListener = (job: ExportJob) => void;

/** A finished export older than this is deleted whatever `keep` says: it is a snapshot, and a stale one. */
export const EXPORT_MAX_AGE_MS = 7 * 24 * 3600_000;

/** Without one (the server: clients fetch exports by id when they like), nothing is deleted. */
export interface ExportRetention {
  /** Finished exports kept (the newest; at least 1, the one just made); older ones are deleted. */
  keep: number;
  /** Finished exports older than this are deleted. @default EXPORT_MAX_AGE_MS */
  maxAgeMs?: number;
  /** @default Date.now */
  now?: () => number;
}

export class ExportJobs {
  private readonly jobs = new Map<string, ExportJob>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly listener: JobListener = () => {},
    private readonly retention: ExportRetention | null = null,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    for (const f of fs.readdirSync(dir)) {
      if (!f.endsWith('.json')) continue;
      try {
        const job = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as ExportJob;
        if (job.status === 'PENDING' || job.status === 'RUNNING') {
          job.status = 'FAILED';
          job.error = 'interrupted by a restart; start a new export';
          job.finished_at = new Date().toISOString();
          this.save(job);
        }
        this.jobs.set(job.export_id, job);
      } catch {
        // A torn job file from a crash: ignore it.
      }
    }
    this.prune();
  }

  /**
   * Retention: delete finished exports (job and file) beyond the newest `keep`, and any older than
   * `maxAgeMs`; running ones are never touched. Runs at startup and as each export finishes.
   */
  prune(): string[] {
    if (!this.retention) return [];
    const keep = Math.max(1, this.retention.keep);
    const oldest = (this.retention.now ?? Date.now)() - (this.retention.maxAgeMs ?? EXPORT_MAX_AGE_MS);
    const finished = this.list()
      .filter((j) => j.status === 'SUCCEEDED' || j.status === 'FAILED')
      .sort((a, b) => (a.finished_at ?? a.created_at).localeCompare(b.finished_at ?? b.created_at) || (a.export_id < b.export_id ? -1 : 1))
      .reverse();
    const gone = finished.filter((j, i) => i >= keep || Date.parse(j.finished_at ?? j.created_at) < oldest).map((j) => j.export_id);
    for (const id of gone) {
      fs.rmSync(this.file(id), { force: true });
      fs.rmSync(path.join(this.dir, `${id}.json`), { force: true });
      this.jobs.delete(id);
    }
    return gone;
  }

  /** Start an export of every version visible through `filter` (tenancy) in the background. */
  start(engine: MemoryEngine, owner: string, filter: MemoryFilter = {}): ExportJob {
    const job: ExportJob = {
      export_id: uuidv7(),
      status: 'PENDING',
      created_at: new Date().toISOString(),
      started_at: null,
      finished_at: null,
      count: 0,
      bytes: 0,
      error: null,
      owner,
    };
    this.jobs.set(job.export_id, job);
    this.save(job);
    this.listener({ ...job });
    const p = this.run(engine, job, filter).finally(() => this.running.delete(p));
    this.running.add(p);
    return { ...job };
  }

  private async run(engine: MemoryEngine, job: ExportJob, filter: MemoryFilter): Promise<void> {
    await new Promise((r) => setImmediate(r));
    job.status = 'RUNNING';
    job.started_at = new Date().toISOString();
    this.save(job);
    this.listener({ ...job });
    const file = this.file(job.export_id);
    const tmp = `${file}.tmp`;
    try {
      const out = fs.openSync(tmp, 'w');
      try {
        let buf = '';
        for await (const line of engine.exportLines(filter)) {
          buf += JSON.stringify(line) + '\n';
          job.count++;
          if (buf.length > 1 << 20) {
            fs.writeSync(out, buf);
            buf = '';
          }
        }
        if (buf) fs.writeSync(out, buf);
        fs.fsyncSync(out);
      } finally {
        fs.closeSync(out);
      }
      fs.renameSync(tmp, file);
      job.bytes = fs.statSync(file).size;
      job.status = 'SUCCEEDED';
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      job.status = 'FAILED';
      job.error = err instanceof Error ? err.message : String(err);
    }
    job.finished_at = new Date().toISOString();
    this.save(job);
    this.listener({ ...job });
    this.prune();
  }

  /** Every job, oldest first. */
  list(): ExportJob[] {
    return [...this.jobs.values()].map((j) => ({ ...j })).sort((a, b) => (a.export_id < b.export_id ? -1 : 1));
  }

  get(id: string): ExportJob | undefined {
    const j = this.jobs.get(id);
    return j ? { ...j } : undefined;
  }

  file(id: string): string {
    return path.join(this.dir, `${id}.ndjson`);
  }

  /** Wait for every running export (shutdown, tests). */
  async idle(): Promise<void> {
    await Promise.all([...this.running]);
  }

  private save(job: ExportJob): void {
    const f = path.join(this.dir, `${job.export_id}.json`);
    fs.writeFileSync(`${f}.tmp`, JSON.stringify(job));
    fs.renameSync(`${f}.tmp`, f);
  }
}
