/**
 * MemoryStore on LanceDB. Two tables (schemas in lance-rows.ts):
 * - `versions`: every version ever written, append-only (purge is the only removal), without
 *   vectors: the source of truth holds what an export holds.
 * - `current`: the current view (rows of each memory's last transaction), kept in step with every
 *   append, with each row's float16 vector and the row as one payload column. It is derived data:
 *   a crash between the two writes is repaired on open by replaying the versions past the last seq
 *   the view is known to include (`current.json`); a repaired row without a vector is embedded in
 *   the background like any backlog.
 *
 * Scalar indexes exist from the start. While the view is held in memory (ResidentView) searches of
 * it run there, and it has no search index; otherwise the full-text (BM25) index over
 * `search_terms` exists from its first row and an IVF_RQ vector index is built in the background
 * once it is large. A memory is findable as soon as its append returns: rows outside the vector
 * index are searched flat, and current rows outside the full-text index (the "tail") are scored
 * by exact BM25 against the view's term statistics (lance-tail.ts). `maintain()` compacts
 * fragments and folds new rows into the indexes so that many single appends do not degrade
 * search. Searches of the past score the log's text here (lance-past.ts).
 *
 * An in-memory catalog (lance-catalog.ts) answers the write path's "which version is next" and
 * lets reads of the current view skip clauses that cannot exclude anything.
 */
import fs from 'node:fs';
import type * as lancedb from '@lancedb/lancedb';
import type { PlannedRow } from '../bitemporal.js';
import { ConcurrencyGate } from '../concurrency-gate.js';
import { silentLogger, type Logger } from '../log.js';
import type { MemoryFilter, VersionRow } from '../types.js';
import { TERMS_FORMAT } from '../text/tokenize.js';
import { Catalog, CATALOG_COLUMNS, catalogColumns } from './lance-catalog.js';
import { tableDiagnostics, type LanceDiagnostics } from './lance-diagnostics.js';
import { filterClauses, sqlNumber, sqlString, validityClause, whereOf } from './lance-filter.js';
import { followAppend, followRewrite, type CurrentChange } from './lance-follow.js';
import { FTS_COLUMN, VECTOR_INDEX_TYPE, vectorIndexPlan } from './lance-indexes.js';
import { readMarker, writeMarker } from './lance-marker.js';
import { moveVectorsOutOfLog } from './lance-migrate.js';
import { resolveOptions, type LanceStoreOptions, type ResolvedLanceOptions } from './lance-options.js';
import { countMemories, IN_CHUNK, logRows, readRows, viewPage, viewRowsOf } from './lance-reads.js';
import { repairView } from './lance-repair.js';
import { retermTables } from './lance-reterm.js';
import { HeldView } from './lance-resident.js';
import { groupBy, toLogRecord, type LanceRecord } from './lance-rows.js';
import { loadLanceRuntime } from './lance-runtime.js';
import { searchPast } from './lance-search-past.js';
import { LanceTables } from './lance-tables.js';
import { EMBEDDED, type UpkeepDeps, type UpkeepState } from './lance-upkeep.js';
import { UpkeepSchedule } from './lance-upkeep-schedule.js';
import { viewVectors, withVectors } from './lance-vectors.js';
import { CurrentView } from './lance-view.js';
import { DEFAULT_RESIDENT_ROWS, ResidentBudget } from './resident-budget.js';
import type { MaintenanceReport, MemoryStore, StoreHit, StoreSearch, StoreStats, VectorUpdate } from './types.js';
import { VectorScan } from './vector-scan.js';

