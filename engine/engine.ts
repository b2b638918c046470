/**
 * The memory engine: bitemporal versions over a MemoryStore, embeddings, hybrid search, and the
 * operations behind the /v1 memories API. No HTTP, no sockets: hosts (daemon, server) wrap it.
 */
import { currentRows, deriveHistory, planChange, planCorrection, planDelete, representative, rowsAsOf, transactions, type PlannedRow } from './bitemporal.js';
import { systemClock, type Clock } from './clock.js';
import type { ConcurrencyGate } from './concurrency-gate.js';
import { DEFAULT_MAX_CONTENT_CHARS } from './config.js';
import type { Embedder } from './embed/types.js';
import { EngineError, notFound } from './errors.js';
import { uuidv7, isUuid } from './ids.js';
import { parseImportLine } from './import-line.js';
import { silentLogger, type Logger } from './log.js';
import { exportLine, type ExportLine } from './record-json.js';
import { collapseDuplicates, fuse, type Ranked } from './search/fuse.js';
import { RELEVANCE_FLOOR, relevantCandidates, type RelevanceFloor } from './search/relevance.js';
import { mergeFilters, scopeFilter, type ScopeContext } from './search/scope.js';
import { MAX_COMPLETIONS, typedPrefix, withCompletions } from './text/complete.js';
import { matchesFilter } from './store/filter.js';
import type { MemoryStore } from './store/types.js';
import { checkMetadata, contentHash, splitBlocks } from './text/content.js';
import { redact } from './redact/redact.js';
import { redactValue } from './redact/deep.js';
import type { AsOf, Category, MemoryFilter, MemoryVersion, Metadata, Scope, Source, Space, VersionRow } from './types.js';
import { WriteQueue } from './write-queue.js';
import { replicaWriter, type ReplicaWriter } from './replica-writer.js';
import { ingest, type IngestBase, type IngestResult } from './ingest.js';
import type { Candidate } from './extract/types.js';

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

/** Rows checked and appended per store call during an import. */
const IMPORT_CHUNK = 500;
/** Seq range read per step when an import looks for version ids held by other memories. */
const SCAN_PAGE = 10_000;

function isFiniteVector(v: ArrayLike<number>): boolean {
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) return false;
  return true;
}

