import type { PlannedRow } from '../bitemporal.js';
import type { MemoryFilter, VersionRow } from '../types.js';

/** One query against a store: either channel may be absent. */
export interface StoreSearch {
  /** Plain query text for the full-text channel (null: skip it). */
  text: string | null;
  /** Query embedding for the vector channel (null: skip it). */
  vector: Float32Array | null;
  /** Only rows embedded by this model take part in the vector channel. */
  model: string | null;
  filter: MemoryFilter;
  /** Only rows valid at this time. */
  validAt: number;
  /** Candidates per channel. */
  limit: number;
  /**
   * Search every version recorded up to this time instead of the current view. The engine then
   * keeps only the versions that were believed at that time.
   */
  knownAt?: number | undefined;
  /** Use only the approximate vector index where one exists (benchmarks compare with exact). */
  exact?: boolean | undefined;
  /**
   * The store's change number as the host read it from the database after the request arrived
   * (PgStore, `storeChangesSql`): a store whose in-memory view is that far along already answers
   * without reading it again. Stores without such a view ignore it.
   */
  changeSeen?: number | undefined;
}

export interface StoreHit {
  row: VersionRow;
  /** Cosine similarity (-1..1), or null when the row was not found by the vector channel. */
  vectorScore: number | null;
  /** BM25 score (≥ 0), or null when the row was not found by the full-text channel. */
  textScore: number | null;
}

export interface StoreStats {
  versions: number;
  current: number;
  /** Current rows without a vector of the active model (the re-embedding backlog). */
  unembedded: number;
  lastSeq: number;
  vectorIndex: boolean;
  /** Rows written since the last compaction/index refresh. */
  unindexed: number;
}

export interface MaintenanceReport {
  compacted: boolean;
  vectorIndexBuilt: boolean;
  ftsRefreshed: boolean;
  ms: number;
}

export interface VectorUpdate {
  version_id: string;
  vector: Float32Array;
  model: string;
}

/**
 * Persistence and retrieval of version rows. Two implementations pass one acceptance suite:
 * LanceStore (durable, on disk) and InMemoryStore (tests, ephemeral use).
 *
 * Every version is a row of the version log. The *current view* holds, for each memory, the rows of
 * its last transaction (none when tombstoned); searches and lists read it unless asked for history.
 */
export interface MemoryStore {
  readonly kind: 'lance' | 'memory' | 'postgres';
  open(): Promise<void>;
  close(): Promise<void>;
  /**
   * Append rows (whole transactions, in order). Assigns each row the next `seq` and updates the
   * current view of every memory touched. Returns the stored rows.
   */
  append(rows: readonly PlannedRow[]): Promise<VersionRow[]>;
  /** Every version of these memories, ordered by (memory_id, version). */
  versionsOf(memoryIds: readonly string[]): Promise<VersionRow[]>;
  /**
   * The highest stored version of each memory that has any (unknown ids are absent). Answered
   * without reading rows, so the write path can check a new id cheaply.
   */
  maxVersions(memoryIds: readonly string[]): Promise<Map<string, number>>;
  /** Current rows of these memories. */
  currentOf(memoryIds: readonly string[]): Promise<VersionRow[]>;
  /** Current rows matching the filter, newest `seq` first, strictly below `beforeSeq` when given. */
  list(filter: MemoryFilter, opts: { limit: number; beforeSeq?: number | undefined; validAt?: number | undefined }): Promise<VersionRow[]>;
  /** Number of distinct memories in the current view matching the filter. */
  count(filter: MemoryFilter): Promise<number>;
  search(req: StoreSearch): Promise<StoreHit[]>;
  /**
   * Full-text index terms of the current view starting with `prefix`, commonest first, for
   * prefix search while typing. Optional: a store without it searches whole words only.
   */
  completeTerm?(prefix: string, limit: number): Promise<string[]>;
  /**
   * Replication only (sync): replace stored versions, matched by `version_id`, with these rows
   * (same ids and memories, other numbers or bookkeeping: a machine adopting the server's
   * numbering, or moving its unacknowledged versions after the server's). Each replacement gets a
   * new `seq`, like an append, and leaves a gap at its old one; the current view of every memory
   * touched is recomputed. The caller keeps (memory_id, version) unique. Returns the stored rows.
   */
  rewrite(rows: readonly PlannedRow[]): Promise<VersionRow[]>;
  /** Versions with `seq` in (afterSeq, afterSeq + limit], in seq order (the change log). */
  changes(afterSeq: number, limit: number): Promise<VersionRow[]>;
  /** Erase every version of these memories, including from on-disk history. Returns rows removed. */
  purge(memoryIds: readonly string[]): Promise<number>;
  /** Current rows lacking a vector of `model`, up to `limit`. */
  unembedded(model: string, limit: number): Promise<VersionRow[]>;
  /** Set the vectors of current rows (derived data; version content never changes). */
  setVectors(updates: readonly VectorUpdate[]): Promise<void>;
  /** Tell the store which model is active, so it can count the backlog. */
  setActiveModel(model: string | null): void;
  stats(): Promise<StoreStats>;
  /** Compaction and index upkeep. Cheap when nothing needs doing. */
  maintain(opts?: { force?: boolean }): Promise<MaintenanceReport>;
}