export class LanceStore implements MemoryStore {
  readonly kind = 'lance' as const;
  /** The connection and the two tables' handles (null fields while closed). */
  private readonly handles: LanceTables;
  private readonly catalog = new Catalog();
  private seq = 0;
  private writeChain: Promise<unknown> = Promise.resolve();
  private readonly upkeep: UpkeepState = { currentCommits: 0, versionCommits: 0, rowsSinceIndex: 0, vectorIndex: null, currentOptimizedAt: Date.now(), versionsOptimizedAt: Date.now() };
  /** The version log still holds vectors (an older build wrote it); open() migrates it. */
  private legacyLog = false;
  /** The format of the stored full-text terms (lance-reterm.ts): TERMS_FORMAT once open() brought them to it. */
  private termsFormat = TERMS_FORMAT;
  /** Memories whose current rows an append in progress is replacing (count() corrects for them too). */
  private inflight: string[] = [];
  private readonly log: Logger;
  private readonly opts: ResolvedLanceOptions;
  /** The current view as searches see it (in memory or through its indexes), and its writes. */
  private readonly view: CurrentView;
  /** When upkeep runs (one pass at a time, and the passes that delete what compaction replaced). */
  private readonly schedule: UpkeepSchedule;
  /** Searches running at once (see ConcurrencyGate); exposed for tests. */
  readonly searches: ConcurrencyGate;

  constructor(options: LanceStoreOptions) {
    this.log = (options.logger ?? silentLogger).child('lance');
    this.opts = resolveOptions(options);
    this.handles = new LanceTables({ ...this.opts, log: this.log });
    this.schedule = new UpkeepSchedule(this.upkeep, { deps: () => this.upkeepDeps(), isOpen: () => this.handles.versions !== null, log: this.log });
    this.searches = new ConcurrencyGate(this.opts.maxConcurrentSearches);
    const scan = new VectorScan(options.dim, (reason) => this.log.warn('vector scans run in JavaScript', { reason }));
    const held = new HeldView(options.residentBudget ?? new ResidentBudget(DEFAULT_RESIDENT_ROWS), scan, options.dim, this.log);
    const host = { tables: () => this.tables(), isOpen: () => this.handles.versions !== null, upkeep: this.upkeep, saveMarker: () => this.saveMarker(), schedulePrune: () => this.schedule.schedulePrune(), opts: this.opts, log: this.log };
    this.view = new CurrentView(host, held);
  }

  async open(): Promise<void> {
    fs.mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    await loadLanceRuntime();
    const { rebuild, legacyLog } = await this.handles.open();
    // A log written before vectors moved out of it: the view is rebuilt from its vectors first.
    this.legacyLog = legacyLog;
    const { versions, current } = this.tables();
    await this.loadCatalog();
    const scanned = this.seq;
    const { seq: marker, vectorIndex, terms: termsAt } = readMarker(this.opts.dir);
    this.termsFormat = termsAt ?? 1;
    // Never reuse a seq, even when the newest versions were purged.
    this.seq = Math.max(scanned, marker);
    const vi = (await current.listIndices()).find((i) => i.columns.includes('vector'));
    if (vi) {
      // The plan is recorded when the index is built; a store from before that gets an estimate.
      const plan = vectorIndex ?? vectorIndexPlan(await current.countRows(EMBEDDED));
      this.upkeep.vectorIndex = { ...plan, stale: vi.indexType !== VECTOR_INDEX_TYPE };
    }
    if (rebuild || marker < scanned) await this.repairCurrent(rebuild ? 0 : marker);
    if (this.legacyLog) {
      // Only once the view holds the vectors of every current row.
      await moveVectorsOutOfLog(versions, this.log);
      this.legacyLog = false;
    }
    if (this.termsFormat !== TERMS_FORMAT) {
      // Rows the index no longer covers are folded back in by indexesAtOpen below.
      await retermTables(versions, current, this.log);
      this.termsFormat = TERMS_FORMAT;
      this.saveMarker();
    }
    // A rebuilt view was written in many small commits: compact it before the first read.
    if (rebuild && (await current.countRows()) > 0) await current.optimize({ cleanupOlderThan: new Date() });
    await this.view.tail.rebuildStats(current);
    await this.view.load();
    // The log keeps no full-text index (lance-past.ts); older builds made one.
    const logFts = (await versions.listIndices()).find((i) => i.columns.includes(FTS_COLUMN));
    if (logFts) await versions.dropIndex(logFts.name);
    await this.view.indexesAtOpen(current, (await current.listIndices()).find((i) => i.columns.includes(FTS_COLUMN)));
  }

