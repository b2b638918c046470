/**
 * PgStore: the MemoryStore contract on PostgreSQL, so any number of server replicas share one
 * project's memories. Many stores (one per project) live in one database, keyed by `store`.
 *
 * - Writers of one store serialize on its `ms_store_meta` row (SELECT … FOR UPDATE): `seq` is
 *   gap-free and in commit order, and the full-text statistics change in the same transaction.
 * - Full text: the engine's own tokenizer (terms()) fills a postings table with term
 *   frequencies and document lengths, and `ms_term_df` / the meta row keep the document
 *   frequencies, document count and total length of the current view. A search is BM25 in one
 *   SQL statement (one snapshot) with exactly the engine's formula, so scores equal the embedded
 *   store's.
 * - Vectors: with pgvector, an HNSW cosine index over the current rows. Without it, each process
 *   keeps a ResidentView of the current rows and, before every search, replays the store's
 *   change log (`ms_store_changes`, numbered like seq) from the database: a replica sees every
 *   write committed before its search began, wherever it was made. That view then scores full
 *   text too (same statistics, same ranking; `residentText: 'sql'` keeps it in the database).
 */
import { validAt, type PlannedRow } from '../bitemporal.js';
import { EngineError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { Bm25Index } from '../text/bm25.js';
import { terms } from '../text/tokenize.js';
import type { VersionRow } from '../types.js';
import { cloneRow, exactHits } from './memory-store.js';
import { filterSql, SqlParams, validSql } from './pg-filter.js';
import { ensurePgvector, migrate } from './pg-migrate.js';
import { PgResidentView } from './pg-resident.js';
import { retermStore } from './pg-reterm.js';
import { ROW_COLS_VEC, toRow } from './pg-rows.js';
import { STORE_MIGRATIONS } from './pg-schema.js';
import { textSql } from './pg-text.js';
import { prepareHnsw, vectorSql } from './pg-vector.js';
import { appendVersions, insertRows, lockStore, recompute } from './pg-writes.js';
import type { SqlClient, SqlQueryable } from './sql-client.js';
import type { MaintenanceReport, MemoryStore, StoreHit, StoreSearch, StoreStats, VectorUpdate } from './types.js';
import { VectorScan } from './vector-scan.js';

/**
 * A scalar subquery giving, as a JSON object, the change number of each store whose key is in the
 * text array parameter `param` (e.g. `$5`): a host reads it in a statement of its own at the start
 * of a request and hands the store's number to the search (StoreSearch.changeSeen), which then
 * reads nothing more when its view is that far along.
 */
export function storeChangesSql(param: string): string {
  return `(SELECT json_object_agg(store, change_no) FROM ms_store_meta WHERE store = ANY(${param}::text[]))`;
}

/** NOTIFYed with every purge's commit: processes holding a resident view drop the purged rows at once (`refresh`). */
export const PURGE_CHANNEL = 'ms_store_purged';

/** Change-log entries kept for replicas catching up (older ones: a replica that far behind reloads). */
const CHANGES_KEPT = 200_000;

/** The change log is trimmed at most this often (upkeep runs every 16 commits). */
const TRIM_EVERY_MS = 60_000;

export interface PgStoreOptions {
  db: SqlClient;
  /** Key of this store in the shared tables (the server uses the project id). */
  store: string;
  dim: number;
  logger?: Logger;
  /** Use pgvector when the database has it (default true); false forces the resident view. */
  pgvector?: boolean;
  /**
   * Where full text is scored when the resident view is held (no pgvector): 'resident' (default)
   * scores it in the view the vector channel already brought up to date, one catch-up for both
   * channels and no SQL per search; 'sql' runs the BM25 statement as with pgvector. Both use the
   * same statistics (the current rows) and rank alike.
   */
  residentText?: 'resident' | 'sql';
  /** Current rows read per statement when the resident view is loaded whole (tests make it small). @default 10000 */
  loadPage?: number;
}

/**
 * Work a host does in the transaction that writes versions (the server records their events and
 * webhook deliveries there): it runs under the store's lock after the rows are in, and a failure
 * rolls the versions back with it, so no committed version lacks what the host writes for it.
 */
export type VersionsWriting = (tx: SqlQueryable, rows: readonly VersionRow[]) => Promise<void>;

export class PgStore implements MemoryStore {
  readonly kind = 'postgres' as const;
  private readonly db: SqlClient;
  private readonly log: Logger;
  private activeModel: string | null = null;
  private opened = false;
  private usePgvector = false;
  /** pgvector ≥ 0.8: filtered HNSW scans keep going until they have `limit` rows. */
  private iterativeScan = false;
  /** Without pgvector: the current rows held for the vector channel, kept in step with the change log. */
  private readonly resident: PgResidentView;
  private writing: VersionsWriting | null = null;
  private trimmedAt = 0;

  constructor(private readonly opts: PgStoreOptions) {
    this.db = opts.db;
    this.log = opts.logger ?? silentLogger;
    const scan = new VectorScan(opts.dim, (reason) => this.log.warn('vector scans run in JavaScript', { reason }));
    this.resident = new PgResidentView({ db: opts.db, store: opts.store, dim: opts.dim, scan, loadPage: opts.loadPage });
  }

  /** Which path serves the vector channel: 'pgvector' (HNSW in the database) or 'resident' (each process's memory). */
  get vectorPath(): 'pgvector' | 'resident' {
    return this.usePgvector ? 'pgvector' : 'resident';
  }

  async open(): Promise<void> {
    await migrate(this.db, 'store', STORE_MIGRATIONS);
    await this.db.query(`INSERT INTO ms_store_meta (store) VALUES ($1) ON CONFLICT (store) DO NOTHING`, [this.opts.store]);
    const reindexed = await retermStore(this.db, this.opts.store);
    if (reindexed > 0) this.log.info('re-indexed the full text of memories in Chinese, Japanese or Korean (one-time)', { store: this.opts.store, rows: reindexed });
    this.usePgvector = this.opts.pgvector !== false && (await ensurePgvector(this.db));
    if (this.usePgvector) {
      this.iterativeScan = await prepareHnsw(this.db, this.opts.dim);
    } else {
      this.resident.drop(true);
    }
    this.opened = true;
    this.log.info('postgres store open', { store: this.opts.store, vector_path: this.vectorPath });
  }

  async close(): Promise<void> {
    this.opened = false;
    await this.resident.close();
  }

  /** Run `fn` in every transaction that writes versions (append, rewrite), before it commits; null stops. */
  alsoInTransaction(fn: VersionsWriting | null): void {
    this.writing = fn;
  }

  private check(): void {
    if (!this.opened) throw new EngineError('STORE_CLOSED', 'the store is closed');
  }

  // ------------------------------------------------------------------ writes

  /** Append versions in one transaction under the store's lock (appendVersions, pg-writes.ts, says how). */
  async append(rows: readonly PlannedRow[]): Promise<VersionRow[]> {
    this.check();
    if (rows.length === 0) return [];
    const ids = [...new Set(rows.map((r) => r.memory_id))];
    // What needs no lock is worked out before taking it: the new rows' terms.
    const termsOf = new Map(rows.map((r) => [r.version_id, terms(r.content)]));
    const done = await this.db.transaction((tx) => appendVersions(tx, this.opts.store, { rows, ids, termsOf }, (t, stored) => this.writing?.(t, stored)));
    this.resident.applyOwn(ids, done.changeNo, done.current);
    return done.stored;
  }

  async rewrite(rows: readonly PlannedRow[]): Promise<VersionRow[]> {
    this.check();
    if (rows.length === 0) return [];
    return this.db.transaction(async (tx) => {
      const m = await lockStore(tx, this.opts.store);
      const ids = rows.map((r) => r.version_id);
      await recompute(
        tx,
        this.opts.store,
        rows.map((r) => r.memory_id),
        m.changeNo + 1,
        async () => {
          await tx.query(`DELETE FROM ms_versions v USING unnest($2::text[], $3::text[]) AS x(version_id, memory_id) WHERE v.store = $1 AND v.version_id = x.version_id AND v.memory_id = x.memory_id`, [
            this.opts.store,
            ids,
            rows.map((r) => r.memory_id),
          ]);
          await insertRows(tx, this.opts.store, rows, m.lastSeq + 1);
        },
        new Set(ids),
      );
      await tx.query(`UPDATE ms_store_meta SET last_seq = $2 WHERE store = $1`, [this.opts.store, m.lastSeq + rows.length]);
      const stored = rows.map((r, i) => cloneRow({ ...r, seq: m.lastSeq + 1 + i } as VersionRow));
      await this.writing?.(tx, stored);
      return stored;
    });
  }

  async purge(memoryIds: readonly string[]): Promise<number> {
    this.check();
    if (memoryIds.length === 0) return 0;
    return this.db.transaction(async (tx) => {
      const m = await lockStore(tx, this.opts.store);
      let removed = 0;
      await recompute(tx, this.opts.store, memoryIds, m.changeNo + 1, async () => {
        const r = await tx.query<{ n: number }>(
          `WITH d AS (DELETE FROM ms_versions WHERE store = $1 AND memory_id = ANY($2::text[]) RETURNING 1) SELECT count(*)::int AS n FROM d`,
          [this.opts.store, [...new Set(memoryIds)]],
        );
        removed = Number(r.rows[0]?.n ?? 0);
      });
      await tx.query(`SELECT pg_notify('${PURGE_CHANNEL}', $1)`, [this.opts.store]);
      return removed;
    });
  }

  async setVectors(updates: readonly VectorUpdate[]): Promise<void> {
    this.check();
    if (updates.length === 0) return;
    await this.db.transaction(async (tx) => {
      const m = await lockStore(tx, this.opts.store);
      const r = await tx.query<{ memory_id: string }>(
        `UPDATE ms_versions v SET vector = x.vector, embed_model = x.model
         FROM json_to_recordset($2::json) AS x(version_id text, vector real[], model text)
         WHERE v.store = $1 AND v.version_id = x.version_id AND v.is_current
         RETURNING v.memory_id`,
        [this.opts.store, JSON.stringify(updates.map((u) => ({ version_id: u.version_id, vector: Array.from(u.vector), model: u.model })))],
      );
      const ids = [...new Set(r.rows.map((x) => x.memory_id))];
      if (ids.length === 0) return;
      await tx.query(`INSERT INTO ms_store_changes (store, change_no, memory_id) SELECT $1, $2, * FROM unnest($3::text[])`, [this.opts.store, m.changeNo + 1, ids]);
      await tx.query(`UPDATE ms_store_meta SET change_no = $2 WHERE store = $1`, [this.opts.store, m.changeNo + 1]);
    });
  }

  setActiveModel(model: string | null): void {
    this.activeModel = model;
  }

  // ------------------------------------------------------------------ reads

  private async rows(sql: string, params: readonly unknown[]): Promise<VersionRow[]> {
    return (await this.db.query(sql, params)).rows.map(toRow);
  }

  async versionsOf(memoryIds: readonly string[]): Promise<VersionRow[]> {
    this.check();
    return this.rows(`SELECT ${ROW_COLS_VEC} FROM ms_versions v WHERE v.store = $1 AND v.memory_id = ANY($2::text[]) ORDER BY v.memory_id COLLATE "C", v.version`, [
      this.opts.store,
      [...new Set(memoryIds)],
    ]);
  }

  async maxVersions(memoryIds: readonly string[]): Promise<Map<string, number>> {
    this.check();
    const r = await this.db.query<{ memory_id: string; v: number }>(
      `SELECT memory_id, max(version) AS v FROM ms_versions WHERE store = $1 AND memory_id = ANY($2::text[]) GROUP BY memory_id`,
      [this.opts.store, [...new Set(memoryIds)]],
    );
    return new Map(r.rows.map((x) => [x.memory_id, Number(x.v)]));
  }

  async currentOf(memoryIds: readonly string[]): Promise<VersionRow[]> {
    this.check();
    return this.rows(`SELECT ${ROW_COLS_VEC} FROM ms_versions v WHERE v.store = $1 AND v.is_current AND v.memory_id = ANY($2::text[]) ORDER BY v.memory_id COLLATE "C", v.version`, [
      this.opts.store,
      [...new Set(memoryIds)],
    ]);
  }

  async list(filter: Parameters<MemoryStore['list']>[0], opts: { limit: number; beforeSeq?: number | undefined; validAt?: number | undefined }): Promise<VersionRow[]> {
    this.check();
    const p = new SqlParams([this.opts.store]);
    const where = [`v.store = $1`, `v.is_current`, filterSql(filter, p)];
    if (opts.beforeSeq !== undefined) where.push(`v.seq < ${p.add(opts.beforeSeq)}::bigint`);
    if (opts.validAt !== undefined) where.push(validSql(opts.validAt, p));
    return this.rows(`SELECT ${ROW_COLS_VEC} FROM ms_versions v WHERE ${where.join(' AND ')} ORDER BY v.seq DESC LIMIT ${p.add(Math.max(0, Math.trunc(opts.limit)))}`, p.values);
  }

  async count(filter: Parameters<MemoryStore['count']>[0]): Promise<number> {
    this.check();
    const p = new SqlParams([this.opts.store]);
    const r = await this.db.query<{ n: number }>(`SELECT count(DISTINCT v.memory_id)::int AS n FROM ms_versions v WHERE v.store = $1 AND v.is_current AND ${filterSql(filter, p)}`, p.values);
    return Number(r.rows[0]?.n ?? 0);
  }

  async changes(afterSeq: number, limit: number): Promise<VersionRow[]> {
    this.check();
    return this.rows(`SELECT ${ROW_COLS_VEC} FROM ms_versions v WHERE v.store = $1 AND v.seq > $2::bigint AND v.seq <= $3::bigint ORDER BY v.seq`, [this.opts.store, afterSeq, afterSeq + limit]);
  }

  async unembedded(model: string, limit: number): Promise<VersionRow[]> {
    this.check();
    return this.rows(`SELECT ${ROW_COLS_VEC} FROM ms_versions v WHERE v.store = $1 AND v.is_current AND v.embed_model IS DISTINCT FROM $2 ORDER BY v.seq LIMIT $3`, [
      this.opts.store,
      model,
      Math.max(0, Math.trunc(limit)),
    ]);
  }

  async search(req: StoreSearch): Promise<StoreHit[]> {
    this.check();
    if (req.knownAt !== undefined) return this.searchHistory(req);
    if (!this.usePgvector && this.opts.residentText !== 'sql') {
      // Measured at 20k rows: the BM25 statement took 60–90 ms (postings of common terms joined
      // to their versions); the view answers both channels in memory from one catch-up query.
      const view = await this.resident.current(req.changeSeen);
      return view.search({ text: req.text, vector: req.vector, model: req.model, filter: req.filter, validAt: req.validAt, limit: req.limit, exact: req.exact });
    }
    const hits = new Map<string, StoreHit>();
    if (req.vector && req.model) {
      const vhits = this.usePgvector ? await vectorSql(this.db, { store: this.opts.store, dim: this.opts.dim, iterativeScan: this.iterativeScan }, req) : await this.vectorResident(req);
      for (const h of vhits) hits.set(h.row.version_id, h);
    }
    if (req.text) {
      for (const h of await textSql(this.db, this.opts.store, req)) {
        const hit = hits.get(h.row.version_id);
        if (hit) hit.textScore = h.textScore;
        else hits.set(h.row.version_id, h);
      }
    }
    return [...hits.values()];
  }

  private async vectorResident(req: StoreSearch): Promise<StoreHit[]> {
    const view = await this.resident.current(req.changeSeen);
    return view.search({ text: null, vector: req.vector, model: req.model, filter: req.filter, validAt: req.validAt, limit: req.limit, exact: req.exact });
  }

  /**
   * Bring the resident view (if any) up to the database's latest change now rather than at the
   * next search: after another process purged, so this one stops holding the erased rows.
   */
  async refresh(): Promise<void> {
    if (this.opened && this.resident.held) await this.resident.current();
  }

  /** Searches of the past: every version believed by `knownAt`, scored in process like InMemoryStore. */
  private async searchHistory(req: StoreSearch): Promise<StoreHit[]> {
    const p = new SqlParams([this.opts.store, req.knownAt]);
    const pool = await this.rows(
      `SELECT ${ROW_COLS_VEC} FROM ms_versions v WHERE v.store = $1 AND NOT v.deleted AND v.recorded_at <= $2::bigint AND ${filterSql(req.filter, p)} AND ${validSql(req.validAt, p)} ORDER BY v.seq`,
      p.values,
    );
    const candidates = new Map(pool.filter((r) => validAt(r, req.validAt)).map((r) => [r.version_id, r]));
    let textScores: Map<string, number> | null = null;
    if (req.text) {
      const idx = new Bm25Index();
      for (const r of candidates.values()) idx.add(r.version_id, r.content);
      textScores = idx.score(req.text);
    }
    return exactHits(candidates, req, textScores);
  }

  async stats(): Promise<StoreStats> {
    this.check();
    // `docs` is the number of current rows (kept with every write for BM25); rows not embedded by
    // the active model are those without one, or by a model sorting before or after it (each an
    // index range).
    const unembedded = (cond: string): string => `(SELECT count(*) FROM ms_versions WHERE store = $1 AND is_current AND ${cond})`;
    const r = await this.db.query<{ versions: number; current: number; unembedded: number; last_seq: number }>(
      `SELECT (SELECT count(*) FROM ms_versions WHERE store = $1)::int AS versions,
              (SELECT docs FROM ms_store_meta WHERE store = $1)::int AS current,
              CASE WHEN $2::text IS NULL THEN 0 ELSE (${unembedded('embed_model IS NULL')} + ${unembedded('embed_model < $2')} + ${unembedded('embed_model > $2')})::int END AS unembedded,
              (SELECT last_seq FROM ms_store_meta WHERE store = $1) AS last_seq`,
      [this.opts.store, this.activeModel],
    );
    const s = r.rows[0]!;
    return { versions: Number(s.versions), current: Number(s.current), unembedded: Number(s.unembedded), lastSeq: Number(s.last_seq ?? 0), vectorIndex: this.usePgvector, unindexed: 0 };
  }

  /**
   * Trims the change log replicas catch up from (at most once a minute, or when forced), and
   * refreshes the planner's statistics when forced.
   */
  async maintain(opts: { force?: boolean } = {}): Promise<MaintenanceReport> {
    this.check();
    const t0 = Date.now();
    if (opts.force || t0 - this.trimmedAt >= TRIM_EVERY_MS) {
      this.trimmedAt = t0;
      const head = Number((await this.db.query<{ change_no: number }>(`SELECT change_no FROM ms_store_meta WHERE store = $1`, [this.opts.store])).rows[0]?.change_no ?? 0);
      // A constant bound: the planner then walks the index (with the bound a subquery, it guessed a third of the table and read all of it).
      if (head > CHANGES_KEPT) await this.db.query(`DELETE FROM ms_store_changes WHERE store = $1 AND change_no <= $2::bigint`, [this.opts.store, head - CHANGES_KEPT]);
    }
    if (opts.force) await this.db.query(`ANALYZE ms_versions`);
    return { compacted: false, vectorIndexBuilt: false, ftsRefreshed: false, ms: Date.now() - t0 };
  }
}
