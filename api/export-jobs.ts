/**
 * Export jobs: `POST /v1/exports` starts one, `GET /v1/exports/:id` reports its status
 * (PENDING → RUNNING → SUCCEEDED | FAILED) and `…/download` streams the NDJSON file. Jobs and
 * files live in one directory (0700, files 0600), so they survive restarts; a job cut off by a
 * restart is FAILED.
 *
 * A purge reaches finished exports too (`erase`): every file that holds a version of a purged
 * memory is rewritten without those lines, and the job says so (`erased_versions`, `erased_at`).
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
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
  /** Version lines removed from the file since it was written, because their memories were purged. */
  erased_versions?: number;
  /** When the file was last rewritten for a purge (null: never). */
  erased_at?: string | null;
}

export type JobListener = (job: ExportJob) => void;

/**
 * Where export jobs live: `ExportJobs` (files in one directory: the daemon and the embedded
 * server) or the server's PostgreSQL store (rows and content in the database, any replica).
 */
export interface ExportJobStore {
  /** Start an export of every version visible through `filter` (tenancy) in the background. */
  start(engine: MemoryEngine, owner: string, filter?: MemoryFilter): ExportJob | Promise<ExportJob>;
  get(id: string): ExportJob | undefined | Promise<ExportJob | undefined>;
  /** The NDJSON of a SUCCEEDED export (`bytes` long). */
  content(id: string): AsyncIterable<Buffer | string>;
  /** Wait for every export this process runs (shutdown, tests). */
  idle(): Promise<void>;
  /** Remove every version of these (purged) memories from finished exports; returns how many went. */
  erase(memoryIds: readonly string[]): Promise<number>;
}

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

export class ExportJobs implements ExportJobStore {
  private readonly jobs = new Map<string, ExportJob>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly listener: JobListener = () => {},
    private readonly retention: ExportRetention | null = null,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const f of fs.readdirSync(dir)) {
      // A partial file from a crash mid-export (or mid-rewrite) holds content nobody can download.
      if (f.endsWith('.tmp')) fs.rmSync(path.join(dir, f), { force: true });
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
      erased_versions: 0,
      erased_at: null,
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
      const out = fs.openSync(tmp, 'w', 0o600);
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

  /**
   * Remove every version of these (purged) memories from the finished export files, rewriting
   * each file that holds one (temp file, fsync, rename); exports still running are waited for
   * first, so none of them can write a purged version after this returns. Returns the number of
   * version lines removed. The one erasure method of export job stores (the PostgreSQL one too).
   */
  async erase(memoryIds: readonly string[]): Promise<number> {
    if (memoryIds.length === 0) return 0;
    await this.idle();
    const ids = new Set(memoryIds);
    let removed = 0;
    for (const job of this.jobs.values()) {
      if (job.status !== 'SUCCEEDED') continue;
      const file = this.file(job.export_id);
      const n = await rewriteWithout(file, ids);
      if (n === 0) continue;
      removed += n;
      job.count -= n;
      job.bytes = fs.statSync(file).size;
      job.erased_versions = (job.erased_versions ?? 0) + n;
      job.erased_at = new Date().toISOString();
      this.save(job);
    }
    return removed;
  }

  content(id: string): AsyncIterable<Buffer> {
    return fs.createReadStream(this.file(id));
  }

  /** Wait for every running export (shutdown, tests). */
  async idle(): Promise<void> {
    await Promise.all([...this.running]);
  }

  private save(job: ExportJob): void {
    const f = path.join(this.dir, `${job.export_id}.json`);
    fs.writeFileSync(`${f}.tmp`, JSON.stringify(job), { mode: 0o600 });
    fs.renameSync(`${f}.tmp`, f);
  }
}

/** Rewrite an NDJSON export without the lines of these memories; returns how many lines went. */
async function rewriteWithout(file: string, ids: ReadonlySet<string>): Promise<number> {
  let input: fs.ReadStream;
  try {
    input = fs.createReadStream(file, { encoding: 'utf8' });
    await new Promise<void>((resolve, reject) => input.once('open', () => resolve()).once('error', reject));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  const tmp = `${file}.erase.tmp`;
  const out = fs.openSync(tmp, 'w', 0o600);
  let removed = 0;
  try {
    let buf = '';
    for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
      if (line === '') continue;
      if (ids.has(memoryIdOf(line))) {
        removed++;
        continue;
      }
      buf += line + '\n';
      if (buf.length > 1 << 20) {
        fs.writeSync(out, buf);
        buf = '';
      }
    }
    if (buf) fs.writeSync(out, buf);
    fs.fsyncSync(out);
  } catch (err) {
    fs.closeSync(out);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(out);
  if (removed === 0) fs.rmSync(tmp, { force: true });
  else fs.renameSync(tmp, file);
  return removed;
}

function memoryIdOf(line: string): string {
  try {
    const id = (JSON.parse(line) as { memory_id?: unknown }).memory_id;
    return typeof id === 'string' ? id : '';
  } catch {
    return '';
  }
}