  /** Rows of the current view held in memory for searching (null: searched through LanceDB's indexes). */
  residentRows(): number | null {
    return this.view.resident?.size ?? null;
  }

  /** Rebuild the catalog and the last seq from the version log. */
  private async loadCatalog(): Promise<void> {
    const t = await this.handles.versions!.query().select([...CATALOG_COLUMNS, 'seq']).toArrow();
    const seq = t.getChild('seq')!;
    this.seq = 0;
    for (let i = 0; i < t.numRows; i++) this.seq = Math.max(this.seq, Number(seq.get(i)));
    this.catalog.load(catalogColumns(t));
  }

  private saveMarker(): void {
    writeMarker(this.opts.dir, { seq: this.seq, vectorIndex: this.upkeep.vectorIndex, terms: this.termsFormat });
  }

  /** Recompute the current view of every memory with versions after `afterSeq` (repairView, lance-repair.ts). */
  private async repairCurrent(afterSeq: number): Promise<void> {
    await repairView(this.handles.versions!, this.handles.current!, afterSeq, { dim: this.opts.dim, legacyLog: this.legacyLog, log: this.log });
    this.saveMarker();
  }

  async close(): Promise<void> {
    await this.writeChain.catch(() => {});
    await this.schedule.stop();
    await this.view.close();
    this.handles.close();
  }

  private tables(): { versions: lancedb.Table; current: lancedb.Table } {
    return this.handles.tables();
  }

