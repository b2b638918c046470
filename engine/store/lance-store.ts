/**
 * MemoryStore on LanceDB. Two tables with one schema:
 * - `versions`: every version ever written, append-only (purge is the only removal).
 * - `current`: the current view (rows of each memory's last transaction), kept in step with every
 *   append. It is derived data: a crash between the two writes is repaired on open by replaying
 *   the versions past the last seq the view is known to include (`current.json`).
 *
 * Full-text (BM25) and scalar indexes exist from the start; an IVF_RQ vector index is built in the
 * background once the current view is large. Unindexed rows are still searched (flat), so a
 * memory is findable as soon as its append returns; `maintain()` compacts fragments and folds new
 * rows into the indexes so that many single appends do not degrade search.
 *
 * An in-memory catalog (lance-catalog.ts) answers the write path's "which version is next" and
 * lets reads of the current view skip clauses that cannot exclude anything.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { currentRows, type PlannedRow } from '../bitemporal.js';
import { EngineError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import type { MemoryFilter, VersionRow } from '../types.js';
import { Catalog } from './lance-catalog.js';
import { filterClauses, sqlNumber, sqlString, validAtClause, validityClause, whereOf } from './lance-filter.js';
import { ensureIndexes, FTS_OPTIONS, minimumProbes, VECTOR_INDEX_TYPE, vectorIndex, vectorIndexPlan, type VectorIndexPlan } from './lance-indexes.js';
import { fromRecord, lanceSchema, ROW_COLUMNS, toRecord, type LanceRecord } from './lance-rows.js';
import { searchChannels } from './lance-search.js';
import type { MaintenanceReport, MemoryStore, StoreHit, StoreSearch, StoreStats, VectorUpdate } from './types.js';

/** Physical state of the two tables (benchmarks and status pages). */
export interface LanceDiagnostics {
  table: 'versions' | 'current';
  rows: number;
  fragments: number;
  /** Rows each index (by column) does not cover yet (searched flat until the next maintenance). */
  unindexed: Record<string, number>;
  /** Index type by column (LanceDB's names: BTree, Bitmap, FTS, IvfPq…). */
  indexTypes: Record<string, string>;
}

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
}

const MARKER = 'current.json';
/** Rows with a vector: `embed_model` is set exactly when `vector` is (toRecord), and is far cheaper to read. */
const EMBEDDED = 'embed_model IS NOT NULL';
const IN_CHUNK = 500;

export class LanceStore implements MemoryStore {
  readonly kind = 'lance' as const;
  private db: lancedb.Connection | null = null;
  private versionsTbl: lancedb.Table | null = null;
  private currentTbl: lancedb.Table | null = null;
  private readonly catalog = new Catalog();
  private seq = 0;
  private writeChain: Promise<unknown> = Promise.resolve();
  private maintaining: Promise<MaintenanceReport> | null = null;
  /** Commits to each table since it was last optimized (each leaves a fragment or a deletion file). */
  private currentCommits = 0;
  private versionCommits = 0;
  private rowsSinceIndex = 0;
  /** The current view's vector index, or null; `stale` when it is of a kind this store no longer builds. */
  private vectorIndex: (VectorIndexPlan & { stale: boolean }) | null = null;
  private activeModel: string | null = null;
  /** Memories whose current rows an append in progress is replacing (count() corrects for them too). */
  private inflight: string[] = [];
  /** Whether any current row may lack a vector of the active model (skip the model filter when not). */
  private mixedVectors = true;
  private readonly log: Logger;
  private readonly opts: Required<Omit<LanceStoreOptions, 'logger' | 'nprobes'>> & { nprobes: number | null };

  constructor(options: LanceStoreOptions) {
    this.log = (options.logger ?? silentLogger).child('lance');
    this.opts = {
      vectorIndexMinRows: 5000,
      compactEveryCommits: 32,
      refineFactor: 4,
      ...options,
      nprobes: options.nprobes ?? null,
    };
  }

