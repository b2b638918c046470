/**
 * LanceStore's current view as its searches see it: held in memory while it fits its row budget
 * (HeldView), otherwise searched through LanceDB's indexes, with the full-text index's readiness,
 * the rows outside that index (TextTail) and whether every row has a vector of the active model.
 * Writes to the current table go through here, so that all of this follows them.
 */
import type * as lancedb from '@lancedb/lancedb';
import type { Logger } from '../log.js';
import type { VersionRow } from '../types.js';
import { sqlString, whereOf } from './lance-filter.js';
import { FTS_COLUMN, ftsIndex, probing } from './lance-indexes.js';
import type { ResolvedLanceOptions } from './lance-options.js';
import { IN_CHUNK, readRows } from './lance-reads.js';
import type { HeldView } from './lance-resident.js';
import { rowColumns, toViewTable } from './lance-rows.js';
import { mergeTextHits, searchChannels } from './lance-search.js';
import { TextTail } from './lance-tail.js';
import type { UpkeepState } from './lance-upkeep.js';
import type { ResidentView } from './resident-view.js';
import type { StoreHit, StoreSearch, VectorUpdate } from './types.js';

/** What the view needs of its store. */
export interface ViewHost {
  tables(): { versions: lancedb.Table; current: lancedb.Table };
  /** Whether the store is open. */
  isOpen(): boolean;
  upkeep: UpkeepState;
  /** Persist the seq and the vector index plan. */
  saveMarker(): void;
  /** Schedule the pass that deletes replaced files (UpkeepSchedule). */
  schedulePrune(): void;
  opts: ResolvedLanceOptions;
  log: Logger;
}

export class CurrentView {
  private readonly ftsReady = new WeakSet<lancedb.Table>();
  /** Full text the current view's index does not cover (yet), and the view's BM25 statistics. */
  readonly tail = new TextTail();
  private activeModel: string | null = null;
  /** Whether any current row may lack a vector of the active model (skip the model filter when not). */
  private mixedVectors = true;
  /** Bumped whenever rows that may lack such a vector arrive, so a count started before cannot clear the flag. */
  private mixedGen = 0;

  constructor(
    private readonly host: ViewHost,
    private readonly held: HeldView,
  ) {}

  /** The current view in memory while it fits the budget (searches of the current view use it). */
  get resident(): ResidentView | null {
    return this.held.view;
  }

  /**
   * The indexes the view's searches need, at open (`fts`: the full-text index found): none while it
   * is held in memory, else a full-text index over every row.
   */
  async indexesAtOpen(current: lancedb.Table, fts: { name: string } | undefined): Promise<void> {
    if (this.resident) {
      if (fts || this.host.upkeep.vectorIndex) await this.dropIndexes();
    } else if (!fts) await this.ensureFts();
    else {
      this.ftsReady.add(current);
      // Rows left unindexed by a stop before maintenance: fold them in now.
      const st = await current.indexStats(fts.name);
      if (st && st.numUnindexedRows > 0) await current.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
    }
  }

  /**
   * Drop the current view's search indexes (full text, vector) while the view is searched in
   * memory: no search reads them, and every optimize rewrites them (at 10k memories of the bench
   * corpus they were 166 bytes a row, with a replaced copy on disk after each pass). The view
   * gets them back when it stops being held in memory (`searchedThroughIndexes`). Their files go
   * with the next pass that deletes old table versions.
   */
  private async dropIndexes(): Promise<void> {
    const { current } = this.host.tables();
    const dropped: string[] = [];
    for (const idx of await current.listIndices()) {
      if (!idx.columns.includes('vector') && !idx.columns.includes(FTS_COLUMN)) continue;
      await current.dropIndex(idx.name);
      dropped.push(idx.name);
    }
    this.host.log.info('dropped the current view’s search indexes: it is searched in memory', { rows: this.resident?.size, dropped });
    this.ftsReady.delete(current);
    this.tail.clear();
    this.host.upkeep.vectorIndex = null;
    this.host.saveMarker();
    this.host.upkeep.currentPruneAt = Date.now() + this.host.opts.retainVersionsMs;
    this.host.schedulePrune();
  }

  /**
   * The view is no longer held in memory: searches go through LanceDB from now on, so the
   * full-text index covers every row at once (upkeep trains the vector index).
   */
  private async searchedThroughIndexes(): Promise<void> {
    await this.ensureFts();
  }

  /** Hold the current view in memory when the budget covers it. */
  async load(): Promise<void> {
    await this.held.load(this.host.tables().current);
    await this.fit();
  }

  /**
   * Keep the budget in step with the view's size; let go of the view when it outgrew the budget
   * (called holding the write lock, or from open()).
   */
  async fit(): Promise<void> {
    if (this.held.fit() === 'outgrown' && this.host.isOpen()) await this.searchedThroughIndexes();
  }

  /**
   * Build the current view's full-text index over `search_terms` once it holds a row: LanceDB
   * scores rows poorly when every row is outside an index that was built on an empty table.
   */
  private async ensureFts(replace = false): Promise<void> {
    const { current } = this.host.tables();
    if (this.ftsReady.has(current) && !replace) return;
    if ((await current.countRows()) === 0) return;
    await current.createIndex(FTS_COLUMN, { config: ftsIndex(), replace: true });
    this.ftsReady.add(current);
    this.tail.clear();
  }