  /** Run `fn` after every earlier write (one writer at a time). */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writeChain.then(fn, fn);
    this.writeChain = run.catch(() => {});
    return run;
  }

  append(rows: readonly PlannedRow[]): Promise<VersionRow[]> {
    return this.exclusive(async () => {
      const { versions } = this.tables();
      if (rows.length === 0) return [];
      const stored = await this.storeVersions(rows, (records) => versions.add(records));
      // Work out each touched memory's new current rows.
      const byMemory = groupBy(stored);
      return this.followVersions(stored, byMemory.map((b) => b[0]!.memory_id), () => followAppend(byMemory, stored, this.catalog, (ids) => this.versionsOf(ids)));
    });
  }

  /** Give `rows` the next seqs and write them to the version log with `write` (seqs are given back on failure). */
  private async storeVersions(rows: readonly PlannedRow[], write: (records: LanceRecord[]) => Promise<unknown>): Promise<VersionRow[]> {
    const stored: VersionRow[] = rows.map((r) => ({ ...r, seq: ++this.seq }));
    try {
      await write(stored.map((r) => toLogRecord(r)));
    } catch (err) {
      this.seq -= stored.length;
      throw err;
    }
    return stored;
  }

  /**
   * Bring the current view in step with versions just stored: `plan` says which memories' current
   * rows go and which rows come (count() treats `memoryIds` as in flight meanwhile).
   */
  private async followVersions(stored: VersionRow[], memoryIds: string[], plan: () => Promise<CurrentChange>): Promise<VersionRow[]> {
    this.inflight = memoryIds;
    try {
      const { replace, fresh } = await plan();
      await this.replaceCurrent(replace, fresh);
    } finally {
      this.inflight = [];
    }
    this.upkeep.versionCommits++;
    this.upkeep.rowsSinceIndex += stored.length;
    this.saveMarker();
    return stored;
  }

  /** Delete the current rows of `replace` and add `fresh` (the write lock is held). */
  private async replaceCurrent(replace: readonly string[], fresh: readonly VersionRow[]): Promise<void> {
    await this.view.replace(replace, fresh);
  }

  async maxVersions(memoryIds: readonly string[]): Promise<Map<string, number>> {
    this.tables();
    const out = new Map<string, number>();
    for (const id of memoryIds) {
      const e = this.catalog.get(id);
      if (e) out.set(id, e.maxVersion);
    }
    return out;
  }

  /**
   * Every version of these memories. Versions that are current carry the current view's vector;
   * superseded versions none (the log keeps no vectors).
   */
  async versionsOf(memoryIds: readonly string[]): Promise<VersionRow[]> {
    const rows = await logRows(this.tables().versions, memoryIds, false, this.legacyLog);
    const live = [...new Set(rows.map((r) => r.memory_id))].filter((id) => this.catalog.get(id)?.deleted === false);
    if (live.length === 0) return rows;
    return withVectors(rows, await viewVectors(this.tables().current, live));
  }

  async currentOf(memoryIds: readonly string[]): Promise<VersionRow[]> {
    return viewRowsOf(this.tables().current, memoryIds);
  }

  /** Conditions of a read of the current view valid at `validAt` (only the halves that can exclude rows). */
  private currentClauses(filter: MemoryFilter, validAt: number | undefined): string[] {
    const parts = filterClauses(filter);
    if (validAt !== undefined) {
      const v = validityClause(validAt, this.catalog.validityNeeds(validAt));
      if (v) parts.push(v);
    }
    return parts;
  }

  async list(filter: MemoryFilter, opts: { limit: number; beforeSeq?: number; validAt?: number }): Promise<VersionRow[]> {
    const { current } = this.tables();
    const parts = this.currentClauses(filter, opts.validAt);
    if (opts.beforeSeq !== undefined) parts.push(`seq < ${sqlNumber(opts.beforeSeq)}`);
    return viewPage(current, whereOf(parts), opts.limit);
  }

  /**
   * Distinct memories matching the filter: a row count (answered from indexes), less the extra
   * rows of memories with several current rows, which the catalog knows.
   */
  async count(filter: MemoryFilter): Promise<number> {
    const { current } = this.tables();
    return countMemories(current, whereOf(filterClauses(filter)), () => [...new Set([...this.catalog.multiRow(), ...this.inflight])]);
  }

  async completeTerm(prefix: string, limit: number): Promise<string[]> {
    return this.view.tail.complete(prefix, limit);
  }

  async search(req: StoreSearch): Promise<StoreHit[]> {
    this.tables();
    if (this.view.resident && req.knownAt === undefined) {
      return await this.view.resident.search(req);
    }
    return await this.searches.run(() => (req.knownAt === undefined ? this.searchView(req) : searchPast(this.tables().versions, req, req.knownAt, (r) => this.searchView(r))));
  }

  /** A search of the current view: in memory while it is held there, else through LanceDB's indexes. */
  private async searchView(req: StoreSearch): Promise<StoreHit[]> {
    return this.view.search(req, () => this.currentClauses(req.filter, req.validAt));
  }

  async changes(afterSeq: number, limit: number): Promise<VersionRow[]> {
    const { versions } = this.tables();
    const rows = await readRows('log', versions, `seq > ${sqlNumber(afterSeq)} AND seq <= ${sqlNumber(afterSeq + limit)}`, { withVector: true, legacyLog: this.legacyLog });
    return rows.sort((a, b) => a.seq - b.seq);
  }

  purge(memoryIds: readonly string[]): Promise<number> {
    return this.exclusive(async () => {
      const { versions, current } = this.tables();
      const ids = [...new Set(memoryIds)];
      let removed = 0;
      for (let i = 0; i < ids.length; i += IN_CHUNK) {
        const inList = `memory_id IN (${ids.slice(i, i + IN_CHUNK).map(sqlString).join(', ')})`;
        removed += await versions.countRows(inList);
        await versions.delete(inList);
        await current.delete(inList);
        this.view.resident?.removeMemories(ids.slice(i, i + IN_CHUNK));
      }
      await this.view.fit();
      for (const id of ids) this.catalog.delete(id);
      this.view.tail.drop(ids);
      if (removed > 0) {
        await this.view.eraseFromDisk();
        await this.view.tail.rebuildStats(this.handles.current!);
      }
      return removed;
    });
  }

  async unembedded(model: string, limit: number): Promise<VersionRow[]> {
    const { current } = this.tables();
    return readRows('view', current, `embed_model IS NULL OR embed_model <> ${sqlString(model)}`, { limit });
  }

  setVectors(updates: readonly VectorUpdate[]): Promise<void> {
    return this.exclusive(() => this.view.setVectors(updates));
  }

  setActiveModel(model: string | null): void {
    this.view.setActiveModel(model);
    // Learn soon whether every row has this model's vector, so searches can drop the model clause
    // (a scan of embed_model per query) without waiting for the first stats().
    if (model && this.handles.current) this.view.countUnembedded().catch(() => {});
  }

  async stats(): Promise<StoreStats> {
    const { versions, current } = this.tables();
    const [v, c] = await Promise.all([versions.countRows(), current.countRows()]);
    const unembedded = await this.view.countUnembedded();
    return { versions: v, current: c, unembedded, lastSeq: this.seq, vectorIndex: this.upkeep.vectorIndex !== null, unindexed: this.upkeep.rowsSinceIndex };
  }

  /** Rows, fragments and unindexed rows per index of both tables. */
  async diagnostics(): Promise<LanceDiagnostics[]> {
    const { versions, current } = this.tables();
    return [await tableDiagnostics('versions', versions), await tableDiagnostics('current', current)];
  }

  /** Resolves once no maintenance is running (it does not start any). */
  async maintenanceIdle(): Promise<void> {
    await this.schedule.idle();
  }

  /**
   * Run upkeep now. A call while upkeep is running joins it; a forced call waits for it and then
   * runs its own forced pass (the running one may have skipped work that was not yet due).
   */
  maintain(opts: { force?: boolean } = {}): Promise<MaintenanceReport> {
    return this.schedule.maintain(opts);
  }

  /** What an upkeep pass works with (see UpkeepDeps). */
  private upkeepDeps(): UpkeepDeps {
    return {
      tables: () => this.tables(),
      exclusive: <T>(fn: () => Promise<T>) => this.exclusive(fn),
      saveMarker: () => this.saveMarker(),
      textBacklogDue: () => this.view.tail.due,
      optimized: async (table: 'current' | 'versions') => {
        if (table !== 'current') return;
        this.view.tail.clear();
        await this.view.tail.rebuildStats(this.handles.current!);
      },
      reconnect: (always: boolean) =>
        always || this.handles.reconnectDue()
          ? this.handles.reconnect((old, fresh) => this.view.carry(old, fresh))
          : Promise.resolve(),
      log: this.log,
      compactEveryCommits: this.opts.compactEveryCommits,
      vectorIndexMinRows: this.opts.vectorIndexMinRows,
      retainVersionsMs: this.opts.retainVersionsMs,
      viewInMemory: () => this.view.resident !== null,
    };
  }

  // ---------------------------------------------------------------- replication (sync)

  /**
   * Replace versions in place of their `version_id` (see MemoryStore.rewrite). The versions table
   * changes in one commit (merge-insert on version_id); the current view follows, and a crash
   * between the two is repaired on open like after an append (the new seqs are past the marker).
   */
  rewrite(rows: readonly PlannedRow[]): Promise<VersionRow[]> {
    return this.exclusive(async () => {
      const { versions } = this.tables();
      if (rows.length === 0) return [];
      const stored = await this.storeVersions(rows, (records) =>
        versions
          .mergeInsert('version_id')
          .whenMatchedUpdateAll()
          .execute(records as unknown as Record<string, unknown>[]),
      );
      const ids = [...new Set(stored.map((r) => r.memory_id))];
      return this.followVersions(stored, ids, () => followRewrite(ids, stored, this.catalog, (memoryIds) => this.versionsOf(memoryIds)));
    });
  }
}