  async open(): Promise<void> {
    fs.mkdirSync(this.opts.dir, { recursive: true });
    this.db = await lancedb.connect(this.opts.dir);
    const names = await this.db.tableNames();
    this.versionsTbl = names.includes('versions') ? await this.db.openTable('versions') : await this.createTable('versions');
    let rebuild = false;
    if (names.includes('current')) {
      this.currentTbl = await this.db.openTable('current');
      const dim = await vectorDim(this.currentTbl);
      if (dim !== this.opts.dim) {
        this.log.info('embedding dimension changed; rebuilding the current view', { from: dim, to: this.opts.dim });
        await this.db.dropTable('current');
        this.currentTbl = await this.createTable('current');
        rebuild = true;
      }
    } else {
      this.currentTbl = await this.createTable('current');
      rebuild = true;
    }
    for (const tbl of [this.versionsTbl, this.currentTbl]) {
      const added = await ensureIndexes(tbl);
      if (added.length > 0) this.log.info('added indexes', { table: tbl.name, columns: added });
    }
    await this.loadCatalog();
    const scanned = this.seq;
    const { seq: marker, vectorIndex } = this.readMarker();
    // Never reuse a seq, even when the newest versions were purged.
    this.seq = Math.max(scanned, marker);
    if (rebuild || marker < scanned) await this.repairCurrent(rebuild ? 0 : marker);
    const indices = await this.currentTbl.listIndices();
    const vi = indices.find((i) => i.columns.includes('vector'));
    if (vi) {
      // The plan is recorded when the index is built; a store from before that gets an estimate.
      const plan = vectorIndex ?? vectorIndexPlan(await this.currentTbl.countRows(EMBEDDED));
      this.vectorIndex = { ...plan, stale: vi.indexType !== VECTOR_INDEX_TYPE };
    }
  }

  private async createTable(name: string): Promise<lancedb.Table> {
    const tbl = await this.db!.createEmptyTable(name, lanceSchema(this.opts.dim), { mode: 'overwrite' });
    await ensureIndexes(tbl);
    return tbl;
  }

  /** Rebuild the catalog and the last seq from the version log, reading columns, not row objects. */
  private async loadCatalog(): Promise<void> {
    const t = await this.versionsTbl!.query().select(['memory_id', 'version', 'tx', 'seq', 'deleted', 'valid_from', 'valid_to']).toArrow();
    // Every column exists: the schema is fixed (lanceSchema).
    const col = (name: string): { get(i: number): unknown; isValid(i: number): boolean } => t.getChild(name)!;
    const [memoryId, version, tx, seq, deleted, validFrom, validTo] = [col('memory_id'), col('version'), col('tx'), col('seq'), col('deleted'), col('valid_from'), col('valid_to')];
    this.seq = 0;
    for (let i = 0; i < t.numRows; i++) this.seq = Math.max(this.seq, Number(seq.get(i)));
    this.catalog.load({
      length: t.numRows,
      memoryId: (i) => String(memoryId.get(i)),
      version: (i) => Number(version.get(i)),
      tx: (i) => Number(tx.get(i)),
      deleted: (i) => Boolean(deleted.get(i)),
      validFrom: (i) => Number(validFrom.get(i)),
      hasValidTo: (i) => validTo.isValid(i),
    });
  }

  /** The marker file: the last seq the current view includes, and the vector index's plan. */
  private readMarker(): { seq: number; vectorIndex: VectorIndexPlan | null } {
    try {
      const v = JSON.parse(fs.readFileSync(path.join(this.opts.dir, MARKER), 'utf8')) as { seq?: unknown; vectorIndex?: { rows?: unknown; partitions?: unknown } };
      const vi = v.vectorIndex;
      return {
        seq: typeof v.seq === 'number' ? v.seq : 0,
        vectorIndex: vi && typeof vi.rows === 'number' && typeof vi.partitions === 'number' ? { rows: vi.rows, partitions: vi.partitions } : null,
      };
    } catch {
      return { seq: 0, vectorIndex: null };
    }
  }

