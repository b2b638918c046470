/**
 * Reading a project's event log as one key may: only durable events, only those the key's member
 * may see, optionally of some types, in seq order. Hidden events leave gaps in seq; `next_after`
 * moves past them so paging never rescans them.
 */
import type { EventEntry, ProjectEventLog } from './event-log.js';
import { visibleTo, type EventJson } from './event-types.js';

export interface EventPage {
  results: EventJson[];
  /** Pass as `after` to continue. */
  next_after: number;
  has_more: boolean;
  /** Highest durable seq of the project. */
  last_seq: number;
}

export async function listEvents(log: ProjectEventLog, opts: { after: number; limit: number; viewer: string; types?: ((type: string) => boolean) | undefined }): Promise<EventPage> {
  const max = log.durable;
  const picked: EventEntry[] = [];
  for (let seq = opts.after + 1; seq <= max && picked.length < opts.limit; seq++) {
    const e = log.entry(seq)!;
    if (visibleTo(e.visible_to, opts.viewer) && (!opts.types || opts.types(e.type))) picked.push(e);
  }
  const last = picked[picked.length - 1];
  const full = picked.length === opts.limit && last !== undefined;
  return {
    results: await log.read(picked),
    next_after: full ? last.seq : Math.max(max, opts.after),
    has_more: full && last.seq < max,
    last_seq: max,
  };
}

/** One durable event by id, if `viewer` may see it. */
export async function getEvent(log: ProjectEventLog, eventId: string, viewer: string): Promise<EventJson | null> {
  const e = log.entryById(eventId);
  if (!e || !visibleTo(e.visible_to, viewer)) return null;
  return (await log.read([e]))[0] ?? null;
}
