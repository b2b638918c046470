/**
 * The index of a project's durable events that every replica keeps (pg-event-log.ts), as columns.
 */
import type { EventEntry } from './event-log.js';
import type { EventStatus, EventType } from './event-types.js';

/**
 * The index of a project's durable events, kept in every replica for the life of the process: as
 * columns, an entry materialised when asked for. One object per event (100k events, 100k objects of
 * eleven fields) is what a major collection has to mark again and again, and those collections were
 * the p99 tail of a replica serving searches.
 */
export class EventColumns {
  private readonly eventIds: string[] = [];
  private readonly memoryIds: (string | null)[] = [];
  private readonly visibleTo: (string | null)[] = [];
  private readonly subjectIds: (string | null)[] = [];
  private readonly types: EventType[] = [];
  private readonly statuses: EventStatus[] = [];
  /** NaN for none. */
  private engineSeqs = new Float64Array(1024);
  private redactedFlags = new Uint8Array(1024);

  get length(): number {
    return this.eventIds.length;
  }

  push(e: EventEntry): void {
    const i = this.eventIds.length;
    if (i === this.engineSeqs.length) {
      const seqs = new Float64Array(i * 2);
      seqs.set(this.engineSeqs);
      this.engineSeqs = seqs;
      const flags = new Uint8Array(i * 2);
      flags.set(this.redactedFlags);
      this.redactedFlags = flags;
    }
    this.eventIds.push(e.event_id);
    this.memoryIds.push(e.memory_id);
    this.visibleTo.push(e.visible_to);
    this.subjectIds.push(e.subject_id);
    this.types.push(e.type);
    this.statuses.push(e.status);
    this.engineSeqs[i] = e.engine_seq ?? NaN;
    this.redactedFlags[i] = e.redacted ? 1 : 0;
  }

  /** The entry of `seq` (1-based), a fresh object. */
  at(seq: number): EventEntry {
    const i = seq - 1;
    const engineSeq = this.engineSeqs[i]!;
    return {
      seq,
      event_id: this.eventIds[i]!,
      type: this.types[i]!,
      status: this.statuses[i]!,
      memory_id: this.memoryIds[i]!,
      visible_to: this.visibleTo[i]!,
      engine_seq: Number.isNaN(engineSeq) ? null : engineSeq,
      subject_id: this.subjectIds[i]!,
      redacted: this.redactedFlags[i] === 1,
      offset: -1,
      length: 0,
    };
  }

  markRedacted(seq: number): void {
    if (seq >= 1 && seq <= this.length) this.redactedFlags[seq - 1] = 1;
  }
}