  private writeMarker(): void {
    const file = path.join(this.opts.dir, MARKER);
    const vectorIndex = this.vectorIndex ? { rows: this.vectorIndex.rows, partitions: this.vectorIndex.partitions } : undefined;
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ seq: this.seq, vectorIndex }));
    fs.renameSync(`${file}.tmp`, file);
  }

  /** Recompute the current view of every memory with versions after `afterSeq`. */
  private async repairCurrent(afterSeq: number): Promise<void> {
    const rows = await this.versionsTbl!.query().where(`seq > ${sqlNumber(afterSeq)}`).select(['memory_id']).toArray();
    const ids = [...new Set((rows as LanceRecord[]).map((r) => String(r.memory_id)))];
    this.log.info('repairing the current view', { afterSeq, memories: ids.length });
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const chunk = ids.slice(i, i + IN_CHUNK);
      const versions = await this.versionsOf(chunk);
      await this.currentTbl!.delete(`memory_id IN (${chunk.map(sqlString).join(', ')})`);
      const cur = groupBy(versions).flatMap((vs) => currentRows(vs));
      if (cur.length > 0) await this.currentTbl!.add(cur.map((r) => toRecord(r, this.opts.dim)));
    }
    this.writeMarker();
  }

  async close(): Promise<void> {
    await this.writeChain.catch(() => {});
    await this.maintaining?.catch(() => {});
    this.versionsTbl?.close();
    this.currentTbl?.close();
    this.db?.close();
    this.versionsTbl = this.currentTbl = null;
    this.db = null;
  }

  private tables(): { versions: lancedb.Table; current: lancedb.Table } {
    if (!this.versionsTbl || !this.currentTbl) throw new EngineError('STORE_CLOSED', 'the store is closed');
    return { versions: this.versionsTbl, current: this.currentTbl };
  }

  /** Run `fn` after every earlier write (one writer at a time). */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writeChain.then(fn, fn);
    this.writeChain = run.catch(() => {});
    return run;
  }

  append(rows: readonly PlannedRow[]): Promise<VersionRow[]> {
    return this.exclusive(async () => {
      const { versions, current } = this.tables();
      if (rows.length === 0) return [];
      const stored: VersionRow[] = rows.map((r) => ({ ...r, seq: ++this.seq }));
      try {
        await versions.add(stored.map((r) => toRecord(r, this.opts.dim)));
      } catch (err) {
        this.seq -= stored.length;
        throw err;
      }
      // Work out each touched memory's new current rows.
      const byMemory = groupBy(stored);
      this.inflight = byMemory.map((b) => b[0]!.memory_id);
      try {
        const replace: string[] = [];
        const fresh: VersionRow[] = [];
        const reread: string[] = [];
        for (const batch of byMemory) {
          const id = batch[0]!.memory_id;
          const known = this.catalog.get(id);
          const minVersion = Math.min(...batch.map((r) => r.version));
          if (known && minVersion <= known.maxVersion) {
            reread.push(id);
            continue;
          }
          if (known && !known.deleted) replace.push(id);
          fresh.push(...currentRows(batch));
          this.catalog.update(id, batch);
        }
        if (reread.length > 0) {
          const all = await this.versionsOf(reread);
          for (const vs of groupBy(all)) {
            this.catalog.update(vs[0]!.memory_id, vs);
            fresh.push(...currentRows(vs));
          }
          replace.push(...reread);
        }
        for (let i = 0; i < replace.length; i += IN_CHUNK) {
          await current.delete(`memory_id IN (${replace.slice(i, i + IN_CHUNK).map(sqlString).join(', ')})`);
          this.currentCommits++;
        }
        if (fresh.length > 0) {
          await current.add(fresh.map((r) => toRecord(r, this.opts.dim)));
          this.currentCommits++;
          if (fresh.some((r) => !r.vector || r.embed_model !== this.activeModel)) this.mixedVectors = true;
        }
      } finally {
        this.inflight = [];
      }
      this.versionCommits++;
      this.rowsSinceIndex += stored.length;
      this.writeMarker();
      return stored;
    });
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

  private async readRows(tbl: lancedb.Table, where: string | undefined, withVector = false, limit?: number): Promise<VersionRow[]> {
    let q = tbl.query().select(withVector ? [...ROW_COLUMNS, 'vector'] : ROW_COLUMNS);
    if (where) q = q.where(where);
    if (limit !== undefined) q = q.limit(limit);
    return ((await q.toArray()) as LanceRecord[]).map(fromRecord);
  }

  async versionsOf(memoryIds: readonly string[]): Promise<VersionRow[]> {
    const { versions } = this.tables();
    const ids = [...new Set(memoryIds)];
    const out: VersionRow[] = [];
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      out.push(...(await this.readRows(versions, `memory_id IN (${ids.slice(i, i + IN_CHUNK).map(sqlString).join(', ')})`, true)));
    }
    return out.sort((a, b) => (a.memory_id < b.memory_id ? -1 : a.memory_id > b.memory_id ? 1 : a.version - b.version));
  }

  async currentOf(memoryIds: readonly string[]): Promise<VersionRow[]> {
    const { current } = this.tables();
    const ids = [...new Set(memoryIds)];
    const out: VersionRow[] = [];
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      out.push(...(await this.readRows(current, `memory_id IN (${ids.slice(i, i + IN_CHUNK).map(sqlString).join(', ')})`, true)));
    }
    return out;
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
    // Find the page by seq alone (a top-k over one column), then read those rows: ordering whole
    // rows would read every column of every matching row.
    let q = current.query().select(['seq']).orderBy({ columnName: 'seq', ascending: false }).limit(opts.limit);
    const where = whereOf(parts);
    if (where) q = q.where(where);
    const seqs = ((await q.toArray()) as LanceRecord[]).map((r) => Number(r.seq));
    if (seqs.length === 0) return [];
    const rows = await this.readRows(current, `seq IN (${seqs.map(sqlNumber).join(', ')})`);
    return rows.sort((a, b) => b.seq - a.seq);
  }

  /**
   * Distinct memories matching the filter: a row count (answered from indexes), less the extra
   * rows of memories with several current rows, which the catalog knows.
   */
  async count(filter: MemoryFilter): Promise<number> {
    const { current } = this.tables();
    const where = whereOf(filterClauses(filter));
    const rows = await current.countRows(where);
    const multi = [...new Set([...this.catalog.multiRow(), ...this.inflight])];
    let extra = 0;
    for (let i = 0; i < multi.length; i += IN_CHUNK) {
      const inList = `memory_id IN (${multi.slice(i, i + IN_CHUNK).map(sqlString).join(', ')})`;
      const found = (await current
        .query()
        .where(where ? `(${where}) AND ${inList}` : inList)
        .select(['memory_id'])
        .toArray()) as LanceRecord[];
      extra += found.length - new Set(found.map((r) => String(r.memory_id))).size;
    }
    return rows - extra;
  }

  async search(req: StoreSearch): Promise<StoreHit[]> {
    const { versions, current } = this.tables();
    const historical = req.knownAt !== undefined;
    let parts: string[];
    if (historical) {
      parts = [...filterClauses(req.filter), validAtClause(req.validAt), `recorded_at <= ${sqlNumber(req.knownAt!)}`, 'deleted = false'];
    } else {
      parts = this.currentClauses(req.filter, req.validAt);
    }
    const usableVector = req.vector && req.model && req.vector.length === this.opts.dim ? req.vector : null;
    return searchChannels(historical ? versions : current, {
      text: req.text,
      vector: usableVector,
      where: whereOf(parts),
      vectorWhere: historical || this.mixedVectors ? `embed_model = ${sqlString(req.model ?? '')}` : undefined,
      limit: historical ? req.limit * 4 : req.limit,
      exact: req.exact === true,
      ann: !historical && this.vectorIndex ? this.probing(this.vectorIndex, parts.length > 0) : null,
    });
  }

  /**
   * How a query uses the vector index: `minimumProbes` partitions; with a filter, up to all of them
   * when the filter leaves too few rows in those (a session's memories are a few dozen of 100k:
   * recall@10 0.68 without, 1.0 with). Without a filter the floor is also the ceiling, since
   * LanceDB otherwise keeps probing past it (+2 ms CPU per query at 100k for recall 0.98 -> 1.0).
   */
  private probing(plan: VectorIndexPlan, filtered: boolean): { minProbes: number; maxProbes: number; refineFactor: number } {
    const min = Math.min(this.opts.nprobes ?? minimumProbes(plan), plan.partitions);
    return { minProbes: min, maxProbes: filtered ? plan.partitions : min, refineFactor: this.opts.refineFactor };
  }

  async changes(afterSeq: number, limit: number): Promise<VersionRow[]> {
    const { versions } = this.tables();
    const rows = await this.readRows(versions, `seq > ${sqlNumber(afterSeq)} AND seq <= ${sqlNumber(afterSeq + limit)}`, true);
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
      }
      for (const id of ids) this.catalog.delete(id);
      if (removed > 0) await this.eraseFromDisk();
      return removed;
    });
  }

  /** Rewrite data files and rebuild the text index so purged text leaves no trace on disk. */
  private async eraseFromDisk(): Promise<void> {
    const { versions, current } = this.tables();
    for (const tbl of [versions, current]) {
      await tbl.optimize({ cleanupOlderThan: new Date(Date.now() + 1000), deleteUnverified: true });
      await tbl.createIndex('content', { config: lancedb.Index.fts(FTS_OPTIONS), replace: true });
      await tbl.optimize({ cleanupOlderThan: new Date(Date.now() + 1000), deleteUnverified: true });
    }
    this.currentCommits = this.versionCommits = 0;
  }

  async unembedded(model: string, limit: number): Promise<VersionRow[]> {
    const { current } = this.tables();
    return this.readRows(current, `embed_model IS NULL OR embed_model <> ${sqlString(model)}`, false, limit);
  }

  setVectors(updates: readonly VectorUpdate[]): Promise<void> {
    return this.exclusive(async () => {
      const { current } = this.tables();
      const usable = updates.filter((u) => u.vector.length === this.opts.dim);
      if (usable.length === 0) return;
      const rows = await this.readRows(current, `version_id IN (${usable.map((u) => sqlString(u.version_id)).join(', ')})`);
      const byId = new Map(usable.map((u) => [u.version_id, u]));
      const updated = rows.map((r) => {
        const u = byId.get(r.version_id)!;
        return toRecord({ ...r, vector: u.vector, embed_model: u.model }, this.opts.dim);
      });
      if (updated.length === 0) return;
      await current
        .mergeInsert('version_id')
        .whenMatchedUpdateAll()
        .execute(updated as unknown as Record<string, unknown>[]);
      this.currentCommits++;
      this.rowsSinceIndex += updated.length;
    });
  }

  setActiveModel(model: string | null): void {
    this.activeModel = model;
    this.mixedVectors = true;
  }

  async stats(): Promise<StoreStats> {
    const { versions, current } = this.tables();
    const [v, c] = await Promise.all([versions.countRows(), current.countRows()]);
    let unembedded = 0;
    if (this.activeModel) {
      unembedded = await current.countRows(`embed_model IS NULL OR embed_model <> ${sqlString(this.activeModel)}`);
      this.mixedVectors = unembedded > 0;
    }
    return { versions: v, current: c, unembedded, lastSeq: this.seq, vectorIndex: this.vectorIndex !== null, unindexed: this.rowsSinceIndex };
  }

  /** Rows, fragments and unindexed rows per index of both tables. */
  async diagnostics(): Promise<LanceDiagnostics[]> {
    const { versions, current } = this.tables();
    const out: LanceDiagnostics[] = [];
    for (const [table, tbl] of [['versions', versions], ['current', current]] as const) {
      const stats = await tbl.stats();
      const unindexed: Record<string, number> = {};
      const indexTypes: Record<string, string> = {};
      for (const idx of await tbl.listIndices()) {
        const column = idx.columns.join(',');
        indexTypes[column] = idx.indexType;
        const s = await tbl.indexStats(idx.name);
        if (s) unindexed[column] = s.numUnindexedRows;
      }
      out.push({ table, rows: stats.numRows, fragments: stats.fragmentStats.numFragments, unindexed, indexTypes });
    }
    return out;
  }

  /** Resolves once no maintenance is running (it does not start any). */
  async maintenanceIdle(): Promise<void> {
    while (this.maintaining) await this.maintaining.catch(() => {});
  }

  maintain(opts: { force?: boolean } = {}): Promise<MaintenanceReport> {
    if (this.maintaining) return this.maintaining;
    this.maintaining = this.runMaintenance(opts.force ?? false).finally(() => {
      this.maintaining = null;
    });
    return this.maintaining;
  }

  /**
   * Compaction and index upkeep. The current view (searched on every recall) is optimized once
   * `compactEveryCommits` commits have left fragments in it; the version log (read by id and by
   * seq, never searched by recall) at a quarter of that rate, since each optimize rewrites small
   * fragments and, at times, the large one beside them. Each table is optimized in its own turn of
   * the write lock, so writes queued meanwhile are not held for both.
   */
  private async runMaintenance(force: boolean): Promise<MaintenanceReport> {
    const t0 = performance.now();
    const report: MaintenanceReport = { compacted: false, vectorIndexBuilt: false, ftsRefreshed: false, ms: 0 };
    if (!this.versionsTbl) return report;
    // Versions older than a minute are dropped: a reader still on one has long finished.
    const cleanupOlderThan = (): Date => new Date(Date.now() - 60_000);
    if (force || this.currentCommits >= this.opts.compactEveryCommits) {
      await this.exclusive(async () => {
        // optimize(): compact small fragments, fold new rows into every index, drop old table versions.
        await this.tables().current.optimize({ cleanupOlderThan: cleanupOlderThan() });
        this.currentCommits = 0;
        this.rowsSinceIndex = 0;
        report.compacted = true;
        report.ftsRefreshed = true;
      });
    }
    if (force || this.versionCommits >= this.opts.compactEveryCommits * 4) {
      await this.exclusive(async () => {
        await this.tables().versions.optimize({ cleanupOlderThan: cleanupOlderThan() });
        this.versionCommits = 0;
        report.compacted = true;
      });
    }
    if (await this.needsVectorIndex()) {
      const plan = vectorIndexPlan(await this.tables().current.countRows(EMBEDDED));
      this.log.info('building the vector index', { ...plan });
      await this.tables().current.createIndex('vector', { config: vectorIndex(plan), replace: true });
      this.vectorIndex = { ...plan, stale: false };
      await this.exclusive(async () => this.writeMarker());
      report.vectorIndexBuilt = true;
    }
    report.ms = performance.now() - t0;
    return report;
  }

  /**
   * Train the vector index once there are `vectorIndexMinRows` embedded rows, retrain when they
   * have grown fourfold (partitions follow √rows), and replace an index of a kind this store no
   * longer builds. The row count from table metadata rules most calls out without a scan.
   */
  private async needsVectorIndex(): Promise<boolean> {
    const { current } = this.tables();
    if (this.vectorIndex?.stale) return true;
    const threshold = this.vectorIndex ? this.vectorIndex.rows * 4 : this.opts.vectorIndexMinRows;
    if ((await current.countRows()) < threshold) return false;
    return (await current.countRows(EMBEDDED)) >= threshold;
  }
}

function groupBy(rows: readonly VersionRow[]): VersionRow[][] {
  const m = new Map<string, VersionRow[]>();
  for (const r of rows) {
    const list = m.get(r.memory_id);
    if (list) list.push(r);
    else m.set(r.memory_id, [r]);
  }
  return [...m.values()].map((vs) => vs.sort((a, b) => a.version - b.version));
}

async function vectorDim(tbl: lancedb.Table): Promise<number> {
  const schema = await tbl.schema();
  const f = schema.fields.find((x) => x.name === 'vector');
  const t = f?.type as { listSize?: number } | undefined;
  return t?.listSize ?? -1;
}
