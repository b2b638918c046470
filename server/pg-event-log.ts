/**
 * One project's event feed in PostgreSQL (SERVICE_DATABASE_URL), shared by every replica.
 *
 * - Seqs are gap-free and in commit order: a writer takes the project's row in `ms_event_heads`
 *   (SELECT … FOR UPDATE), numbers its events from that row's `last_seq` and raises it in the same
 *   transaction. The next writer waits for that commit, so seq N+1 never becomes visible before
 *   seq N, and a rolled-back write leaves no hole: an `after=` cursor can never skip an event.
 * - `append` is synchronous (as in the file log): events wait in memory and go out together, in
 *   one transaction, at the next flush (group commit). Readers see only committed events.
 * - Each replica keeps an index of the events (no payloads) and adopts what other replicas
 *   committed at every `flush`, which the read routes call first: a read through B sees every
 *   event a write through A answered before it.
 * - A memory event stands for one engine version (`engine_seq`): a version already recorded (by
 *   this replica before a restart, or by another replica catching up) is not recorded again.
 * - The webhook deliveries of a batch are created in its transaction (`EventCommitHooks`).
 * - Version events are written in the store's own write transaction (`recordWithVersions`, on a
 *   PgStore): a version commits with its event and deliveries or not at all, and a failed event
 *   write fails the write. Other events written with a state change (an export job's status) go
 *   the same way through `writeIn`. Versions of a database written before that (or by a store
 *   not bound) are still repaired when the project opens (`ProjectEvents.open` records the
 *   versions above the first engine seq without an event).
 */
import { PgStore, uuidv7, type MemoryStore, type SqlClient, type SqlQueryable, type VersionRow } from '../engine/index.js';
import { INFER_REDACTABLE, REDACTABLE, type EventEntry, type ProjectEventLog } from './event-log.js';
import { EventColumns } from './pg-event-columns.js';
import { insertEvents, type EventCommitHooks, type PendingEvent } from './pg-event-insert.js';
import type { EventInput, EventJson, EventStatus, EventType } from './event-types.js';

interface MetaRow {
  seq: string | number;
  event_id: string;
  type: EventType;
  status: EventStatus;
  memory_id: string | null;
  visible_to: string | null;
  engine_seq: string | number | null;
  subject_id: string | null;
  redacted: boolean;
}

const META_COLS = 'seq, event_id, type, status, memory_id, visible_to, engine_seq, subject_id, redacted';
const SYNC_PAGE = 5000;

