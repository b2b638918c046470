/**
 * One project's event feed: an append-only NDJSON file (`events.ndjson`) with an in-memory index
 * of every event (seq, id, type, visibility, byte offset) rebuilt at open; payloads are read from
 * the file on demand.
 *
 * - `append` is synchronous: it assigns the next seq (per project, gap-free, increasing) in call
 *   order, so events are numbered in commit order. Writes are group-committed: everything appended
 *   while one write+fdatasync runs goes out in the next one.
 * - Readers see an event only once it is durable, so a seq that was ever shown can never be
 *   reassigned after a crash. A torn last line (never durable) is cut off at open.
 * - `redact` rewrites the file (temp file, fsync, rename) replacing the payloads of a purged
 *   memory's events with `{memory_id, purged: true}`: erasure reaches the feed too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { uuidv7, type MemoryStore, type VersionRow } from '../engine/index.js';
import { rewriteLines } from './ndjson-rewrite.js';
import type { EventInput, EventJson, EventStatus, EventType } from './event-types.js';
import { ndjsonLines } from './ndjson-lines.js';

/** One event as stored (a line of the file): the API shape plus bookkeeping. */
interface StoredLine extends EventJson {
  engine_seq?: number;
  subject_id?: string;
  visible_to: string | null;
}

/** What the index keeps per event. */
export interface EventEntry {
  seq: number;
  event_id: string;
  type: EventType;
  status: EventStatus;
  memory_id: string | null;
  visible_to: string | null;
  engine_seq: number | null;
  /** The export job an export event is about. */
  subject_id: string | null;
  redacted: boolean;
  /** Byte offset and length of the line (valid once durable). */
  offset: number;
  length: number;
}

export const REDACTABLE = new Set<EventType>(['memory.added', 'memory.updated', 'memory.deleted']);
/** The infer event whose payload (the job's results) carries memory content. */
export const INFER_REDACTABLE: EventType = 'infer.succeeded';

/**
 * What the rest of the server needs from a project's event feed: this file-backed log (embedded
 * default) or the PostgreSQL one (`PgEventLog`, shared by every replica).
 */
export interface ProjectEventLog {
  readonly head: number;
  readonly durable: number;
  readonly lastEngineSeq: number;
  lastEventOf(memoryId: string): EventEntry | undefined;
  onDurable(listener: (entries: readonly EventEntry[]) => void): void;
  append(input: EventInput): void;
  flush(): Promise<void>;
  entry(seq: number): EventEntry | undefined;
  entryById(eventId: string): EventEntry | undefined;
  entriesAfter(after: number, to?: number): EventEntry[];
  bySeq(seqs: readonly number[]): Promise<EventJson[]>;
  read(entries: readonly EventEntry[]): Promise<EventJson[]>;
  /**
   * Erase purged content from the feed: the add/update/delete events of these memories, and the
   * `infer.succeeded` events of these infer jobs (their results named a purged memory).
   */
  redact(memoryIds: ReadonlySet<string>, inferJobIds?: ReadonlySet<string>): Promise<number>;
  /**
   * Have `store` write the events of its versions in the transaction that writes them (`events`
   * makes them), where the two share a database: true when bound (`flush` then adopts them).
   */
  recordWithVersions?(store: MemoryStore, events: (rows: readonly VersionRow[]) => EventInput[]): boolean;
  close(): Promise<void>;
}

export class EventLog implements ProjectEventLog {
  private readonly entries: EventEntry[] = [];
  private readonly byId = new Map<string, number>();
  private readonly lastOfMemory = new Map<string, number>();
  private pending: { entry: EventEntry; line: string }[] = [];
  private durableSeq = 0;
  private size = 0;
  private maxEngineSeq = 0;
  private fh: fs.promises.FileHandle | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private flushing: Promise<void> | null = null;
  private readonly durableListeners: ((entries: readonly EventEntry[]) => void)[] = [];
  readonly file: string;

  private constructor(dir: string) {
    this.file = path.join(dir, 'events.ndjson');
  }

  static async open(dir: string): Promise<EventLog> {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const log = new EventLog(dir);
    await log.load();
    return log;
  }

