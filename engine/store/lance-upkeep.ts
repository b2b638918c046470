/**
 * LanceStore's background upkeep: compaction, folding new rows into the indexes, and (re)training
 * the vector index. The store owns the state and bumps its counters on every write.
 */
import type * as lancedb from '@lancedb/lancedb';
import type { Logger } from '../log.js';
import { vectorIndex, vectorIndexPlan, type VectorIndexPlan } from './lance-indexes.js';
import type { MaintenanceReport } from './types.js';

export interface UpkeepState {
  /** Commits to each table since it was last optimized (each leaves a fragment or a deletion file). */
  currentCommits: number;
  versionCommits: number;
  /** Rows written since the indexes last took new rows in. */
  rowsSinceIndex: number;
  /** The current view's vector index, or null; `stale` when it is of a kind no longer built. */
  vectorIndex: (VectorIndexPlan & { stale: boolean }) | null;
  /** When each table was last optimized (epoch ms; absent: not yet in this process). */
  currentOptimizedAt?: number;
  versionsOptimizedAt?: number;
  /**
   * When each table's last optimize leaves files to delete: what a compaction replaced is still
   * referenced by the version just before it, younger than the retention, so only a later pass can
   * delete it. Without that pass a store that stopped writing kept a whole second copy of each
   * table (the 20-session bench: 91 MB after idle upkeep, 44 MB of it live).
   */
  currentPruneAt?: number;
  versionsPruneAt?: number;
}

/**
 * Old table versions (each commit leaves a manifest and, until compaction, a fragment) are deleted
 * once older than this: a reader on one is done by then (retired handles close after 10 s). At a
 * minute, 20 busy sessions kept ~470 versions and 29 MB on disk for 419 memories (issue 20).
 */
export const RETAIN_VERSIONS_MS = 15_000;
/** A table with commits since its last optimize is optimized after this long even below the commit count, so a burst's old versions do not linger once writes stop. */
export const OPTIMIZE_AFTER_MS = 30_000;

export interface UpkeepDeps {
  tables(): { versions: lancedb.Table; current: lancedb.Table };
  /** Run after every earlier write, holding the write lock. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Persist the vector index plan (called holding the write lock). */
  saveMarker(): void;
  /** Whether enough rows are scored outside the full-text index to fold them in now. */
  textBacklogDue(): boolean;
  /** Called holding the write lock right after a table was optimized (its indexes caught up). */
  optimized(table: 'current' | 'versions'): Promise<void>;
  /**
   * Swap in a fresh connection (called holding the write lock once upkeep rewrote anything); unless
   * `always`, at most once per RECONNECT_EVERY_MS.
   */
  reconnect(always: boolean): Promise<void>;
  log: Logger;
  compactEveryCommits: number;
  vectorIndexMinRows: number;
  /** Old table versions are deleted once older than this (RETAIN_VERSIONS_MS). */
  retainVersionsMs: number;
  /** Whether searches of the current view run in memory (ResidentView), so no vector index serves them. */
  viewInMemory(): boolean;
}

/** Rows with a vector: `embed_model` is set exactly when `vector` is (toRecord), and is far cheaper to read. */
export const EMBEDDED = 'embed_model IS NOT NULL';

/**
 * The current view (searched on every recall) is optimized once `compactEveryCommits` commits have
 * left fragments in it; the version log (read by id and by seq, never searched by recall) at a
 * quarter of that rate, since each optimize rewrites small fragments and, at times, the large one
 * beside them. Each table is optimized in its own turn of the write lock, so writes queued
 * meanwhile are not held for both.
 */
