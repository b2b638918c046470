/**
 * Writing a batch of a project's events in a transaction: the head row lock that numbers them
 * gap-free (see pg-event-log.ts), the one statement that inserts them and raises the head, and the
 * commit hooks (webhook fan-out) that run in the same transaction.
 */
import type { SqlQueryable } from '../engine/index.js';
import type { EventEntry } from './event-log.js';
import type { EventInput } from './event-types.js';

/** Take the project's head row (created at 0 when missing) for this transaction; returns its last seq. */
export async function lockEventHead(tx: SqlQueryable, projectId: string): Promise<number> {
  const select = `SELECT last_seq FROM ms_event_heads WHERE project_id = $1 FOR UPDATE`;
  let head = await tx.query<{ last_seq: string | number }>(select, [projectId]);
  if (head.rows.length === 0) {
    // The project's first event: create the row (or find the one a concurrent writer created).
    await tx.query(`INSERT INTO ms_event_heads (project_id, last_seq) VALUES ($1, 0) ON CONFLICT (project_id) DO NOTHING`, [projectId]);
    head = await tx.query<{ last_seq: string | number }>(select, [projectId]);
  }
  return Number(head.rows[0]!.last_seq);
}

/** Work done in the transaction that commits a batch of events (webhook fan-out), and after it. */
export interface EventCommitHooks {
  /**
   * A query (its one parameter, $1, the project id) whose rows `inTransaction` needs: read by the
   * statement that inserts the events, which saves a round trip under the head row's lock.
   */
  read?: string;
  /**
   * Runs in the batch's transaction, under the head row lock, given the rows of `read`; returns
   * how many deliveries it created (`committed` follows when any).
   */
  inTransaction(tx: SqlQueryable, projectId: string, events: readonly Pick<EventEntry, 'seq' | 'event_id' | 'type' | 'visible_to'>[], read?: readonly Record<string, unknown>[]): Promise<number>;
  committed(): void;
}

/** An event appended and not yet written. */
export interface PendingEvent {
  input: EventInput;
  event_id: string;
  created_at: string;
}

/**
 * Insert a batch under the head row, raising it in the same statement (which also reads what
 * the commit hooks need); returns what the hooks did in the transaction. `fresh`: the batch's
 * engine seqs were just given out, so no event stands for them yet.
 */
export async function insertEvents(tx: SqlQueryable, projectId: string, hooks: EventCommitHooks | null, batch: readonly PendingEvent[], fresh: boolean): Promise<number> {
  let seq = await lockEventHead(tx, projectId);
  const engineSeqs = batch.map((b) => b.input.engine_seq).filter((s): s is number => s !== undefined);
  const taken = new Set<number>();
  if (engineSeqs.length > 0 && !fresh) {
    const r = await tx.query<{ engine_seq: string | number }>(`SELECT engine_seq FROM ms_events WHERE project_id = $1 AND engine_seq = ANY($2::bigint[])`, [projectId, engineSeqs]);
    for (const row of r.rows) taken.add(Number(row.engine_seq));
  }
  const cols: unknown[][] = [[], [], [], [], [], [], [], [], [], []];
  const inserted: Pick<EventEntry, 'seq' | 'event_id' | 'type' | 'visible_to'>[] = [];
  for (const b of batch) {
    const i = b.input;
    if (i.engine_seq !== undefined) {
      if (taken.has(i.engine_seq)) continue;
      taken.add(i.engine_seq);
    }
    seq++;
    const values = [seq, b.event_id, i.type, i.status, i.memory_id ?? null, i.visible_to, i.engine_seq ?? null, i.subject_id ?? null, JSON.stringify(i.data ?? null), b.created_at];
    values.forEach((v, k) => cols[k]!.push(v));
    inserted.push({ seq, event_id: b.event_id, type: i.type, visible_to: i.visible_to });
  }
  if (cols[0]!.length === 0) return 0;
  const read = hooks?.read;
  const r = await tx.query(
    `WITH e AS (INSERT INTO ms_events (project_id, seq, event_id, type, status, memory_id, visible_to, engine_seq, subject_id, data, created_at)
                  SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::json[], $11::text[])),
            h AS (UPDATE ms_event_heads SET last_seq = $12 WHERE project_id = $1)
       ${read ?? 'SELECT 1 WHERE false'}`,
    [projectId, ...cols, seq],
  );
  return hooks ? hooks.inTransaction(tx, projectId, inserted, read ? r.rows : undefined) : 0;
}
