/**
 * The repair of LanceStore's current view from its version log: after a crash between the two
 * writes of an append, and the whole view when it is rebuilt (another model, an older format).
 */
import type * as lancedb from '@lancedb/lancedb';
import { currentRows } from '../bitemporal.js';
import type { Logger } from '../log.js';
import { sqlNumber, sqlString } from './lance-filter.js';
import { IN_CHUNK, logRows } from './lance-reads.js';
import { groupBy, toViewTable, type LanceRecord } from './lance-rows.js';
import { viewVectors, withVectors, type HeldVector } from './lance-vectors.js';

/** Memories per commit when the current view is rebuilt from scratch. */
const REBUILD_CHUNK = 2000;

/**
 * Recompute the current view of every memory with versions after `afterSeq`. A row keeps the
 * vector the view (or a legacy log) has for its version_id; rows without one (versions the view
 * never took in, a view rebuilt for another model) are embedded in the background, like any
 * backlog, and counted in `stats().unembedded` meanwhile.
 */
export async function repairView(versions: lancedb.Table, current: lancedb.Table, afterSeq: number, opts: { dim: number; legacyLog: boolean; log: Logger }): Promise<void> {
  const rows = await versions.query().where(`seq > ${sqlNumber(afterSeq)}`).select(['memory_id']).toArray();
  const ids = [...new Set((rows as LanceRecord[]).map((r) => String(r.memory_id)))];
  // An empty view (a rebuild) has no vectors to keep and no rows to delete, and takes its rows
  // in fewer commits: the upgrade of a 100k store from before took 31 s with a read, a delete
  // and an add per 500 memories, 10.5 s this way (peak RSS 468 MB, of the old log's vectors).
  const empty = (await current.countRows()) === 0;
  const step = empty ? REBUILD_CHUNK : IN_CHUNK;
  opts.log.info('repairing the current view', { afterSeq, memories: ids.length, rebuild: empty });
  for (let i = 0; i < ids.length; i += step) {
    const chunk = ids.slice(i, i + step);
    const logged = await logRows(versions, chunk, opts.legacyLog, opts.legacyLog);
    let held = new Map<string, HeldVector>();
    if (!empty) {
      held = await viewVectors(current, chunk);
      await current.delete(`memory_id IN (${chunk.map(sqlString).join(', ')})`);
    }
    const cur = withVectors(groupBy(logged).flatMap((vs) => currentRows(vs)), held);
    if (cur.length > 0) await current.add(toViewTable(cur, opts.dim));
  }
}