export async function runUpkeep(state: UpkeepState, deps: UpkeepDeps, force: boolean): Promise<MaintenanceReport> {
  const t0 = performance.now();
  const report: MaintenanceReport = { compacted: false, vectorIndexBuilt: false, ftsRefreshed: false, ms: 0 };
  const stale = (commits: number, at: number | undefined): boolean => commits > 0 && Date.now() - (at ?? 0) >= OPTIMIZE_AFTER_MS;
  const due = (at: number | undefined): boolean => at !== undefined && Date.now() >= at;
  // Each optimize of a table rewrites all of it (LanceDB merges every fragment under a million
  // rows), and the copy it replaced stays on disk for the retention. A view searched in memory
  // reads LanceDB only by id and filter, where fragments cost little: it is optimized at most
  // once per retention, so a burst of writes leaves one replaced copy on disk, not one per 32
  // commits (the 20-session bench: 98 MB right after the run, 16 MB once pruned).
  const viewSpaced = !deps.viewInMemory() || Date.now() - (state.currentOptimizedAt ?? 0) >= deps.retainVersionsMs;
  if (force || (viewSpaced && (state.currentCommits >= deps.compactEveryCommits || deps.textBacklogDue() || stale(state.currentCommits, state.currentOptimizedAt)))) {
    await deps.exclusive(async () => {
      // optimize(): compact small fragments, fold new rows into every index, drop old table versions.
      await optimizeTable(deps, 'current');
      await deps.optimized('current');
      state.currentCommits = 0;
      state.currentOptimizedAt = Date.now();
      state.currentPruneAt = Date.now() + deps.retainVersionsMs;
      state.rowsSinceIndex = 0;
      report.compacted = true;
      report.ftsRefreshed = true;
    });
  } else if (due(state.currentPruneAt)) {
    await deps.exclusive(async () => {
      state.currentPruneAt = (await pruneTable(deps, 'current')) ? Date.now() + deps.retainVersionsMs : undefined;
    });
  }
  if (force || state.versionCommits >= deps.compactEveryCommits * 4 || stale(state.versionCommits, state.versionsOptimizedAt)) {
    await deps.exclusive(async () => {
      await optimizeTable(deps, 'versions');
      await deps.optimized('versions');
      state.versionCommits = 0;
      state.versionsOptimizedAt = Date.now();
      state.versionsPruneAt = Date.now() + deps.retainVersionsMs;
      report.compacted = true;
    });
  } else if (due(state.versionsPruneAt)) {
    await deps.exclusive(async () => {
      state.versionsPruneAt = (await pruneTable(deps, 'versions')) ? Date.now() + deps.retainVersionsMs : undefined;
    });
  }
  if (await needsVectorIndex(state, deps)) {
    const { current } = deps.tables();
    const plan = vectorIndexPlan(await current.countRows(EMBEDDED));
    deps.log.info('building the vector index', { ...plan });
    await current.createIndex('vector', { config: vectorIndex(plan), replace: true });
    state.vectorIndex = { ...plan, stale: false };
    await deps.exclusive(async () => deps.saveMarker());
    report.vectorIndexBuilt = true;
  }
  if (report.compacted || report.vectorIndexBuilt) await deps.exclusive(() => deps.reconnect(force || report.vectorIndexBuilt));
  report.ms = performance.now() - t0;
  return report;
}

function optimizeTable(deps: UpkeepDeps, table: 'current' | 'versions'): Promise<unknown> {
  return deps.tables()[table].optimize({ cleanupOlderThan: new Date(Date.now() - deps.retainVersionsMs) });
}

/**
 * The pass after a compaction, once what it replaced is past the retention: deletes those files.
 * LanceDB compacts the fragment the full-text index was built on only in a later pass, so this
 * pass may rewrite files too; it says so (true), and another pass follows. With no writes
 * meanwhile it converges on one fragment per table and commits nothing new.
 */
async function pruneTable(deps: UpkeepDeps, table: 'current' | 'versions'): Promise<boolean> {
  const r = (await optimizeTable(deps, table)) as { compaction?: { filesRemoved?: number }; prune?: { bytesRemoved?: number; oldVersionsRemoved?: number } } | undefined;
  if (r?.prune?.bytesRemoved) deps.log.debug('old table versions deleted', { table, bytes: r.prune.bytesRemoved, versions: r.prune.oldVersionsRemoved });
  if (r?.compaction?.filesRemoved) await deps.optimized(table);
  return (r?.compaction?.filesRemoved ?? 0) > 0;
}

/**
 * Train the vector index once there are `vectorIndexMinRows` embedded rows, retrain when they have
 * grown fourfold (partitions follow √rows), and replace an index of a kind no longer built. The row
 * count from table metadata rules most calls out without a scan.
 *
 * Not while the view is searched in memory: no search would read the index, and each optimize
 * rewrites it (LanceDB writes a new copy even with no new rows, and the replaced copy stays on
 * disk until the next pass): at 10k memories 124 bytes a row, twice over, for nothing.
 */
async function needsVectorIndex(state: UpkeepState, deps: UpkeepDeps): Promise<boolean> {
  const { current } = deps.tables();
  if (deps.viewInMemory()) return false;
  if (state.vectorIndex?.stale) return true;
  const threshold = state.vectorIndex ? state.vectorIndex.rows * 4 : deps.vectorIndexMinRows;
  if ((await current.countRows()) < threshold) return false;
  return (await current.countRows(EMBEDDED)) >= threshold;
}
