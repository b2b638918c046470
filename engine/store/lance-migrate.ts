/**
 * One-time upgrades of a LanceStore written by an older build, run on open before anything else
 * reads the tables.
 *
 * The version log used to hold every version's vector (1.5 KB a row at 384 dimensions, float32):
 * the current view, rebuilt from the log first while the log still has them, keeps the vectors of
 * current rows; then the log drops the columns and rewrites its rows without them. Each step is
 * one LanceDB commit, so a crash leaves either the old log (the next open starts over) or the new
 * one (at worst with the old bytes still in its files until the next compaction).
 */
import type * as lancedb from '@lancedb/lancedb';
import type { Logger } from '../log.js';
import { LEGACY_LOG_VECTOR_COLUMNS } from './lance-rows.js';

export async function moveVectorsOutOfLog(versions: lancedb.Table, log: Logger): Promise<void> {
  const rows = await versions.countRows();
  log.info('moving vectors out of the version log (one-time upgrade)', { rows });
  await versions.dropColumns(LEGACY_LOG_VECTOR_COLUMNS);
  // Dropping columns only changes the schema; rewriting every row (to itself) writes data files
  // without them, and the files that held them are deleted once past the retention.
  if (rows > 0) await versions.update({ valuesSql: { version: 'version' } });
}
