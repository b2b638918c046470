/**
 * The engine's options and the shapes of its operations: what hosts (daemon, server) pass to
 * `MemoryEngine` and read back from it.
 */
import type { ConcurrencyGate } from './concurrency-gate.js';
import type { Clock } from './clock.js';
import type { Embedder } from './embed/types.js';
import type { Logger } from './log.js';
import type { RelevanceFloor } from './search/relevance.js';
import type { ScopeContext } from './search/scope.js';
import type { MemoryStore } from './store/types.js';
import type { Category, MemoryFilter, Metadata, Scope, Source, Space, VersionRow } from './types.js';

export interface EngineOptions {
  store: MemoryStore;
  /** Null: full-text search only. */
  embedder?: Embedder | null;
  clock?: Clock;
  logger?: Logger;
  /** @default 4000 */
  maxContentChars?: number;
  /** @default 16384 */
  maxMetadataBytes?: number;
  /** Run compaction/index upkeep and backlog embedding in the background. @default true */
  background?: boolean;
  /** Interval of background upkeep. @default 15000 */
  maintenanceIntervalMs?: number;
  /** Told when background upkeep fails (the daemon re-checks its store on a damage error). */
  onUpkeepError?: (err: unknown) => void;
  /**
   * Largest weight of the vector channel in hybrid scores; it shrinks as full text matches more of
   * the query's words (engine/search/fuse.ts). @default 0.5
   */
  vectorWeight?: number;
  /**
   * Searches run through this gate (query embedding, store search, ranking): at most its limit at
   * once, the rest wait in order at no cost. A server shares one among its projects, so a backlog
   * of searches never sits in the model's queue or on the main thread ahead of writes. @default none
   */
  searchGate?: ConcurrencyGate;
}

export interface AddInput {
  content: string;
  user_id: string;
  memory_id?: string | undefined;
  agent_id?: string | null | undefined;
  app_id?: string | null | undefined;
  run_id?: string | null | undefined;
  owner_id?: string | null | undefined;
  /** @default 'project' */
  space?: Space | undefined;
  repo?: string | null | undefined;
  dir?: string | null | undefined;
  /** @default 'note' */
  category?: Category | undefined;
  metadata?: Metadata | undefined;
  source?: Source | undefined;
  /** When the fact starts to hold. @default now */
  valid_from?: number | undefined;
  valid_to?: number | null | undefined;
  /**
   * `content` already cut into blocks by the caller, in order (each at most max_content_chars):
   * stored as the blocks of one group, as a text too long for one memory would be. Their
   * concatenation stands for `content`.
   */
  parts?: readonly string[] | undefined;
}

export interface PatchInput {
  content?: string | undefined;
  metadata?: Metadata | undefined;
  category?: Category | undefined;
  space?: Space | undefined;
  repo?: string | null | undefined;
  dir?: string | null | undefined;
  /** With valid_from: a change in the world from that time on. Without: a correction. */
  valid_from?: number | undefined;
  valid_to?: number | null | undefined;
  source?: Source | undefined;
  /** A new owner (the caller, when a memory moves into their personal space); default: unchanged. */
  owner_id?: string | null | undefined;
}

export interface SearchInput extends ScopeContext {
  query: string;
  scope?: Scope | undefined;
  filter?: MemoryFilter | undefined;
  /** @default 5 */
  top_k?: number | undefined;
  /** Drop results scoring below this (0..1). @default 0 */
  threshold?: number | undefined;
  valid_at?: number | undefined;
  known_at?: number | undefined;
  /** Bypass the approximate vector index (benchmarks). */
  exact?: boolean | undefined;
  /** Channels to use. @default 'hybrid' */
  mode?: 'hybrid' | 'vector' | 'text' | undefined;
  /**
   * Keep only results that clear an absolute relevance floor (search/relevance.ts): `true` for
   * RELEVANCE_FLOOR. For what is shown unasked or acted on. @default false
   */
  relevance?: boolean | RelevanceFloor | undefined;
  /**
   * Which candidates are one text for the relevance floor (how rare a term is, which candidate
   * leads: relevance.ts): rows with the same key count once. @default the row's block group, else the row
   */
  textOf?: ((row: VersionRow) => string) | undefined;
  /**
   * The query is being typed: its last word (no space after it) also matches as a prefix, so
   * "postg" finds "postgres" (full-text channel; text/complete.ts). @default false
   */
  prefix?: boolean | undefined;
  /** Aborted when nobody waits for the answer any more: a search still waiting for its turn is dropped (`CANCELLED`). */
  signal?: AbortSignal | undefined;
  /** The store's change number the host read after the request arrived (StoreSearch.changeSeen). */
  changeSeen?: number | undefined;
}

export interface SearchHit {
  row: VersionRow;
  /** Fused relevance, 0..1. */
  score: number;
  /** Cosine similarity of the vector channel (null when found by full text only). */
  vectorScore: number | null;
}

export interface SearchOutput {
  results: SearchHit[];
  /** What actually ran: hybrid, or text only when no model is ready. */
  mode: 'hybrid' | 'vector' | 'text';
  /** Time spent embedding the query, ms (0 when cached or lexical). */
  embed_ms: number;
  /** Time spent in the store and ranking, ms. */
  search_ms: number;
}

export interface ListInput {
  filter: MemoryFilter;
  limit: number;
  cursor?: string | undefined;
  valid_at?: number | undefined;
}

export interface ChangeListener {
  (rows: readonly VersionRow[]): void;
}

/**
 * Told about a purge of these memories (ids that had versions) right before the store erases them
 * (`before`: a host may write an intent record; throwing aborts the purge) and right after
 * (`after`: erase derived copies such as an event log). Awaited, in registration order.
 */
export interface PurgeListener {
  (memoryIds: readonly string[], phase: 'before' | 'after'): Promise<void> | void;
}

export interface EngineStatus {
  memories: number;
  versions: number;
  lastSeq: number;
  model: { id: string | null; state: string; detail?: Record<string, unknown> };
  backlog: number;
  vectorIndex: boolean;
  mode: 'hybrid' | 'text';
}
