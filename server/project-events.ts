/**
 * Turns what happens in one project into events: every committed version (from the engine's
 * change feed, one event per version row, in commit order), purges, export status changes and
 * finished imports.
 *
 * The event log and the LanceDB store are separate files, so `open` reconciles them:
 * - versions whose engine seq is above the last one any event stands for get their events, so no
 *   committed version ever lacks one (a crash between the store commit and the log write);
 * - a purge records an intent (a file, or a row every replica sees) before the store erases
 *   anything; an intent left by a crash is completed (store purge, log redaction, purge events, and — once `eraseWith` has given it the
 *   export and infer job stores — their erasure) before the project serves requests;
 * - export jobs whose latest status has no event get the missing ones.
 */
import type { ExportJob, InferJob, JobStatus } from '../api/index.js';
import { exportLine, type MemoryEngine, type VersionRow } from '../engine/index.js';
import type { ProjectEventLog } from './event-log.js';
import { FilePurgeIntents, type PurgeIntents } from './purge-intents.js';
import { memoryEventType, rowVisibility, type EventInput, type EventType } from './event-types.js';

const EXPORT_TYPE: Record<JobStatus, EventType> = {
  PENDING: 'export.created',
  RUNNING: 'export.running',
  SUCCEEDED: 'export.succeeded',
  FAILED: 'export.failed',
};
const INFER_TYPE: Record<JobStatus, EventType> = {
  PENDING: 'infer.queued',
  RUNNING: 'infer.running',
  SUCCEEDED: 'infer.succeeded',
  FAILED: 'infer.failed',
};
const STATUS_ORDER: JobStatus[] = ['PENDING', 'RUNNING'];
const CHANGES_PAGE = 1000;
/** A shared purge intent this old was left by a replica that stopped mid-purge (a purge takes well under a second). */
const LEFTOVER_MS = 60_000;

export class ProjectEvents {
  /** Purges a crash left half done, completed by a sweep (see `sweepLeftovers`). */
  private sweeping = false;
  /** The store writes version events in its own transactions (PostgreSQL): nothing to append. */
  private versionsBound = false;
  /** Erases purged memories from the job stores: export files, infer results (see `eraseWith`). */
  private eraser: ((ids: readonly string[]) => Promise<ReadonlySet<string>>) | null = null;
  /** Purged before `eraseWith` was called (a purge a crash left half done): erased then. */
  private unerased: string[] = [];

  constructor(
    readonly log: ProjectEventLog,
    private readonly engine: MemoryEngine,
    private readonly dir: string,
    /** Where purges in flight are recorded: the project's events/ dir, or shared by replicas (PostgreSQL). */
    private readonly intents: PurgeIntents = new FilePurgeIntents(dir),
  ) {}

  /** Reconcile with the store, then follow the engine. Call before the engine takes writes. */
  async open(): Promise<void> {
    let after = this.log.lastEngineSeq;
    const { lastSeq } = await this.engine.store.stats();
    if (lastSeq < after) {
      // The store never reuses a seq, so this is a store restored from an older backup than the
      // log: new versions would reuse seqs the log already holds and lose their events.
      throw new Error(`the event log in ${this.dir} covers versions up to seq ${after} but the store ends at ${lastSeq}; restore the project's lance/ and events/ directories from the same backup`);
    }
    while (after < lastSeq) {
      this.recordRows(await this.engine.store.changes(after, CHANGES_PAGE));
      after += CHANGES_PAGE;
    }
    this.versionsBound = this.log.recordWithVersions?.(this.engine.store, (rows) => this.versionEvents(rows)) ?? false;
    this.engine.onChange((rows) => this.recordRows(rows));
    this.engine.onPurge((ids, phase) => (phase === 'before' ? this.beginPurge(ids) : this.finishPurge(ids)));
    const left = await this.intents.pending();
    if (left.length > 0) await this.completePurge(left);
    await this.log.flush();
  }

  /** One event per version the log does not hold yet. */
  private versionEvents(rows: readonly VersionRow[]): EventInput[] {
    return rows
      .filter((r) => r.seq > this.log.lastEngineSeq)
      .map((r) => ({ type: memoryEventType(r), status: 'SUCCEEDED', memory_id: r.memory_id, data: exportLine(r), engine_seq: r.seq, visible_to: rowVisibility(r) }));
  }

