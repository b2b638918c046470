/** LanceStore's options, and the defaults that fill in those a caller leaves out. */
import os from 'node:os';
import { RETAIN_VERSIONS_MS } from './lance-upkeep.js';
import type { ResidentBudget } from './resident-budget.js';
import type { Logger } from '../log.js';

export interface LanceStoreOptions {
  /** Directory of the LanceDB database. */
  dir: string;
  /** Vector dimension of the active embedding model (fixed per table). */
  dim: number;
  logger?: Logger;
  /** Build the approximate vector index once the current view holds this many embedded rows. @default 5000 */
  vectorIndexMinRows?: number;
  /** Optimize the current view after this many commits to it (the version log after 4×). @default 32 */
  compactEveryCommits?: number;
  /** IVF partitions probed per query at least (more when a filter leaves too few). @default 60% of the partitions */
  nprobes?: number;
  /** Re-rank this many times `limit` candidates with exact distances. @default 4 */
  refineFactor?: number;
  /**
   * Bound of LanceDB's index cache. LanceDB's own default (6 GiB) lets a long-running process keep
   * the pages of every index version that compaction has replaced: at 100k memories, 600 single
   * adds took the process from 0.3 to 2.5 GB, 1.5 GB with these bounds, at no measurable search
   * cost (the live working set is ~36 MB; a 16 MiB bound tripled search latency). @default 256 MiB
   */
  indexCacheBytes?: number;
  /** Bound of LanceDB's metadata cache (manifests, file metadata). @default 64 MiB */
  metadataCacheBytes?: number;
  /**
   * Searches run at once; more wait their turn (see ConcurrencyGate). @default the machine's
   * cores + 1 (each search's two queries use every core already)
   */
  maxConcurrentSearches?: number;
  /**
   * Rows the current view may hold in memory for searching (ResidentView): while it fits, searches
   * of the current view run there (exact, ~1 ms at 10k memories), otherwise through LanceDB's
   * indexes. Pass one budget to several stores to bound them together. @default a budget of
   * DEFAULT_RESIDENT_ROWS for this store alone
   */
  residentBudget?: ResidentBudget;
  /** Old table versions (replaced files) are deleted once older than this. @default RETAIN_VERSIONS_MS (15 s) */
  retainVersionsMs?: number;
}

const MIB = 1024 * 1024;

/** The options with every default filled in (the logger and the budget are taken as given). */
export type ResolvedLanceOptions = Required<Omit<LanceStoreOptions, 'logger' | 'nprobes' | 'residentBudget'>> & { nprobes: number | null };

export function resolveOptions(options: LanceStoreOptions): ResolvedLanceOptions {
  return {
    vectorIndexMinRows: 5000,
    compactEveryCommits: 32,
    refineFactor: 4,
    indexCacheBytes: 256 * MIB,
    metadataCacheBytes: 64 * MIB,
    maxConcurrentSearches: os.availableParallelism() + 1,
    retainVersionsMs: RETAIN_VERSIONS_MS,
    ...options,
    nprobes: options.nprobes ?? null,
  };
}
