/**
 * The memory record model (DESIGN.md §3). Every change appends immutable versions; the
 * current state of a memory is derived from its versions, never edited in place.
 *
 * Times are epoch milliseconds (UTC) inside the engine; the API renders them as ISO-8601.
 */

export const CATEGORIES = ['decision', 'constraint', 'preference', 'convention', 'context', 'fact', 'note'] as const;
export type Category = (typeof CATEGORIES)[number];

export const SPACES = ['project', 'personal'] as const;
/** `project`: shared project context. `personal`: the user's own. Strictly separated. */
export type Space = (typeof SPACES)[number];

export const SCOPES = ['repo', 'dir', 'user', 'session'] as const;
export type Scope = (typeof SCOPES)[number];

export const SOURCE_KINDS = ['capture', 'remember', 'api', 'sync', 'import'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export interface Source {
  kind: SourceKind;
  session_id?: string | null;
  turn_uuid?: string | null;
  tool?: string | null;
}

/** What a version did to its memory, as history reports it. */
export type VersionEvent = 'ADD' | 'UPDATE' | 'DELETE';

/** Free JSON object attached to a memory. Bounded in size (see `max_metadata_bytes`). */
export type Metadata = Record<string, unknown>;

/** Fields a writer chooses for a memory (everything but identity and time bookkeeping). */
export interface MemoryFields {
  content: string;
  user_id: string;
  agent_id: string | null;
  app_id: string | null;
  /** Agent session id. */
  run_id: string | null;
  /** Principal that owns a personal memory (a server member, or the local user). */
  owner_id: string | null;
  space: Space;
  /** Repository identity: normalized git remote, else the repo root path. Null = everywhere. */
  repo: string | null;
  /** Working directory relative to the repo root where it was captured. */
  dir: string | null;
  category: Category;
  metadata: Metadata;
  source: Source;
}

/** Links the blocks of a text that was longer than `max_content_chars`. */
export interface BlockLink {
  group_id: string;
  index: number;
  count: number;
}

/**
 * One immutable version row, exactly as a store persists it.
 *
 * A write is a *transaction*: one or more rows of one memory sharing `tx` (the version number of
 * its first row) and `recorded_at`. A memory's current state is the rows of its last transaction,
 * unless that transaction is a tombstone. `superseded_at` is therefore derived, never stored.
 */
export interface VersionRow extends MemoryFields {
  /** Globally unique id of this version (UUID v7). */
  version_id: string;
  memory_id: string;
  /** 1, 2, 3… per memory. */
  version: number;
  /** Version number of the first row of the transaction that wrote this row. */
  tx: number;
  /** Store-local change sequence: gap-free, increasing, assigned when the row is committed. */
  seq: number;
  content_hash: string;
  /** Valid time: half-open [valid_from, valid_to); null valid_to = open. */
  valid_from: number;
  valid_to: number | null;
  /** Transaction time: when the system learned this version. */
  recorded_at: number;
  /** When the memory was first recorded (its version 1). */
  created_at: number;
  deleted: boolean;
  block: BlockLink | null;
  /** Embedding of `content`, or null until a model has embedded it. */
  vector: Float32Array | null;
  /** Model id that produced `vector`; vectors of two models are never compared. */
  embed_model: string | null;
}

/** A version as read back, with its derived transaction-time end. */
export interface MemoryVersion extends Omit<VersionRow, 'vector'> {
  superseded_at: number | null;
  event: VersionEvent;
}

export interface TimeRange {
  gte?: number | undefined;
  gt?: number | undefined;
  lte?: number | undefined;
  lt?: number | undefined;
}

export type FilterValue = string | string[] | null;

/**
 * Structured filter over memory fields. Stores translate it into their own query language and
 * never splice a value unescaped. Every set field must match (AND); an array means "any of".
 * `null` matches a missing value.
 */
export interface MemoryFilter {
  memory_ids?: string[] | undefined;
  user_id?: FilterValue | undefined;
  agent_id?: FilterValue | undefined;
  app_id?: FilterValue | undefined;
  run_id?: FilterValue | undefined;
  owner_id?: FilterValue | undefined;
  space?: Space | Space[] | undefined;
  repo?: FilterValue | undefined;
  dir?: FilterValue | undefined;
  category?: Category | Category[] | undefined;
  /** Equality on top-level metadata keys (JSON scalars). */
  metadata?: Record<string, string | number | boolean | null> | undefined;
  created_at?: TimeRange | undefined;
  updated_at?: TimeRange | undefined;
  /**
   * Personal memories are visible only to their owner: when set, rows with space=personal must
   * also have owner_id equal to this value. Project rows are unaffected.
   */
  personal_owner?: string | undefined;
  /** At least one of these filters must match (OR), in addition to the fields above (AND). */
  any_of?: MemoryFilter[] | undefined;
}

/** Which point of the two time axes a read looks at. Default: (now, now). */
export interface AsOf {
  valid_at?: number | undefined;
  known_at?: number | undefined;
}
