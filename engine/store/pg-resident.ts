/**
 * Without pgvector, each process holds a store's current rows in a ResidentView and keeps it in
 * step with the store's change log (`ms_store_changes`): before every search it replays the
 * changes committed since, so a replica sees every write committed before its search began,
 * wherever it was made, and its own writes go straight in (`applyOwn`).
 */
import type { VersionRow } from '../types.js';
import { ROW_COLS_VEC, toRow } from './pg-rows.js';
import { ResidentView } from './resident-view.js';
import type { SqlClient } from './sql-client.js';
import type { VectorScan } from './vector-scan.js';

/** Current rows read per statement when a resident view is loaded whole. */
const LOAD_PAGE = 10_000;

/** Where a followed view reads from, and how it is built. */
export interface FollowedSource {
  db: SqlClient;
  store: string;
  dim: number;
  scan: VectorScan;
  /** Current rows read per statement when the view is loaded whole. @default 10000 */
  loadPage: number | undefined;
}

export class PgResidentView {
  /** The current rows held, and the change they reflect (null: loaded by the next search). */
  private view: ResidentView | null = null;
  private viewChange = 0;
  private catchingUp: Promise<void> | null = null;
  /** The catch-up that starts once `catchingUp` ends, shared by every search that arrived meanwhile. */
  private nextCatchUp: Promise<void> | null = null;

  constructor(private readonly src: FollowedSource) {}

  /** Whether a view is held (one is loaded by the first search that needs it). */
  get held(): boolean {
    return this.view !== null;
  }

  /** Let go of the view; with `forget`, of the change it reflected too (a store opened again). */
  drop(forget = false): void {
    this.view = null;
    if (forget) this.viewChange = 0;
  }

  /** Let go of the view and of the scan's runtime session (a later search opens another). */
  async close(): Promise<void> {
    this.drop();
    await this.src.scan.close();
  }

  /**
   * The resident view, brought up to the database's latest committed change first: by a catch-up
   * that starts after this call, so it sees every write committed before the search began.
   * Searches arriving while one catch-up runs share the next (one query for all of them, not one
   * each in turn: at 200 searches/s they would queue behind each other's round trips). Given the
   * change number the host read after the request arrived (`changeSeen`, `storeChangesSql` in the
   * request's one statement), a view already that far along answers with no query at all.
   */
  async current(changeSeen?: number): Promise<ResidentView> {
    // The host read the store's change number after the request arrived, and the view already
    // holds every change up to it: nothing to read.
    if (changeSeen !== undefined && this.view && changeSeen <= this.viewChange) return this.view;
    this.nextCatchUp ??= (this.catchingUp ?? Promise.resolve())
      .catch(() => {})
      .then(() => {
        this.nextCatchUp = null;
        const run: Promise<void> = this.catchUp().finally(() => {
          if (this.catchingUp === run) this.catchingUp = null;
        });
        this.catchingUp = run;
        return run;
      });
    await this.nextCatchUp;
    return this.view!;
  }

  private async catchUp(): Promise<void> {
    const { db, store } = this.src;
    const head = Number((await db.query<{ change_no: number }>(`SELECT change_no FROM ms_store_meta WHERE store = $1`, [store])).rows[0]?.change_no ?? 0);
    if (this.view && head === this.viewChange) return;
    if (this.view) {
      const r = await db.query<{ change_no: number; memory_id: string }>(
        `SELECT change_no, memory_id FROM ms_store_changes WHERE store = $1 AND change_no > $2::bigint AND change_no <= $3::bigint ORDER BY change_no`,
        [store, this.viewChange, head],
      );
      const first = r.rows.length > 0 ? Number(r.rows[0]!.change_no) : head + 1;
      if (first === this.viewChange + 1) {
        const ids = [...new Set(r.rows.map((x) => x.memory_id))];
        const rows = (await db.query(`SELECT ${ROW_COLS_VEC} FROM ms_versions v WHERE v.store = $1 AND v.is_current AND v.memory_id = ANY($2::text[]) ORDER BY v.seq`, [store, ids])).rows.map(toRow);
        this.view.removeMemories(ids);
        this.view.add(rows);
        this.viewChange = head;
        return;
      }
      // Too far behind (the log was trimmed): load the whole view again.
    }
    // In seq order, as the embedded store fills its view: equal scores then rank alike (older
    // first). Page by page from one snapshot, the change number with it: the event loop turns
    // between pages (tokenizing 100k rows at once held it for seconds), and no memory is seen at
    // two moments.
    const loaded = await db.transaction(async (tx) => {
      await tx.query(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
      const m = (await tx.query<{ change_no: number; docs: number }>(`SELECT change_no, docs FROM ms_store_meta WHERE store = $1`, [store])).rows[0];
      const view = new ResidentView(this.src.dim, this.src.scan, Number(m?.docs ?? 0));
      const page = Math.max(1, Math.trunc(this.src.loadPage ?? LOAD_PAGE));
      for (let after = -1; ; ) {
        const rows = (
          await tx.query(`SELECT ${ROW_COLS_VEC} FROM ms_versions v WHERE v.store = $1 AND v.is_current AND v.seq > $2::bigint ORDER BY v.seq LIMIT ${page}`, [store, after])
        ).rows.map(toRow);
        view.add(rows, false);
        if (rows.length < page) break;
        after = rows[rows.length - 1]!.seq;
      }
      view.trainIfDue();
      return { view, change: Number(m?.change_no ?? 0) };
    });
    this.view = loaded.view;
    this.viewChange = loaded.change;
  }

  /**
   * This process's own committed write, straight into its resident view when the view is at the
   * change just before it and no catch-up is under way: no statement reads back what it just wrote
   * (a search after a burst of adds on this replica replayed thousands of rows first). Otherwise
   * the next catch-up replays it from the change log as any other write.
   */
  applyOwn(ids: readonly string[], changeNo: number, current: readonly VersionRow[] | null): void {
    const view = this.view;
    if (!view || !current || this.catchingUp || this.nextCatchUp || this.viewChange !== changeNo - 1) return;
    view.removeMemories(ids);
    view.add(current);
    this.viewChange = changeNo;
  }
}
