/**
 * Replication rules (DESIGN.md §7): how a transaction written on another machine joins a memory's
 * history. Pure functions over version rows; the server sequences pushed transactions with
 * `sequenceTransaction`, and a machine rebases its own unacknowledged transactions with
 * `renumberAfter`.
 *
 * - A version is identified by its `version_id`: a transaction already present is never applied
 *   twice, whatever numbers it carries (a retried push is a no-op).
 * - Version numbers are assigned by whoever sequences (the server, in the order transactions reach
 *   it): a transaction is renumbered to directly follow the memory's last version. Its rows keep
 *   their order and `tx` stays the version of its first row. Nothing already sequenced moves.
 * - Transaction time stays monotone per memory, so `superseded_at` (the next transaction's
 *   `recorded_at`) never precedes `recorded_at`: a transaction recorded before the memory's last
 *   one is re-stamped with the time the sequencer learned it (never before that last one).
 */
import type { PlannedRow } from './bitemporal.js';
import { EngineError } from './errors.js';
import type { VersionRow } from './types.js';

type Numbered = Pick<VersionRow, 'version_id' | 'memory_id' | 'version' | 'tx' | 'recorded_at'>;

export type SequenceOutcome<R extends Numbered> =
  /** Every version id is already in the history: these are the stored rows, with their numbers. */
  | { status: 'exists'; rows: R[] }
  /** The rows to append, numbered to follow the history. */
  | { status: 'accepted'; rows: PlannedRow[]; renumbered: boolean; restamped: boolean };

/** Check that rows form one transaction of one memory: same memory and tx, versions tx, tx+1, … */
export function checkTransaction(rows: readonly PlannedRow[]): PlannedRow[] {
  const sorted = [...rows].sort((a, b) => a.version - b.version);
  const first = sorted[0];
  if (!first) throw new EngineError('VALIDATION', 'a transaction needs at least one version');
  sorted.forEach((r, i) => {
    if (r.memory_id !== first.memory_id || r.tx !== first.tx || r.version !== first.tx + i) {
      throw new EngineError('VALIDATION', `versions of one transaction must share memory_id and tx and number tx, tx+1, …; version ${r.version} of memory ${r.memory_id} does not`, {
        memory_id: r.memory_id,
        version: r.version,
      });
    }
  });
  return sorted;
}

/**
 * Sequence one transaction (rows of one memory sharing `tx`) after `history` (every version of
 * that memory known here, in any order). `now` is the sequencer's clock.
 */
export function sequenceTransaction<R extends Numbered>(history: readonly R[], tx: readonly PlannedRow[], now: number): SequenceOutcome<R> {
  const rows = checkTransaction(tx);
  const byId = new Map(history.map((r) => [r.version_id, r]));
  const present = rows.filter((r) => byId.has(r.version_id));
  if (present.length === rows.length) return { status: 'exists', rows: rows.map((r) => byId.get(r.version_id)!) };
  if (present.length > 0) {
    throw new EngineError('CONFLICT', `part of a transaction of memory ${rows[0]!.memory_id} is already stored; send whole transactions`, { memory_id: rows[0]!.memory_id });
  }
  let lastVersion = 0;
  let lastRecorded = 0;
  for (const r of history) {
    lastVersion = Math.max(lastVersion, r.version);
    lastRecorded = Math.max(lastRecorded, r.recorded_at);
  }
  const renumbered = rows[0]!.tx !== lastVersion + 1;
  const out = renumbered ? renumberAfter([rows], lastVersion)[0]! : rows.map((r) => ({ ...r }));
  const restamped = out[0]!.recorded_at < lastRecorded;
  if (restamped) {
    const t = Math.max(lastRecorded + 1, now);
    for (const r of out) r.recorded_at = t;
  }
  return { status: 'accepted', rows: out, renumbered, restamped };
}

/**
 * Renumber transactions (each a list of rows sharing `tx`, in order) to follow `after`: the first
 * becomes tx `after + 1`, each next one follows the previous one's last version. Returns copies.
 */
export function renumberAfter<T extends Pick<VersionRow, 'version' | 'tx'>>(txs: readonly (readonly T[])[], after: number): T[][] {
  let next = after + 1;
  return txs.map((tx) => {
    const sorted = [...tx].sort((a, b) => a.version - b.version);
    const base = next;
    const out = sorted.map((r) => ({ ...r, version: base + (r.version - r.tx), tx: base }));
    next = Math.max(...out.map((r) => r.version)) + 1;
    return out;
  });
}
