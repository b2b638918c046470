/**
 * The event feed's vocabulary (docs/api.md, "Events"). Memory events carry the complete version
 * record; export events follow one job through PENDING → RUNNING → SUCCEEDED | FAILED, one event
 * per status change; import events summarise a finished import; infer events follow one queued
 * `infer` add the same way, the last one carrying its results or error.
 */
import type { VersionRow } from '../engine/index.js';

export const EVENT_TYPES = [
  'memory.added',
  'memory.updated',
  'memory.deleted',
  'memory.purged',
  'export.created',
  'export.running',
  'export.succeeded',
  'export.failed',
  'import.completed',
  'infer.queued',
  'infer.running',
  'infer.succeeded',
  'infer.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export type EventStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';

/** An event as the API shows it. */
export interface EventJson {
  event_id: string;
  seq: number;
  type: EventType;
  status: EventStatus;
  memory_id?: string;
  data: unknown;
  created_at: string;
}

/** What a writer hands the log; the log assigns event_id, seq and created_at. */
export interface EventInput {
  type: EventType;
  status: EventStatus;
  memory_id?: string | undefined;
  data: unknown;
  /** The engine's seq of the version a memory event stands for (reconciliation after a crash). */
  engine_seq?: number | undefined;
  /** Id of the job an export event is about (reconciliation after a crash). */
  subject_id?: string | undefined;
  /** Member who alone may see it (personal memories, their own exports and imports); null: every key of the project. */
  visible_to: string | null;
}

/** The type of the event for one version row. */
export function memoryEventType(row: VersionRow): EventType {
  if (row.deleted) return 'memory.deleted';
  return row.version === 1 ? 'memory.added' : 'memory.updated';
}

/** Who may see the event of a version row: personal memories only their owner (no owner: nobody). */
export function rowVisibility(row: VersionRow): string | null {
  return row.space === 'personal' ? (row.owner_id ?? '') : null;
}

export function visibleTo(visibleToMember: string | null, member: string): boolean {
  return visibleToMember === null || visibleToMember === member;
}

/** A subscription or filter pattern: an exact type, a family (`memory.*`) or everything (`*`). */
export const EVENT_PATTERN_RE = /^(\*|(memory|export|import)\.\*|[a-z]+\.[a-z]+)$/;

export function isEventPattern(p: string): boolean {
  return EVENT_PATTERN_RE.test(p) && (p.endsWith('*') || (EVENT_TYPES as readonly string[]).includes(p));
}

/** Whether `type` matches any of the patterns. */
export function matchesPatterns(type: string, patterns: readonly string[]): boolean {
  for (const p of patterns) {
    if (p === '*' || p === type) return true;
    if (p.endsWith('.*') && type.startsWith(p.slice(0, -1))) return true;
  }
  return false;
}
