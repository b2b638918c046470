/**
 * The memory engine: bitemporal versions over a MemoryStore, embeddings, hybrid search, and the
 * operations behind the /v1 memories API. No HTTP, no sockets: hosts (daemon, server) wrap it.
 */
import { currentRows, deriveHistory, representative, rowsAsOf, type PlannedRow } from './bitemporal.js';
import { systemClock, type Clock } from './clock.js';
import { DEFAULT_MAX_CONTENT_CHARS } from './config-keys/plugin.js';
import type { Embedder } from './embed/types.js';
import { embedBacklog, embedRows, queryVector } from './embedding.js';
import type { AddInput, ChangeListener, EngineOptions, EngineStatus, ListInput, PatchInput, PurgeListener, SearchInput, SearchOutput } from './engine-types.js';
import { EngineError, notFound } from './errors.js';
import { uuidv7 } from './ids.js';
import { commitImport, readImportRows } from './import-versions.js';
import { listPage } from './list-page.js';
import { silentLogger, type Logger } from './log.js';
import { QueryVectorCache } from './query-vector-cache.js';
import { exportLine, type ExportLine } from './record-json.js';
import { hybridSearch } from './search/hybrid.js';
import { mergeFilters, scopeFilter } from './search/scope.js';
import { matchesFilter } from './store/filter.js';
import type { MemoryStore } from './store/types.js';
import type { AsOf, MemoryFilter, MemoryVersion, VersionRow } from './types.js';
import { checkAdd, checkId, checkPatch, checkReplicaRow, type WriteLimits } from './write-checks.js';
import { BackgroundUpkeep } from './upkeep.js';
import { WriteQueue } from './write-queue.js';
import { planAdd, planForget, planRestore, planUpdate } from './write-plans.js';
import { replicaWriter, type ReplicaWriter } from './replica-writer.js';
import { ingest, type IngestBase, type IngestResult } from './ingest.js';
import type { Candidate } from './extract/types.js';

export class MemoryEngine {
  readonly store: MemoryStore;
  private readonly embedder: Embedder | null;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly limits: WriteLimits;
  private readonly writes: WriteQueue;
  private readonly listeners = new Set<ChangeListener>();
  private readonly purgeListeners = new Set<PurgeListener>();
  private readonly queryCache = new QueryVectorCache();
  private readonly upkeep: BackgroundUpkeep;
  private lastRecordedAt = 0;
  private closed = false;

  constructor(private readonly opts: EngineOptions) {
    this.store = opts.store;
    this.embedder = opts.embedder ?? null;
    this.clock = opts.clock ?? systemClock;
    this.log = (opts.logger ?? silentLogger).child('engine');
    this.limits = { maxChars: opts.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS, maxMetaBytes: opts.maxMetadataBytes ?? 16_384 };
    this.writes = new WriteQueue({
      versionsOf: (ids) => this.store.versionsOf(ids),
      maxVersions: (ids) => this.store.maxVersions(ids),
      embed: (rows) => this.embedRows(rows),
      append: async (rows) => {
        const stored = await this.store.append(rows);
        this.emit(stored);
        this.upkeep.afterCommit();
        return stored;
      },
      maxBatch: 256,
    });
    this.upkeep = new BackgroundUpkeep({
      store: this.store,
      log: this.log,
      background: opts.background !== false,
      closed: () => this.closed,
      embedBacklog: () => this.embedBacklog(),
      onError: (err) => this.opts.onUpkeepError?.(err),
    });
  }

  async open(): Promise<void> {
    await this.store.open();
    this.store.setActiveModel(this.embedder?.model ?? null);
    if (this.embedder) {
      this.embedder.onState((s) => {
        if (s.status === 'ready') this.upkeep.kickBacklog();
      });
      this.embedder.warm();
    }
    if (this.opts.background !== false) this.upkeep.startTimer(this.opts.maintenanceIntervalMs ?? 15_000);
  }

