/**
 * LanceStore's connection and the handles of its two tables. Opening finds or makes the tables
 * (and says whether the current view must be rebuilt from the log); reconnect() swaps in fresh
 * handles and closes the replaced ones a little later.
 */
import type * as lancedb from '@lancedb/lancedb';
import { EngineError } from '../errors.js';
import type { Logger } from '../log.js';
import { ensureIndexes } from './lance-indexes.js';
import { readMarker, writeMarker } from './lance-marker.js';
import type { ResolvedLanceOptions } from './lance-options.js';
import { isCurrentViewFormat, isLegacyLog, logSchema, vectorDim, viewSchema } from './lance-rows.js';
import { lance } from './lance-runtime.js';

/** How long a replaced connection stays open for reads that started on it. */
const RETIRED_HANDLE_MS = 10_000;
/**
 * Routine upkeep swaps in a fresh connection at most this often (each one starts with cold caches,
 * and a steady stream of single writes makes upkeep run every few seconds); a rebuilt vector index
 * or a forced pass always does. Not much less often: under a steady stream of writes (the server
 * bench adds ~140 memories/s, an upkeep pass every ~0.2 s) index pages of replaced index versions
 * fill the cache within seconds, and searches at 10k memories served 47/s with a 2-minute cadence
 * against 123/s with this one.
 */
const RECONNECT_EVERY_MS = 10_000;

/** The database's directory (and its marker's), the current view's dimension, the cache bounds. */
export type LanceTablesOptions = Pick<ResolvedLanceOptions, 'dir' | 'dim' | 'indexCacheBytes' | 'metadataCacheBytes'> & { log: Logger };

export class LanceTables {
  db: lancedb.Connection | null = null;
  versions: lancedb.Table | null = null;
  current: lancedb.Table | null = null;
  /** Connections replaced by reconnect(), closed once reads started on them are surely done. */
  private readonly retired = new Map<() => void, NodeJS.Timeout>();
  /** When the current connection was made. */
  private connectedAt = 0;

  constructor(private readonly opts: LanceTablesOptions) {}

  /**
   * Connect and open both tables, making what is missing. `rebuild`: the current view is new or
   * was replaced (another model's dimension, an older format), or a rebuild was interrupted.
   * `legacyLog`: the log was written before vectors moved out of it.
   */
  async open(): Promise<{ rebuild: boolean; legacyLog: boolean }> {
    this.db = await this.connect();
    const names = await this.db.tableNames();
    this.versions = names.includes('versions') ? await this.db.openTable('versions') : await this.createTable('versions');
    const legacyLog = await isLegacyLog(this.versions);
    const before = readMarker(this.opts.dir);
    let rebuild = before.rebuilding === true;
    if (names.includes('current')) {
      this.current = await this.db.openTable('current');
      if (!(await isCurrentViewFormat(this.current, this.opts.dim))) {
        // Another model's dimension, or a view written by an older build: rebuilt from the log.
        const dim = await vectorDim(this.current);
        this.opts.log.info(dim !== this.opts.dim ? 'embedding dimension changed; rebuilding the current view' : 'upgrading the current view (one-time rebuild)', { from: dim, to: this.opts.dim });
        writeMarker(this.opts.dir, { ...before, rebuilding: true });
        await this.db.dropTable('current');
        this.current = await this.createTable('current');
        rebuild = true;
      }
    } else {
      writeMarker(this.opts.dir, { ...before, rebuilding: true });
      this.current = await this.createTable('current');
      rebuild = true;
    }
    for (const [tbl, kind] of [
      [this.versions, 'log'],
      [this.current, 'view'],
    ] as const) {
      const { added, dropped } = await ensureIndexes(tbl, kind);
      if (added.length > 0 || dropped.length > 0) this.opts.log.info('indexes changed', { table: tbl.name, added, dropped });
    }
    return { rebuild, legacyLog };
  }

  /** Both handles; throws STORE_CLOSED while the store is closed. */
  tables(): { versions: lancedb.Table; current: lancedb.Table } {
    if (!this.versions || !this.current) throw new EngineError('STORE_CLOSED', 'the store is closed');
    return { versions: this.versions, current: this.current };
  }

  private async createTable(name: 'versions' | 'current'): Promise<lancedb.Table> {
    const tbl = await this.db!.createEmptyTable(name, name === 'current' ? viewSchema(this.opts.dim) : logSchema(), { mode: 'overwrite' });
    await ensureIndexes(tbl, name === 'current' ? 'view' : 'log');
    return tbl;
  }

  /** A connection with its own bounded caches. */
  private async connect(): Promise<lancedb.Connection> {
    const lancedb = lance();
    this.connectedAt = Date.now();
    const session = new lancedb.Session(BigInt(this.opts.indexCacheBytes), BigInt(this.opts.metadataCacheBytes));
    // The session goes in the options: connect()'s separate session argument is not used for local paths.
    return lancedb.connect(this.opts.dir, { session });
  }

  /** Whether routine upkeep may swap in a fresh connection now (RECONNECT_EVERY_MS). */
  reconnectDue(): boolean {
    return Date.now() - this.connectedAt >= RECONNECT_EVERY_MS;
  }

  /**
   * Swap in a new connection and table handles (called holding the write lock, after maintenance
   * rewrote files and indexes). LanceDB's bounded index cache admits entries by how often they
   * were used, so after many index rebuilds it stays full of pages of replaced indexes and keeps
   * refusing the live ones: at 100k memories after seeding, each query reloaded index pages and a
   * hybrid search took 20-25 ms p50 against 6-8 ms on a fresh connection. Reads already running
   * finish on the old handles, which are closed a little later. `swapped` learns the current
   * view's old and new handle just before the swap.
   */
  async reconnect(swapped: (oldCurrent: lancedb.Table, current: lancedb.Table) => void): Promise<void> {
    const old = { db: this.db, versions: this.versions, current: this.current };
    if (!old.db || !old.versions || !old.current) return;
    const db = await this.connect();
    const versions = await db.openTable('versions');
    const current = await db.openTable('current');
    swapped(old.current, current);
    this.db = db;
    this.versions = versions;
    this.current = current;
    const close = (): void => {
      old.versions!.close();
      old.current!.close();
      old.db!.close();
    };
    const timer = setTimeout(() => {
      this.retired.delete(close);
      close();
    }, RETIRED_HANDLE_MS);
    timer.unref();
    this.retired.set(close, timer);
  }

  /** Close every handle, the replaced ones too. */
  close(): void {
    for (const [close, timer] of this.retired) {
      clearTimeout(timer);
      close();
    }
    this.retired.clear();
    this.versions?.close();
    this.current?.close();
    this.db?.close();
    this.versions = this.current = null;
    this.db = null;
  }
}