  /** reconnect() swapped the current view's handle: what was true of the old one is of the new. */
  carry(old: lancedb.Table, fresh: lancedb.Table): void {
    if (this.ftsReady.has(old)) this.ftsReady.add(fresh);
  }

  /** Delete the current rows of `replace` and add `fresh` (the write lock is held). */
  async replace(replace: readonly string[], fresh: readonly VersionRow[]): Promise<void> {
    const { current } = this.host.tables();
    for (let i = 0; i < replace.length; i += IN_CHUNK) {
      const chunk = replace.slice(i, i + IN_CHUNK);
      await current.delete(`memory_id IN (${chunk.map(sqlString).join(', ')})`);
      this.resident?.removeMemories(chunk);
      this.host.upkeep.currentCommits++;
    }
    this.tail.drop(replace);
    if (fresh.length === 0) return await this.fit();
    await current.add(toViewTable(fresh, this.host.opts.dim));
    this.resident?.add(fresh);
    await this.fit();
    this.host.upkeep.currentCommits++;
    this.tail.add(fresh, true, !this.resident);
    if (!this.resident) await this.ensureFts();
    if (fresh.some((r) => !r.vector || r.embed_model !== this.activeModel)) this.markMixed();
  }

  /** Give current rows their vectors (the write lock is held). */
  async setVectors(updates: readonly VectorUpdate[]): Promise<void> {
    const { current } = this.host.tables();
    const usable = updates.filter((u) => u.vector.length === this.host.opts.dim);
    if (usable.length === 0) return;
    const rows = await readRows('view', current, `version_id IN (${usable.map((u) => sqlString(u.version_id)).join(', ')})`);
    const byId = new Map(usable.map((u) => [u.version_id, u]));
    const updated = rows.map((r) => {
      const u = byId.get(r.version_id)!;
      return { ...r, vector: u.vector, embed_model: u.model };
    });
    if (updated.length === 0) return;
    await current.mergeInsert('version_id').whenMatchedUpdateAll().execute(toViewTable(updated, this.host.opts.dim));
    for (const r of rows) {
      const u = byId.get(r.version_id)!;
      this.resident?.setVector(u.version_id, u.vector, u.model);
    }
    // Rewritten rows are new rows to LanceDB: outside the full-text index until it catches up.
    this.tail.add(rows, false, !this.resident);
    this.host.upkeep.currentCommits++;
    this.host.upkeep.rowsSinceIndex += updated.length;
  }

  /** Rewrite data files and rebuild the text index so purged text leaves no trace on disk. */
  async eraseFromDisk(): Promise<void> {
    const { versions, current } = this.host.tables();
    for (const tbl of [versions, current]) {
      await tbl.optimize({ cleanupOlderThan: new Date(Date.now() + 1000), deleteUnverified: true });
      // Only the view has a full-text index, and only while it is searched through LanceDB.
      if (tbl === versions || this.resident) continue;
      this.ftsReady.delete(tbl);
      await this.ensureFts(true);
      await tbl.optimize({ cleanupOlderThan: new Date(Date.now() + 1000), deleteUnverified: true });
    }
    this.host.upkeep.currentCommits = this.host.upkeep.versionCommits = 0;
  }

  /**
   * A search of the current view: in memory while it is held there, else through LanceDB's
   * indexes (`clauses`: the conditions of the read, see LanceStore.currentClauses).
   */
  async search(req: StoreSearch, clauses: () => string[]): Promise<StoreHit[]> {
    if (this.resident) return await this.resident.search(req);
    const { current } = this.host.tables();
    const parts = clauses();
    const { opts, upkeep } = this.host;
    const hits = await searchChannels(current, {
      columns: rowColumns('view'),
      text: req.text,
      vector: req.vector && req.model && req.vector.length === opts.dim ? req.vector : null,
      where: whereOf(parts),
      vectorWhere: this.mixedVectors ? `embed_model = ${sqlString(req.model ?? '')}` : undefined,
      limit: req.limit,
      exact: req.exact === true,
      ann: upkeep.vectorIndex ? probing(upkeep.vectorIndex, parts.length > 0, opts) : null,
      textIndexed: this.ftsReady.has(current),
    });
    return mergeTextHits(hits, this.tail.search(req));
  }

  setActiveModel(model: string | null): void {
    this.activeModel = model;
    this.markMixed();
  }

  private markMixed(): void {
    this.mixedVectors = true;
    this.mixedGen++;
  }

  /** Current rows without a vector of the active model; clears the mixed flag when none, unless rows arrived meanwhile. */
  async countUnembedded(): Promise<number> {
    const model = this.activeModel;
    if (!model) return 0;
    const gen = this.mixedGen;
    const n = await this.host.tables().current.countRows(`embed_model IS NULL OR embed_model <> ${sqlString(model)}`);
    if (gen === this.mixedGen && model === this.activeModel) this.mixedVectors = n > 0;
    return n;
  }

  /** Let go of the view held in memory and of the scan's workers. */
  async close(): Promise<void> {
    await this.held.close();
  }
}