function importConflict(why: string, r: PlannedRow): EngineError {
  return new EngineError('CONFLICT', `${why}; nothing was imported`, { memory_id: r.memory_id, version: r.version, version_id: r.version_id });
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

/** A query embedding cache entry. */
interface CachedVector {
  model: string;
  vector: Float32Array;
}

const QUERY_CACHE_SIZE = 256;

/**
 * Besides the timer, background upkeep runs after this many commits, so a burst of single writes
 * cannot pile up fragments for a whole timer interval (the store decides whether work is due).
 */
const UPKEEP_EVERY_COMMITS = 16;

export class MemoryEngine {
  readonly store: MemoryStore;
  private readonly embedder: Embedder | null;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly maxChars: number;
  private readonly maxMetaBytes: number;
  private readonly writes: WriteQueue;
  private readonly listeners = new Set<ChangeListener>();
  private readonly purgeListeners = new Set<PurgeListener>();
  private readonly queryCache = new Map<string, CachedVector>();
  private timer: NodeJS.Timeout | null = null;
  private backlogRunning: Promise<void> | null = null;
  private upkeepRunning: Promise<void> | null = null;
  private commitsSinceUpkeep = 0;
  /** Rows were stored without a vector (no model ready, or embedding failed) since the backlog was last looked for. */
  private storedUnembedded = false;
  private lastRecordedAt = 0;
  private closed = false;

  constructor(private readonly opts: EngineOptions) {
    this.store = opts.store;
    this.embedder = opts.embedder ?? null;
    this.clock = opts.clock ?? systemClock;
    this.log = (opts.logger ?? silentLogger).child('engine');
    this.maxChars = opts.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS;
    this.maxMetaBytes = opts.maxMetadataBytes ?? 16_384;
    this.writes = new WriteQueue({
      versionsOf: (ids) => this.store.versionsOf(ids),
      maxVersions: (ids) => this.store.maxVersions(ids),
      embed: (rows) => this.embedRows(rows),
      append: async (rows) => {
        const stored = await this.store.append(rows);
        this.emit(stored);
        this.afterCommit();
        return stored;
      },
      maxBatch: 256,
    });
  }

  async open(): Promise<void> {
    await this.store.open();
    this.store.setActiveModel(this.embedder?.model ?? null);
    if (this.embedder) {
      this.embedder.onState((s) => {
        if (s.status === 'ready') this.kickBacklog();
      });
      this.embedder.warm();
    }
    if (this.opts.background !== false) {
      this.timer = setInterval(() => void this.upkeep(), this.opts.maintenanceIntervalMs ?? 15_000);
      this.timer.unref();
    }
  }

  /**
   * Let go of the store so that `open` can open it again (a store that failed after its open: the
   * open reads it whole, and its caller rebuilds it if that fails): queued writes and background
   * work finish first; the engine stays usable once `open` succeeds.
   */
  async suspend(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.writes.idle();
    await this.backlogRunning?.catch(() => {});
    await this.upkeepRunning;
    await this.store.close();
  }

  /** Drain queued writes and background work, then close the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.suspend();
    // The embedder belongs to whoever created it (it may be shared by several engines).
  }

  /** The engine clock's current time (epoch ms). */
  now(): number {
    return this.clock.now();
  }

  /**
   * Consolidate extracted candidates against existing memories: ADD, NOOP (duplicate), UPDATE
   * (refresh, or supersede the same subject's old value as a change in the world).
   */
  ingest(candidates: readonly Candidate[], base: IngestBase): Promise<IngestResult[]> {
    return ingest(this, candidates, base);
  }

  /** Subscribe to committed versions (events, sync outbox, live feeds). */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Subscribe to purges (hosts keep derived copies of content that must be erased too). */
  onPurge(listener: PurgeListener): () => void {
    this.purgeListeners.add(listener);
    return () => this.purgeListeners.delete(listener);
  }

  private emit(rows: readonly VersionRow[]): void {
    for (const l of this.listeners) {
      try {
        l(rows);
      } catch (err) {
        this.log.error('change listener failed', { err });
      }
    }
  }

  /** Transaction time for a new write: never earlier than the previous one from this engine. */
  private stamp(): number {
    const t = Math.max(this.clock.now(), this.lastRecordedAt);
    this.lastRecordedAt = t;
    return t;
  }

  // ---------------------------------------------------------------- writes

  private checkContent(content: string): string {
    if (typeof content !== 'string' || content.trim().length === 0) {
      throw new EngineError('VALIDATION', 'content must be a non-empty string', { field: 'content' });
    }
    // Every write path (API, remember, ingest) ends here: nothing reaches the store unredacted.
    return redact(content.trim()).text;
  }

  /**
   * Add a memory. Text longer than `maxContentChars` becomes several memories linked as blocks of
   * one group (never cut silently); the first row of each block is returned, in order.
   */
  async add(input: AddInput): Promise<VersionRow[]> {
    const content = this.checkContent(input.content);
    const metadata = redactValue(checkMetadata(input.metadata, this.maxMetaBytes)) as Metadata;
    if (!input.user_id) throw new EngineError('VALIDATION', 'user_id is required', { field: 'user_id' });
    if (input.memory_id !== undefined && !isUuid(input.memory_id)) throw new EngineError('VALIDATION', 'memory_id must be a UUID', { field: 'memory_id' });
    const blocks = input.parts && input.parts.length > 0 ? input.parts.map((part) => this.checkContent(part)) : splitBlocks(content, this.maxChars);
    const tooLong = blocks.find((b) => b.length > this.maxChars);
    if (tooLong !== undefined) throw new EngineError('CONTENT_TOO_LARGE', `a block is ${tooLong.length} characters; a memory block holds at most ${this.maxChars}`, { field: 'parts' });
    const groupId = blocks.length > 1 ? uuidv7() : null;
    const results = await Promise.all(
      blocks.map((text, index) =>
        this.writes.submit({
          plan: async (view) => {
            const now = this.stamp();
            const memoryId = index === 0 && input.memory_id ? input.memory_id : uuidv7(now);
            if ((await view.lastVersion(memoryId)) > 0) throw new EngineError('CONFLICT', `memory ${memoryId} already exists`, { memory_id: memoryId });
            const validFrom = input.valid_from ?? now;
            if (input.valid_to !== undefined && input.valid_to !== null && input.valid_to <= validFrom) {
              throw new EngineError('VALIDATION', 'valid_to must be after valid_from', { field: 'valid_to' });
            }
            const row: PlannedRow = {
              version_id: uuidv7(now),
              memory_id: memoryId,
              version: 1,
              tx: 1,
              content: text,
              content_hash: contentHash(text),
              user_id: input.user_id,
              agent_id: input.agent_id ?? null,
              app_id: input.app_id ?? null,
              run_id: input.run_id ?? null,
              owner_id: input.owner_id ?? null,
              space: input.space ?? 'project',
              repo: input.repo ?? null,
              dir: input.dir ?? null,
              category: input.category ?? 'note',
              metadata,
              source: input.source ?? { kind: 'api' },
              valid_from: validFrom,
              valid_to: input.valid_to ?? null,
              recorded_at: now,
              created_at: now,
              deleted: false,
              block: groupId ? { group_id: groupId, index, count: blocks.length } : null,
              vector: null,
              embed_model: null,
            };
            return [row];
          },
        }),
      ),
    );
    return results.map((rows) => rows[0]!);
  }

  /**
   * Append a new version. With `valid_from`: a change in the world (the old facts stay true before
   * it). Without: a correction of the current content for all valid time.
   */
  async update(memoryId: string, patch: PatchInput): Promise<VersionRow[]> {
    this.checkId(memoryId);
    if (patch.content !== undefined) patch = { ...patch, content: this.checkContent(patch.content) };
    if (patch.content !== undefined && patch.content.length > this.maxChars) {
      throw new EngineError('CONTENT_TOO_LARGE', `content is ${patch.content.length} characters; a memory block holds at most ${this.maxChars}. Add it as a new memory to split it into blocks.`, {
        field: 'content',
        limit: this.maxChars,
      });
    }
    const metadata = patch.metadata === undefined ? undefined : (redactValue(checkMetadata(patch.metadata, this.maxMetaBytes)) as Metadata);
    return this.writes.submit({
      plan: async (view) => {
        const last = await view.lastTx(memoryId);
        const current = last.some((r) => r.deleted) ? [] : last;
        if (current.length === 0) throw notFound('memory', memoryId);
        const now = this.stamp();
        const base = representative(current, now)!;
        const content = patch.content ?? base.content;
        const next = {
          content,
          content_hash: contentHash(content),
          user_id: base.user_id,
          agent_id: base.agent_id,
          app_id: base.app_id,
          run_id: base.run_id,
          owner_id: patch.owner_id === undefined ? base.owner_id : patch.owner_id,
          space: patch.space ?? base.space,
          repo: patch.repo === undefined ? base.repo : patch.repo,
          dir: patch.dir === undefined ? base.dir : patch.dir,
          category: patch.category ?? base.category,
          metadata: metadata ?? base.metadata,
          source: patch.source ?? { kind: 'api' as const },
          deleted: false,
          block: base.block,
          vector: patch.content === undefined || patch.content === base.content ? base.vector : null,
          embed_model: patch.content === undefined || patch.content === base.content ? base.embed_model : null,
        };
        const lastVersion = await view.lastVersion(memoryId);
        const ids = { newId: () => uuidv7(now), now, lastVersion };
        if (patch.valid_from !== undefined) {
          if (patch.valid_to !== undefined && patch.valid_to !== null && patch.valid_to <= patch.valid_from) {
            throw new EngineError('VALIDATION', 'valid_to must be after valid_from', { field: 'valid_to' });
          }
          return planChange(current, next, { ...ids, validFrom: patch.valid_from, validTo: patch.valid_to ?? null });
        }
        const rows = planCorrection(current, next, ids);
        if (patch.valid_to !== undefined) rows[0]!.valid_to = patch.valid_to;
        return rows;
      },
    });
  }

  /** Forget a memory: append a tombstone. History keeps what was believed before. */
  async delete(memoryId: string): Promise<VersionRow> {
    this.checkId(memoryId);
    const rows = await this.writes.submit({
      plan: async (view) => {
        const last = await view.lastTx(memoryId);
        if (last.length === 0 || last.some((r) => r.deleted)) throw notFound('memory', memoryId);
        const now = this.stamp();
        return planDelete(last, { newId: () => uuidv7(now), now, lastVersion: await view.lastVersion(memoryId), contentHash: contentHash('') });
      },
    });
    return rows[0]!;
  }

  /**
   * Undo a forget: append a transaction that believes again what the memory held just before its
   * tombstone (same content, valid time, fields and vector). History keeps the forget and the
   * restore. NOT_FOUND when the memory never existed or was purged; CONFLICT when it is not forgotten.
   */
  async restore(memoryId: string): Promise<VersionRow[]> {
    this.checkId(memoryId);
    return this.writes.submit({
      plan: async (view) => {
        const last = await view.lastTx(memoryId);
        if (last.length === 0) throw notFound('memory', memoryId);
        if (!last.some((r) => r.deleted)) throw new EngineError('CONFLICT', `memory ${memoryId} is not forgotten; nothing to restore`, { memory_id: memoryId });
        const txs = transactions(await this.store.versionsOf([memoryId]));
        const before = [...txs].reverse().find((tx) => !tx.some((r) => r.deleted));
        if (!before) throw notFound('memory', memoryId);
        const now = this.stamp();
        let version = await view.lastVersion(memoryId);
        const tx = version + 1;
        return before.map(({ seq: _seq, ...row }) => ({ ...row, version_id: uuidv7(now), version: ++version, tx, recorded_at: now, deleted: false }));
      },
    });
  }

  /** Erase every version of the memories (right to erasure). Returns versions removed. */
  async purge(memoryIds: readonly string[]): Promise<number> {
    for (const id of memoryIds) this.checkId(id);
    await this.writes.idle();
    const existing = await this.store.versionsOf(memoryIds);
    if (existing.length === 0) return 0;
    const ids = [...new Set(existing.map((r) => r.memory_id))];
    for (const l of this.purgeListeners) await l(ids, 'before');
    const n = await this.store.purge(memoryIds);
    this.queryCache.clear();
    for (const l of this.purgeListeners) await l(ids, 'after');
    return n;
  }

  /** Tombstone (or purge) every current memory matching the filter. Returns the memory ids. */
  async deleteWhere(filter: MemoryFilter, opts: { purge?: boolean } = {}): Promise<string[]> {
    if (Object.values(filter).every((v) => v === undefined)) {
      throw new EngineError('VALIDATION', 'bulk delete needs at least one filter', { field: 'filter' });
    }
    const ids = new Set<string>();
    let before: number | undefined;
    for (;;) {
      const page = await this.store.list(filter, { limit: 1000, beforeSeq: before });
      if (page.length === 0) break;
      for (const r of page) ids.add(r.memory_id);
      before = page[page.length - 1]!.seq;
    }
    const list = [...ids];
    if (opts.purge) {
      await this.purge(list);
    } else {
      await Promise.all(list.map((id) => this.delete(id).catch((e: unknown) => (e instanceof EngineError && e.code === 'NOT_FOUND' ? null : Promise.reject(e)))));
    }
    return list;
  }

  /**
   * Import version lines (an export, or another machine's history). Idempotent by version_id:
   * versions already present are skipped. All or nothing: every line is parsed and held to the
   * limits of every write (content per block, metadata size and depth), and every version is
   * checked against the store (a version number taken by another version, a version_id that
   * belongs to another memory) before the first row is appended, all under the write lock.
   */
  async import(
    lines: Iterable<string> | AsyncIterable<string>,
    opts: { rewrite?: (row: PlannedRow) => PlannedRow } = {},
  ): Promise<{ imported: number; skipped: number; memories: number }> {
    const rows: PlannedRow[] = [];
    let lineNo = 0;
    for await (const raw of lines as AsyncIterable<string>) {
      lineNo++;
      const text = raw.trim();
      if (text === '') continue;
      const parsed = parseImportLine(text, lineNo);
      const row = opts.rewrite ? opts.rewrite(parsed) : parsed;
      try {
        this.checkReplicaRow(row);
      } catch (err) {
        if (err instanceof EngineError) throw new EngineError(err.code, `line ${lineNo}: ${err.message}; nothing was imported`, { ...(err.details as object | undefined), line: lineNo });
        throw err;
      }
      rows.push(row);
    }
    await this.writes.idle();
    return this.writes.exclusive(async () => {
      const ids = [...new Set(rows.map((r) => r.memory_id))];
      const owner = new Map<string, string>();
      const taken = new Set<string>();
      for (let i = 0; i < ids.length; i += IMPORT_CHUNK) {
        for (const v of await this.store.versionsOf(ids.slice(i, i + IMPORT_CHUNK))) {
          owner.set(v.version_id, v.memory_id);
          taken.add(`${v.memory_id}:${v.version}`);
        }
      }
      const fresh: PlannedRow[] = [];
      let skipped = 0;
      for (const r of rows) {
        const holder = owner.get(r.version_id);
        if (holder === r.memory_id) {
          skipped++;
          continue;
        }
        if (holder !== undefined) throw importConflict(`version ${r.version_id} already belongs to memory ${holder}`, r);
        const key = `${r.memory_id}:${r.version}`;
        if (taken.has(key)) throw importConflict(`memory ${r.memory_id} already has a different version ${r.version}`, r);
        taken.add(key);
        owner.set(r.version_id, r.memory_id);
        fresh.push(r);
      }
      await this.refuseForeignVersionIds(fresh, new Set(ids));
      fresh.sort((a, b) => (a.memory_id < b.memory_id ? -1 : a.memory_id > b.memory_id ? 1 : a.version - b.version));
      for (let i = 0; i < fresh.length; i += IMPORT_CHUNK) {
        const batch = fresh.slice(i, i + IMPORT_CHUNK);
        await this.embedRows(batch.filter((r) => !r.deleted));
        this.emit(await this.store.append(batch));
      }
      this.queryCache.clear();
      return { imported: fresh.length, skipped, memories: new Set(fresh.map((r) => r.memory_id)).size };
    });
  }

  /** A version_id is the identity of one version: refuse ids already held by memories outside the import. */
  private async refuseForeignVersionIds(fresh: readonly PlannedRow[], importedMemories: ReadonlySet<string>): Promise<void> {
    if (fresh.length === 0) return;
    const wanted = new Map(fresh.map((r) => [r.version_id, r]));
    const { lastSeq } = await this.store.stats();
    for (let after = 0; after < lastSeq; after += SCAN_PAGE) {
      for (const v of await this.store.changes(after, SCAN_PAGE)) {
        const r = wanted.get(v.version_id);
        if (r && !importedMemories.has(v.memory_id)) throw importConflict(`version ${v.version_id} already belongs to memory ${v.memory_id}`, r);
      }
    }
  }

  /**
   * The limits every local write meets, for a version written on another machine (a sync push):
   * content length (tombstones carry none) and metadata size and depth. Throws EngineError.
   */
  checkReplicaRow(row: PlannedRow): void {
    if (!row.deleted && row.content.length > this.maxChars) {
      throw new EngineError('CONTENT_TOO_LARGE', `content is ${row.content.length} characters; this server holds at most ${this.maxChars} per memory block`, { field: 'content', limit: this.maxChars });
    }
    checkMetadata(row.metadata, this.maxMetaBytes);
  }

  /**
   * Replication (sync): run `fn` holding the write lock, with a writer that appends versions as
   * another replica numbered them and rewrites this store's own numbering. No other write is
   * planned or committed meanwhile, so `fn` reads and changes a memory's versions atomically with
   * respect to local writes. Change listeners hear of every row it stores.
   */
  replicate<T>(fn: (writer: ReplicaWriter) => Promise<T>): Promise<T> {
    return this.writes.exclusive(() => fn(replicaWriter({ store: this.store, embed: (rows) => this.embedRows(rows), emit: (rows) => this.emit(rows) })));
  }

  private checkId(memoryId: string): void {
    if (!isUuid(memoryId)) throw new EngineError('VALIDATION', `memory id "${memoryId}" is not a UUID`, { field: 'memory_id' });
  }

  // ---------------------------------------------------------------- embeddings

  /** Whether vectors can be made now without waiting on a download. */
  private async modelUsable(): Promise<boolean> {
    if (!this.embedder) return false;
    const s = this.embedder.state().status;
    if (s === 'ready') return true;
    if (s === 'downloading' || s === 'unavailable') return false;
    try {
      await this.embedder.ready();
      return true;
    } catch {
      return false;
    }
  }

  private async embedRows(rows: PlannedRow[]): Promise<void> {
    const need = rows.filter((r) => !r.deleted && r.content !== '' && (r.vector === null || r.embed_model !== this.embedder?.model));
    if (need.length === 0) return;
    if (!(await this.modelUsable())) {
      this.storedUnembedded = this.embedder !== null;
      return;
    }
    try {
      const vectors = await this.embedder!.embedDocuments(need.map((r) => r.content));
      need.forEach((r, i) => {
        // A vector with NaN or Infinity (a model fault on odd text) is refused by the store and
        // would poison search: keep the row without one (full-text still finds it).
        if (!isFiniteVector(vectors[i]!)) return;
        r.vector = vectors[i]!;
        r.embed_model = this.embedder!.model;
      });
    } catch (err) {
      // Store without vectors: full-text still finds them, and the backlog embeds them later.
      this.log.warn('embedding failed; stored for later embedding', { err });
      this.storedUnembedded = true;
    }
  }

  private kickBacklog(): void {
    if (this.backlogRunning || this.closed) return;
    this.backlogRunning = this.embedBacklog()
      .then(() => undefined)
      .catch((err: unknown) => this.log.warn('backlog embedding failed', { err }))
      .finally(() => (this.backlogRunning = null));
  }

  /** Embed current rows written while no model was ready (or by another model). */
  async embedBacklog(batch = 64): Promise<number> {
    if (!this.embedder || !(await this.modelUsable())) return 0;
    let done = 0;
    for (;;) {
      if (this.closed) break;
      const rows = await this.store.unembedded(this.embedder.model, batch);
      if (rows.length === 0) break;
      const vectors = await this.embedder.embedDocuments(rows.map((r) => r.content));
      const finite = rows.flatMap((r, i) => (isFiniteVector(vectors[i]!) ? [{ version_id: r.version_id, vector: vectors[i]!, model: this.embedder!.model }] : []));
      // Rows whose text embeds to a non-finite vector stay text-only; stop rather than retry them forever.
      if (finite.length === 0) break;
      await this.store.setVectors(finite);
      done += finite.length;
      if (rows.length < batch) break;
    }
    if (done > 0) this.log.info('embedded backlog', { rows: done });
    return done;
  }

  private afterCommit(): void {
    if (this.opts.background === false || this.closed) return;
    if (++this.commitsSinceUpkeep < UPKEEP_EVERY_COMMITS || this.upkeepRunning) return;
    void this.upkeep(false);
  }

  /**
   * The store's upkeep, then the backlog of rows without a vector: looked for on the timer, and
   * after commits only when this engine stored such rows (on PostgreSQL the count is a query of
   * its own, which every 16 commits cost more than the writes at 100k memories).
   */
  private upkeep(timer = true): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.upkeepRunning) return this.upkeepRunning;
    this.commitsSinceUpkeep = 0;
    this.upkeepRunning = (async () => {
      try {
        await this.store.maintain();
        if (!timer && !this.storedUnembedded) return;
        this.storedUnembedded = false;
        const s = await this.store.stats();
        if (s.unembedded > 0) this.kickBacklog();
      } catch (err) {
        this.log.warn('maintenance failed', { err });
        this.opts.onUpkeepError?.(err);
      }
    })().finally(() => (this.upkeepRunning = null));
    return this.upkeepRunning;
  }

  /** Compaction and index upkeep now (benchmarks and tests call it; the engine also runs it periodically). */
  async maintain(force = false): Promise<void> {
    await this.writes.idle();
    await this.store.maintain({ force });
  }

  /** Resolves once every write queued so far is committed. */
  async flushWrites(): Promise<void> {
    await this.writes.idle();
  }

  // ---------------------------------------------------------------- reads

  private resolveAsOf(asOf: AsOf): { valid_at: number; known_at: number; historical: boolean } {
    const now = this.clock.now();
    return { valid_at: asOf.valid_at ?? now, known_at: asOf.known_at ?? now, historical: asOf.known_at !== undefined && asOf.known_at < now };
  }

  /** One memory at (valid_at, known_at), or NOT_FOUND. */
  async get(memoryId: string, asOf: AsOf = {}): Promise<VersionRow> {
    this.checkId(memoryId);
    const t = this.resolveAsOf(asOf);
    const versions = await this.store.versionsOf([memoryId]);
    if (versions.length === 0) throw notFound('memory', memoryId);
    if (!t.historical && asOf.valid_at === undefined) {
      const cur = currentRows(versions);
      const row = representative(cur, t.valid_at);
      if (!row) throw notFound('memory', memoryId);
      return row;
    }
    const visible = rowsAsOf(versions, { valid_at: t.valid_at, known_at: t.known_at });
    if (visible.length === 0) throw notFound('memory', memoryId);
    return visible[0]!;
  }

  /** Every version of a memory, oldest first. */
  async history(memoryId: string): Promise<MemoryVersion[]> {
    this.checkId(memoryId);
    const versions = await this.store.versionsOf([memoryId]);
    if (versions.length === 0) throw notFound('memory', memoryId);
    return deriveHistory(versions);
  }

  /** Current memories matching a filter, newest first, with an opaque cursor for the next page. */
  async list(input: ListInput): Promise<{ results: VersionRow[]; next_cursor: string | null }> {
    const before = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    const validAt = input.valid_at ?? this.clock.now();
    // Fetch a little more than a page so a memory's rows are not split across pages.
    const rows = await this.store.list(input.filter, { limit: input.limit + 1, beforeSeq: before, validAt });
    const page = rows.slice(0, input.limit);
    const more = rows.length > input.limit;
    const results: VersionRow[] = [];
    const seen = new Set<string>();
    for (const r of page) {
      if (seen.has(r.memory_id)) continue;
      seen.add(r.memory_id);
      results.push(r);
    }
    const last = page[page.length - 1];
    return { results, next_cursor: more && last ? encodeCursor(last.seq) : null };
  }

  async count(filter: MemoryFilter): Promise<number> {
    return this.store.count(filter);
  }

  /** Embed a query, with a small cache (recall repeats queries). Null when no model is usable. */
  private async queryVector(query: string): Promise<{ vector: Float32Array | null; ms: number }> {
    if (!this.embedder || !(await this.modelUsable())) return { vector: null, ms: 0 };
    const key = query.slice(0, 2000);
    const hit = this.queryCache.get(key);
    if (hit && hit.model === this.embedder.model) {
      this.queryCache.delete(key);
      this.queryCache.set(key, hit);
      return { vector: hit.vector, ms: 0 };
    }
    const t0 = performance.now();
    try {
      const vector = await this.embedder.embedQuery(key);
      if (!isFiniteVector(vector)) return { vector: null, ms: performance.now() - t0 };
      this.queryCache.set(key, { model: this.embedder.model, vector });
      if (this.queryCache.size > QUERY_CACHE_SIZE) this.queryCache.delete(this.queryCache.keys().next().value!);
      return { vector, ms: performance.now() - t0 };
    } catch {
      return { vector: null, ms: performance.now() - t0 };
    }
  }

  /** The full-text query: with `prefix`, the last word's completions are added (text/complete.ts). */
  private async textQuery(query: string, prefix: boolean): Promise<string> {
    const word = prefix ? typedPrefix(query) : null;
    if (!word || !this.store.completeTerm) return query;
    return withCompletions(query, await this.store.completeTerm(word, MAX_COMPLETIONS), word);
  }

  /** Resolve scope and explicit filters into one filter. */
  searchFilter(input: Pick<SearchInput, 'scope' | 'filter' | 'user_id' | 'repo' | 'dir' | 'run_id'>): MemoryFilter {
    let filter: MemoryFilter = input.filter ?? {};
    if (input.scope) filter = mergeFilters(filter, scopeFilter(input.scope, input));
    return filter;
  }

  /** Hybrid search: vector and full text fused into one 0..1 score, duplicates collapsed. */
  async search(input: SearchInput): Promise<SearchOutput> {
    if (typeof input.query !== 'string' || input.query.trim() === '') {
      throw new EngineError('VALIDATION', 'query must be a non-empty string', { field: 'query' });
    }
    const gate = this.opts.searchGate;
    return gate ? gate.run(() => this.searchNow(input), input.signal) : this.searchNow(input);
  }

  private async searchNow(input: SearchInput): Promise<SearchOutput> {
    const topK = input.top_k ?? 5;
    const threshold = input.threshold ?? 0;
    const filter = this.searchFilter(input);
    const t = this.resolveAsOf({ valid_at: input.valid_at, known_at: input.known_at });
    const mode = input.mode ?? 'hybrid';
    const { vector, ms: embedMs } = mode === 'text' ? { vector: null, ms: 0 } : await this.queryVector(input.query);
    const t0 = performance.now();
    const vectorActive = vector !== null;
    const textActive = mode !== 'vector' || !vectorActive;
    const limit = Math.max(topK * 4, 20);
    const hits = await this.store.search({
      text: textActive ? await this.textQuery(input.query, input.prefix === true) : null,
      vector,
      model: this.embedder?.model ?? null,
      filter,
      validAt: t.valid_at,
      limit,
      knownAt: t.historical ? t.known_at : undefined,
      exact: input.exact,
      changeSeen: input.changeSeen,
    });
    let candidates = hits;
    if (t.historical) {
      // Keep only versions that were believed at known_at.
      const versions = await this.store.versionsOf([...new Set(hits.map((h) => h.row.memory_id))]);
      const visible = new Set<string>();
      const byMemory = new Map<string, VersionRow[]>();
      for (const v of versions) byMemory.set(v.memory_id, [...(byMemory.get(v.memory_id) ?? []), v]);
      for (const vs of byMemory.values()) for (const r of rowsAsOf(vs, { valid_at: t.valid_at, known_at: t.known_at })) visible.add(r.version_id);
      candidates = hits.filter((h) => visible.has(h.row.version_id));
    }
    const ranked: Ranked[] = fuse(candidates, { vectorActive, textActive, vectorWeight: this.opts.vectorWeight, query: input.query });
    // Filtering before collapsing keeps the same results: ranked is sorted, so whatever a
    // below-threshold entry could hide also scores below the threshold.
    const floor = input.relevance === true ? RELEVANCE_FLOOR : input.relevance || null;
    // The floor reads every candidate (how many hold a query term tells how common it is).
    const relevant = floor ? relevantCandidates(input.query, ranked.map((r) => ({ content: r.row.content, score: r.score, group: input.textOf ? input.textOf(r.row) : (r.row.block?.group_id ?? r.row.memory_id) })), floor) : null;
    const results = collapseDuplicates(
      ranked.filter((r, i) => r.score >= threshold && r.score > 0 && (!relevant || relevant[i])),
      topK,
    ).map((r) => ({ row: r.row, score: r.score, vectorScore: r.vectorScore }));
    return {
      results,
      mode: vectorActive && textActive ? 'hybrid' : vectorActive ? 'vector' : 'text',
      embed_ms: embedMs,
      search_ms: performance.now() - t0,
    };
  }

  // ---------------------------------------------------------------- export

  /** Every version in commit order, as export lines (lossless; vectors are recomputed on import). */
  async *exportLines(filter: MemoryFilter = {}): AsyncGenerator<ExportLine> {
    await this.writes.idle();
    const { lastSeq } = await this.store.stats();
    let after = 0;
    while (after < lastSeq) {
      const rows = await this.store.changes(after, 1000);
      for (const r of rows) if (matchesFilter(r, filter)) yield exportLine(r);
      after += 1000;
    }
  }

  async status(): Promise<EngineStatus> {
    const s = await this.store.stats();
    const memories = await this.store.count({});
    const state = this.embedder?.state() ?? { status: 'unavailable' as const, reason: 'no embedding model configured' };
    const { status, ...detail } = state;
    return {
      memories,
      versions: s.versions,
      lastSeq: s.lastSeq,
      model: { id: this.embedder?.model ?? null, state: status, ...(Object.keys(detail).length > 0 ? { detail } : {}) },
      backlog: s.unembedded,
      vectorIndex: s.vectorIndex,
      mode: state.status === 'ready' ? 'hybrid' : 'text',
    };
  }
}

export function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ s: seq })).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown };
    if (typeof v.s === 'number' && Number.isSafeInteger(v.s) && v.s > 0) return v.s;
  } catch {
    // fall through
  }
  throw new EngineError('VALIDATION', 'cursor is not valid; pass the next_cursor value of a previous page', { field: 'cursor' });
}