export class PgEventLog implements ProjectEventLog {
  private readonly entries = new EventColumns();
  private readonly sharedValues = new Map<string, string>();
  private readonly byId = new Map<string, number>();
  private readonly lastOfMemory = new Map<string, number>();
  private pending: PendingEvent[] = [];
  private readonly durableListeners: ((entries: readonly EventEntry[]) => void)[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  /** The flush queued behind the running one, shared by everyone who asks meanwhile. */
  private nextFlush: Promise<void> | null = null;
  private openEngineSeq = 0;
  /** A transaction of `writeIn` created deliveries: the dispatcher is told at the next flush. */
  private fannedOutElsewhere = false;

  private constructor(
    private readonly db: SqlClient,
    private readonly projectId: string,
    private readonly hooks: EventCommitHooks | null,
  ) {}

  static async open(db: SqlClient, projectId: string, hooks: EventCommitHooks | null = null): Promise<PgEventLog> {
    const log = new PgEventLog(db, projectId, hooks);
    await log.sync();
    // The end of the run of engine seqs 1, 2, … that all have their event: versions above it may
    // lack one (a replica died between a version's commit and its event's).
    const r = await db.query<{ m: string | number | null }>(
      `SELECT min(e.engine_seq) AS m FROM ms_events e
       WHERE e.project_id = $1 AND e.engine_seq IS NOT NULL
         AND EXISTS (SELECT 1 FROM ms_events o WHERE o.project_id = $1 AND o.engine_seq = 1)
         AND NOT EXISTS (SELECT 1 FROM ms_events n WHERE n.project_id = $1 AND n.engine_seq = e.engine_seq + 1)`,
      [projectId],
    );
    log.openEngineSeq = Number(r.rows[0]?.m ?? 0);
    return log;
  }

  get head(): number {
    return this.entries.length + this.pending.length;
  }

  get durable(): number {
    return this.entries.length;
  }

  /**
   * When this replica opened the project, the highest engine seq N such that versions 1..N all
   * had their event: versions above it get theirs (replicas write versions concurrently, so a
   * later event may stand for a lower engine seq; a version's second event is dropped under the
   * head row's lock, not by this number).
   */
  get lastEngineSeq(): number {
    return this.openEngineSeq;
  }

  lastEventOf(memoryId: string): EventEntry | undefined {
    const seq = this.lastOfMemory.get(memoryId);
    return seq === undefined ? undefined : this.entries.at(seq);
  }

  onDurable(listener: (entries: readonly EventEntry[]) => void): void {
    this.durableListeners.push(listener);
  }

  append(input: EventInput): void {
    this.pending.push({ input, event_id: uuidv7(), created_at: new Date().toISOString() });
    void this.flush().catch(() => {});
  }

  /**
   * Write these events in `tx`, a transaction of the caller's that also changes what they
   * describe: numbered under the head row lock like a batch of `flush`, with their deliveries.
   * They reach this replica's index at the next `flush` (call it once `tx` committed).
   */
  async writeIn(tx: SqlQueryable, inputs: readonly EventInput[]): Promise<void> {
    await this.insertIn(tx, inputs, false);
  }

  /** `inputs` as events of `tx`; `fresh`: they stand for versions no event can stand for yet. */
  private async insertIn(tx: SqlQueryable, inputs: readonly EventInput[], fresh: boolean): Promise<void> {
    if (inputs.length === 0) return;
    const created_at = new Date().toISOString();
    if ((await insertEvents(tx, this.projectId, this.hooks, inputs.map((input) => ({ input, event_id: uuidv7(), created_at })), fresh)) > 0) this.fannedOutElsewhere = true;
  }

  /**
   * On a PgStore of this database: write each version's events in the transaction that writes it.
   * Those versions are new (their engine seqs were given out under the store's lock just now), so
   * no event can stand for them yet and none is looked for.
   */
  recordWithVersions(store: MemoryStore, events: (rows: readonly VersionRow[]) => EventInput[]): boolean {
    if (!(store instanceof PgStore)) return false;
    store.alsoInTransaction((tx, rows) => this.insertIn(tx, events(rows), true));
    return true;
  }

  /**
   * Commit every event appended so far, then adopt what other replicas committed. Callers that
   * arrive while a flush is queued behind a running one share it (it starts after they called, so
   * it commits what they appended and adopts what was committed before): a burst of answered
   * writes costs one read of the feed, not one each.
   */
  flush(): Promise<void> {
    this.nextFlush ??= this.exclusive(async () => {
      this.nextFlush = null;
      await this.flushNow();
    });
    return this.nextFlush;
  }

  private async flushNow(): Promise<void> {
    if (this.fannedOutElsewhere) {
      this.fannedOutElsewhere = false;
      this.hooks?.committed();
    }
    const batch = this.pending.splice(0);
    if (batch.length > 0) {
      let fannedOut = 0;
      try {
        fannedOut = await this.db.transaction((tx) => insertEvents(tx, this.projectId, this.hooks, batch, false));
      } catch (err) {
        this.pending.unshift(...batch);
        throw err;
      }
      if (fannedOut > 0) this.hooks?.committed();
    }
    await this.sync();
  }

  /**
   * One string object for each of the few values an index field repeats (types, statuses, the
   * members events are visible to): the driver hands a new string per row, and the index keeps
   * one entry per event for the life of the replica.
   */
  private shared<T extends string>(value: T): T {
    const known = this.sharedValues.get(value);
    if (known !== undefined) return known as T;
    if (this.sharedValues.size >= 10_000) this.sharedValues.clear();
    this.sharedValues.set(value, value);
    return value;
  }

  /** Index the events committed since the last sync (by any replica), and tell the listeners. */
  private async sync(): Promise<void> {
    for (;;) {
      const r = await this.db.query<MetaRow>(`SELECT ${META_COLS} FROM ms_events WHERE project_id = $1 AND seq > $2 ORDER BY seq LIMIT ${SYNC_PAGE}`, [this.projectId, this.entries.length]);
      const added: EventEntry[] = [];
      for (const row of r.rows) {
        const seq = Number(row.seq);
        if (seq !== this.entries.length + 1) throw new Error(`event seq ${seq} of project ${this.projectId} where ${this.entries.length + 1} was expected; the event log is damaged`);
        const entry: EventEntry = {
          seq,
          event_id: row.event_id,
          type: this.shared(row.type),
          status: this.shared(row.status),
          memory_id: row.memory_id,
          visible_to: row.visible_to === null ? null : this.shared(row.visible_to),
          engine_seq: row.engine_seq === null ? null : Number(row.engine_seq),
          subject_id: row.subject_id,
          redacted: row.redacted,
          offset: -1,
          length: 0,
        };
        this.entries.push(entry);
        this.byId.set(entry.event_id, seq);
        if (entry.memory_id !== null) this.lastOfMemory.set(entry.memory_id, seq);
        added.push(entry);
      }
      if (added.length > 0) for (const l of this.durableListeners) l(added);
      if (r.rows.length < SYNC_PAGE) return;
    }
  }

  entry(seq: number): EventEntry | undefined {
    return seq >= 1 && seq <= this.entries.length ? this.entries.at(seq) : undefined;
  }

  entryById(eventId: string): EventEntry | undefined {
    const seq = this.byId.get(eventId);
    return seq === undefined ? undefined : this.entries.at(seq);
  }

  entriesAfter(after: number, to = this.entries.length): EventEntry[] {
    const out: EventEntry[] = [];
    for (let seq = Math.max(0, after) + 1; seq <= Math.min(to, this.entries.length); seq++) out.push(this.entries.at(seq));
    return out;
  }

  bySeq(seqs: readonly number[]): Promise<EventJson[]> {
    return this.read(seqs.filter((s) => s >= 1 && s <= this.entries.length).map((s) => this.entries.at(s)));
  }

  async read(entries: readonly EventEntry[]): Promise<EventJson[]> {
    if (entries.length === 0) return [];
    const r = await this.db.query<{ seq: string | number; event_id: string; type: EventType; status: EventStatus; memory_id: string | null; data: unknown; created_at: string }>(
      `SELECT seq, event_id, type, status, memory_id, data, created_at FROM ms_events WHERE project_id = $1 AND seq = ANY($2::bigint[])`,
      [this.projectId, entries.map((e) => e.seq)],
    );
    const bySeq = new Map(r.rows.map((row) => [Number(row.seq), row]));
    return entries.flatMap((e) => {
      const row = bySeq.get(e.seq);
      if (!row) return [];
      return [{ event_id: row.event_id, seq: e.seq, type: row.type, status: row.status, ...(row.memory_id !== null ? { memory_id: row.memory_id } : {}), data: row.data, created_at: row.created_at }];
    });
  }

  /**
   * Replace the payloads of these memories' add/update/delete events with `{memory_id, purged: true}`
   * and of these infer jobs' `infer.succeeded` events with `{job_id, status, purged: true}`.
   */
  async redact(memoryIds: ReadonlySet<string>, inferJobIds: ReadonlySet<string> = new Set()): Promise<number> {
    await this.flush();
    if (memoryIds.size === 0 && inferJobIds.size === 0) return 0;
    const r = await this.db.query<{ seq: string | number }>(
      `UPDATE ms_events SET data = json_build_object('memory_id', memory_id, 'purged', true), redacted = true
       WHERE project_id = $1 AND memory_id = ANY($2::text[]) AND type = ANY($3::text[]) AND NOT redacted RETURNING seq`,
      [this.projectId, [...memoryIds], [...REDACTABLE]],
    );
    const jobs = await this.db.query<{ seq: string | number }>(
      `UPDATE ms_events SET data = json_build_object('job_id', subject_id, 'status', status, 'purged', true), redacted = true
       WHERE project_id = $1 AND subject_id = ANY($2::text[]) AND type = $3 AND NOT redacted RETURNING seq`,
      [this.projectId, [...inferJobIds], INFER_REDACTABLE],
    );
    r.rows.push(...jobs.rows);
    for (const row of r.rows) this.entries.markRedacted(Number(row.seq));
    return r.rows.length;
  }

  async close(): Promise<void> {
    await this.flush().catch(() => {});
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => {});
    return run;
  }
}