  /**
   * Let go of the store so that `open` can open it again (a store that failed after its open: the
   * open reads it whole, and its caller rebuilds it if that fails): queued writes and background
   * work finish first; the engine stays usable once `open` succeeds.
   */
  async suspend(): Promise<void> {
    this.upkeep.stopTimer();
    await this.writes.idle();
    await this.upkeep.idle();
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

  /**
   * Add a memory. Text longer than `maxContentChars` becomes several memories linked as blocks of
   * one group (never cut silently); the first row of each block is returned, in order.
   */
  async add(input: AddInput): Promise<VersionRow[]> {
    const { blocks, metadata } = checkAdd(input, this.limits);
    const groupId = blocks.length > 1 ? uuidv7() : null;
    const results = await Promise.all(
      blocks.map((text, index) => this.writes.submit({ plan: (view) => planAdd(view, input, { text, index, count: blocks.length, groupId, metadata }, () => this.stamp()) })),
    );
    return results.map((rows) => rows[0]!);
  }

  /**
   * Append a new version. With `valid_from`: a change in the world (the old facts stay true before
   * it). Without: a correction of the current content for all valid time.
   */
  async update(memoryId: string, patch: PatchInput): Promise<VersionRow[]> {
    checkId(memoryId);
    const checked = checkPatch(patch, this.limits);
    return this.writes.submit({ plan: (view) => planUpdate(view, memoryId, checked.patch, checked.metadata, () => this.stamp()) });
  }

  /** Forget a memory: append a tombstone. History keeps what was believed before. */
  async delete(memoryId: string): Promise<VersionRow> {
    checkId(memoryId);
    const rows = await this.writes.submit({ plan: (view) => planForget(view, memoryId, () => this.stamp()) });
    return rows[0]!;
  }

  /**
   * Undo a forget: append a transaction that believes again what the memory held just before its
   * tombstone (same content, valid time, fields and vector). History keeps the forget and the
   * restore. NOT_FOUND when the memory never existed or was purged; CONFLICT when it is not forgotten.
   */
  async restore(memoryId: string): Promise<VersionRow[]> {
    checkId(memoryId);
    return this.writes.submit({ plan: (view) => planRestore(view, this.store, memoryId, () => this.stamp()) });
  }

  /** Erase every version of the memories (right to erasure). Returns versions removed. */
  async purge(memoryIds: readonly string[]): Promise<number> {
    for (const id of memoryIds) checkId(id);
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
    const rows = await readImportRows(lines, opts.rewrite, (row) => this.checkReplicaRow(row));
    await this.writes.idle();
    return this.writes.exclusive(async () => {
      const result = await commitImport(rows, { store: this.store, embed: (batch) => this.embedRows(batch), emit: (stored) => this.emit(stored) });
      this.queryCache.clear();
      return result;
    });
  }

  /**
   * The limits every local write meets, for a version written on another machine (a sync push):
   * content length (tombstones carry none) and metadata size and depth. Throws EngineError.
   */
  checkReplicaRow(row: PlannedRow): void {
    checkReplicaRow(row, this.limits);
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

  // ---------------------------------------------------------------- embeddings and upkeep

  private async embedRows(rows: PlannedRow[]): Promise<void> {
    if (await embedRows(this.embedder, rows, this.log)) this.upkeep.markUnembedded();
  }

  /** Embed current rows written while no model was ready (or by another model). */
  async embedBacklog(batch = 64): Promise<number> {
    return embedBacklog(this.embedder, this.store, batch, () => this.closed, this.log);
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
    checkId(memoryId);
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
    checkId(memoryId);
    const versions = await this.store.versionsOf([memoryId]);
    if (versions.length === 0) throw notFound('memory', memoryId);
    return deriveHistory(versions);
  }

  /** Current memories matching a filter, newest first, with an opaque cursor for the next page. */
  async list(input: ListInput): Promise<{ results: VersionRow[]; next_cursor: string | null }> {
    return listPage(this.store, this.clock, input);
  }

  async count(filter: MemoryFilter): Promise<number> {
    return this.store.count(filter);
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
    const filter = this.searchFilter(input);
    const t = this.resolveAsOf({ valid_at: input.valid_at, known_at: input.known_at });
    return hybridSearch(input, filter, t, {
      store: this.store,
      model: this.embedder?.model ?? null,
      vectorWeight: this.opts.vectorWeight,
      // A small cache: recall repeats queries.
      queryVector: (query) => queryVector(this.embedder, this.queryCache, query),
    });
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