  private recordRows(rows: readonly VersionRow[]): void {
    // Bound: the events committed with the versions; adopt them into this replica's index.
    if (this.versionsBound) void this.log.flush().catch(() => {});
    else for (const e of this.versionEvents(rows)) this.log.append(e);
  }

  private beginPurge(ids: readonly string[]): Promise<void> {
    return this.intents.add(ids);
  }

  /** Complete a purge found half done: the store erases what is left, then the jobs and the feed. */
  private async completePurge(ids: readonly string[]): Promise<void> {
    await this.engine.store.purge(ids);
    await this.finishPurge(ids);
  }

  /**
   * Shared intents (replicas on one database): complete the purges another replica began and did
   * not finish (it died). Only intents older than LEFTOVER_MS, so a purge still running elsewhere
   * is left to its replica.
   */
  private async sweepLeftovers(): Promise<void> {
    if (!this.intents.shared || this.sweeping) return;
    this.sweeping = true;
    try {
      const left = await this.intents.pending(LEFTOVER_MS);
      if (left.length > 0) await this.completePurge(left);
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * The job stores' erasure, run on every purge after the store erased the memories: it erases
   * them from export files and infer results and returns the infer job ids whose events must be
   * redacted. Completes the erasure of a purge a crash interrupted (whose intent is still on disk).
   */
  async eraseWith(eraser: (ids: readonly string[]) => Promise<ReadonlySet<string>>): Promise<void> {
    this.eraser = eraser;
    const left = [...new Set(this.unerased)];
    this.unerased = [];
    if (left.length > 0) await this.finishPurge(left);
  }

  /** Erase the purged memories' content from the jobs and the feed; one memory.purged event each. */
  private async finishPurge(ids: readonly string[]): Promise<void> {
    if (!this.eraser) {
      // Still opening: the intent stays until eraseWith completes it.
      this.unerased.push(...ids);
      await this.log.redact(new Set(ids));
      return;
    }
    const jobs = await this.eraser(ids);
    await this.log.redact(new Set(ids), jobs);
    for (const id of ids) {
      const last = this.log.lastEventOf(id);
      if (last?.type === 'memory.purged') continue;
      this.log.append({ type: 'memory.purged', status: 'SUCCEEDED', memory_id: id, data: { memory_id: id, purged: true }, visible_to: last ? last.visible_to : '' });
    }
    await this.log.flush();
    await this.intents.done(ids);
    await this.sweepLeftovers();
  }

  /** The event of an export job's status (written with the status where the job store can). */
  exportEvent(job: ExportJob): EventInput {
    const { owner, ...data } = job;
    return { type: EXPORT_TYPE[job.status], status: job.status, data, subject_id: job.export_id, visible_to: owner };
  }

  /** An export job changed status (ExportJobs' listener). */
  exportChanged(job: ExportJob): void {
    this.log.append(this.exportEvent(job));
  }

  /** Add the events a crash kept export jobs from recording (e.g. a job failed by a restart). */
  reconcileExports(jobs: readonly ExportJob[]): void {
    const last = new Map<string, JobStatus>();
    for (const e of this.log.entriesAfter(0, this.log.head)) if (e.subject_id !== null) last.set(e.subject_id, e.status as JobStatus);
    for (const job of jobs) {
      const seen = last.get(job.export_id);
      if (seen === job.status) continue;
      const from = seen === undefined ? 0 : STATUS_ORDER.indexOf(seen) + 1;
      if (from <= 0 && seen !== undefined) continue; // a terminal status was recorded already
      const missing = [...STATUS_ORDER.slice(from, STATUS_ORDER.includes(job.status) ? STATUS_ORDER.indexOf(job.status) + 1 : undefined)];
      if (!STATUS_ORDER.includes(job.status)) missing.push(job.status);
      for (const status of missing) this.exportChanged({ ...job, status });
    }
  }

  /** A queued infer add changed status (InferJobs' listener). */
  inferChanged(job: InferJob): void {
    const { owner, input: _input, ...data } = job;
    this.log.append({ type: INFER_TYPE[job.status], status: job.status, data, subject_id: job.job_id, visible_to: owner });
  }

  /** A finished import: its counts, visible to the member who ran it. */
  importCompleted(result: { imported: number; skipped: number; memories: number }, member: string): void {
    this.log.append({ type: 'import.completed', status: 'SUCCEEDED', data: result, visible_to: member });
  }
}