  private async load(): Promise<void> {
    let end = 0;
    for await (const l of ndjsonLines(this.file)) {
      if (!l.complete) break;
      let line: StoredLine;
      try {
        line = JSON.parse(l.text) as StoredLine;
      } catch {
        throw new Error(`${this.file}: line ${this.entries.length + 1} is not JSON; the event log is damaged`);
      }
      if (line.seq !== this.entries.length + 1) throw new Error(`${this.file}: seq ${line.seq} where ${this.entries.length + 1} was expected; the event log is damaged`);
      const data = line.data as { purged?: unknown } | null;
      this.index({ ...this.entryOf(line), offset: l.offset, length: l.length, redacted: data?.purged === true });
      end = l.offset + l.length + 1;
    }
    this.durableSeq = this.entries.length;
    this.size = end;
    this.fh = await fs.promises.open(this.file, 'a+', 0o600);
    const st = await this.fh.stat();
    if (st.size > end) await this.fh.truncate(end); // a torn write that was never durable
  }

  private entryOf(line: StoredLine): Omit<EventEntry, 'offset' | 'length' | 'redacted'> {
    return {
      seq: line.seq,
      event_id: line.event_id,
      type: line.type,
      status: line.status,
      memory_id: line.memory_id ?? null,
      visible_to: line.visible_to,
      engine_seq: line.engine_seq ?? null,
      subject_id: line.subject_id ?? null,
    };
  }

  private index(entry: EventEntry): void {
    this.entries.push(entry);
    this.byId.set(entry.event_id, entry.seq);
    if (entry.memory_id !== null) this.lastOfMemory.set(entry.memory_id, entry.seq);
    if (entry.engine_seq !== null) this.maxEngineSeq = Math.max(this.maxEngineSeq, entry.engine_seq);
  }

  /** Highest seq assigned (durable or not). */
  get head(): number {
    return this.entries.length;
  }

  /** Highest seq that is on disk and visible to readers. */
  get durable(): number {
    return this.durableSeq;
  }

  /** Highest engine seq any memory event stands for (0: none). */
  get lastEngineSeq(): number {
    return this.maxEngineSeq;
  }

  /** Index entry of the last event about a memory. */
  lastEventOf(memoryId: string): EventEntry | undefined {
    const seq = this.lastOfMemory.get(memoryId);
    return seq === undefined ? undefined : this.entries[seq - 1];
  }

  /** Called with each group of events right after it became durable (webhook fan-out). */
  onDurable(listener: (entries: readonly EventEntry[]) => void): void {
    this.durableListeners.push(listener);
  }

  /** Record an event: numbered now, durable after the next group commit. */
  append(input: EventInput): EventEntry {
    const line: StoredLine = {
      event_id: uuidv7(),
      seq: this.entries.length + 1,
      type: input.type,
      status: input.status,
      ...(input.memory_id !== undefined ? { memory_id: input.memory_id } : {}),
      data: input.data,
      created_at: new Date().toISOString(),
      ...(input.engine_seq !== undefined ? { engine_seq: input.engine_seq } : {}),
      ...(input.subject_id !== undefined ? { subject_id: input.subject_id } : {}),
      visible_to: input.visible_to,
    };
    const entry: EventEntry = { ...this.entryOf(line), offset: -1, length: 0, redacted: false };
    this.index(entry);
    this.pending.push({ entry, line: JSON.stringify(line) });
    void this.scheduleFlush().catch(() => {});
    return entry;
  }

  /** Resolves once every event appended so far is durable (rejects when the disk refuses). */
  async flush(): Promise<void> {
    const target = this.entries.length;
    while (this.durableSeq < target) await this.scheduleFlush();
  }

  private scheduleFlush(): Promise<void> {
    this.flushing ??= (async () => {
      await new Promise((r) => setImmediate(r));
      try {
        while (this.pending.length > 0) {
          const batch = this.pending.splice(0);
          try {
            await this.exclusive(() => this.write(batch));
          } catch (err) {
            this.pending.unshift(...batch);
            throw err;
          }
        }
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  private async write(batch: { entry: EventEntry; line: string }[]): Promise<void> {
    const fh = this.handle();
    let off = this.size;
    const parts: string[] = [];
    for (const { entry, line } of batch) {
      entry.offset = off;
      entry.length = Buffer.byteLength(line);
      off += entry.length + 1;
      parts.push(line, '\n');
    }
    const buf = Buffer.from(parts.join(''));
    try {
      for (let done = 0; done < buf.length; ) done += (await fh.write(buf, done, buf.length - done)).bytesWritten;
      await fh.datasync();
    } catch (err) {
      await fh.truncate(this.size).catch(() => {});
      throw err;
    }
    this.size = off;
    this.durableSeq = batch[batch.length - 1]!.entry.seq;
    const entries = batch.map((b) => b.entry);
    for (const l of this.durableListeners) l(entries);
  }

  private handle(): fs.promises.FileHandle {
    if (!this.fh) throw new Error('the event log is closed');
    return this.fh;
  }

  /** Run file work one operation at a time (writes, reads and rewrites never overlap). */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => {});
    return run;
  }

  /** The durable entry with this seq. */
  entry(seq: number): EventEntry | undefined {
    return seq >= 1 && seq <= this.durableSeq ? this.entries[seq - 1] : undefined;
  }

  /** The durable entry of an event id. */
  entryById(eventId: string): EventEntry | undefined {
    const seq = this.byId.get(eventId);
    return seq === undefined || seq > this.durableSeq ? undefined : this.entries[seq - 1];
  }

  /** Durable entries with seq in (after, to], in order. */
  entriesAfter(after: number, to = this.durableSeq): EventEntry[] {
    return this.entries.slice(Math.max(0, after), Math.min(to, this.durableSeq));
  }

  /** Events by seq (durable only), as the API shows them. */
  async bySeq(seqs: readonly number[]): Promise<EventJson[]> {
    return this.read(seqs.filter((s) => s >= 1 && s <= this.durableSeq).map((s) => this.entries[s - 1]!));
  }

  /** The events of durable entries, as the API shows them (adjacent lines are read in one call). */
  read(entries: readonly EventEntry[]): Promise<EventJson[]> {
    if (entries.length === 0) return Promise.resolve([]);
    return this.exclusive(async () => {
      const fh = this.handle();
      const out: EventJson[] = [];
      for (let i = 0; i < entries.length; ) {
        let j = i;
        while (j + 1 < entries.length && entries[j + 1]!.offset === entries[j]!.offset + entries[j]!.length + 1) j++;
        const first = entries[i]!;
        const lastE = entries[j]!;
        const buf = Buffer.alloc(lastE.offset + lastE.length - first.offset);
        await fh.read(buf, 0, buf.length, first.offset);
        for (let k = i; k <= j; k++) {
          const e = entries[k]!;
          out.push(publicJson(JSON.parse(buf.toString('utf8', e.offset - first.offset, e.offset - first.offset + e.length)) as StoredLine));
        }
        i = j + 1;
      }
      return out;
    });
  }

  /**
   * Replace the payload of every add/update/delete event of these memories with
   * `{memory_id, purged: true}`, and of the `infer.succeeded` events of these jobs with
   * `{job_id, status, purged: true}`, rewriting the file. Returns the number of events redacted.
   */
  async redact(memoryIds: ReadonlySet<string>, inferJobIds: ReadonlySet<string> = new Set()): Promise<number> {
    await this.flush();
    return this.exclusive(async () => {
      const targets = new Set<number>();
      for (const e of this.entries) {
        if (e.seq > this.durableSeq || e.redacted) continue;
        if (e.memory_id !== null && memoryIds.has(e.memory_id) && REDACTABLE.has(e.type)) targets.add(e.seq);
        else if (e.subject_id !== null && inferJobIds.has(e.subject_id) && e.type === INFER_REDACTABLE) targets.add(e.seq);
      }
      if (targets.size === 0) return 0;
      const { placed, size } = await rewriteLines(this.file, this.durableSeq, (seq, text) => {
        if (!targets.has(seq)) return null;
        const line = JSON.parse(text) as StoredLine;
        line.data = line.type === INFER_REDACTABLE ? { job_id: line.subject_id, status: line.status, purged: true } : { memory_id: line.memory_id, purged: true };
        return JSON.stringify(line);
      });
      const old = this.handle();
      this.fh = await fs.promises.open(this.file, 'a+', 0o600);
      await old.close();
      this.size = size;
      placed.forEach(([offset, length], i) => {
        const e = this.entries[i]!;
        e.offset = offset;
        e.length = length;
      });
      for (const s of targets) this.entries[s - 1]!.redacted = true;
      return targets.size;
    });
  }

  async close(): Promise<void> {
    await this.flush().catch(() => {});
    await this.exclusive(async () => {
      await this.fh?.close();
      this.fh = null;
    });
  }
}

function publicJson(line: StoredLine): EventJson {
  const { engine_seq: _e, subject_id: _s, visible_to: _v, ...rest } = line;
  return rest;
}
