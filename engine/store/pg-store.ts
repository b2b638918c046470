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
import { currentRows, validAt, type PlannedRow } from '../bitemporal.js';
import { EngineError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { Bm25Index } from '../text/bm25.js';
import { queryTerms, terms } from '../text/tokenize.js';
import type { VersionRow } from '../types.js';
import { cloneRow, exactHits } from './memory-store.js';
import { filterSql, SqlParams, validSql } from './pg-filter.js';
import { ensurePgvector, migrate } from './pg-migrate.js';
import { ResidentView } from './resident-view.js';
import type { SqlClient, SqlQueryable } from './sql-client.js';
import type { MaintenanceReport, MemoryStore, StoreHit, StoreSearch, StoreStats, VectorUpdate } from './types.js';
import { VectorScan } from './vector-scan.js';

export const STORE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE ms_store_meta (
     store text PRIMARY KEY,
     last_seq bigint NOT NULL DEFAULT 0,
     change_no bigint NOT NULL DEFAULT 0,
     docs bigint NOT NULL DEFAULT 0,
     total_length bigint NOT NULL DEFAULT 0
   );
   CREATE TABLE ms_versions (
     store text NOT NULL,
     seq bigint NOT NULL,
     version_id text NOT NULL,
     memory_id text NOT NULL,
     version int NOT NULL,
     tx int NOT NULL,
     content text NOT NULL,
     content_hash text NOT NULL,
     user_id text NOT NULL,
     agent_id text, app_id text, run_id text, owner_id text,
     space text NOT NULL,
     repo text, dir text,
     category text NOT NULL,
     metadata json NOT NULL,
     source json NOT NULL,
     valid_from bigint NOT NULL,
     valid_to bigint,
     recorded_at bigint NOT NULL,
     created_at bigint NOT NULL,
     deleted boolean NOT NULL,
     block json,
     vector real[],
     embed_model text,
     is_current boolean NOT NULL DEFAULT false,
     PRIMARY KEY (store, memory_id, version_id),
     CONSTRAINT ms_versions_seq UNIQUE (store, seq) DEFERRABLE INITIALLY DEFERRED,
     CONSTRAINT ms_versions_memory_version UNIQUE (store, memory_id, version) DEFERRABLE INITIALLY DEFERRED
   );
   CREATE INDEX ms_versions_current ON ms_versions (store, seq DESC) WHERE is_current;
   CREATE INDEX ms_versions_version_id ON ms_versions (store, version_id);
   CREATE TABLE ms_postings (
     store text NOT NULL,
     term text NOT NULL,
     version_id text NOT NULL,
     memory_id text NOT NULL,
     tf int NOT NULL,
     doc_length int NOT NULL
   );
   CREATE INDEX ms_postings_term ON ms_postings (store, term);
   CREATE INDEX ms_postings_version ON ms_postings (store, version_id);
   CREATE TABLE ms_term_df (store text NOT NULL, term text NOT NULL, df int NOT NULL, PRIMARY KEY (store, term));
   CREATE TABLE ms_store_changes (store text NOT NULL, change_no bigint NOT NULL, memory_id text NOT NULL, PRIMARY KEY (store, change_no, memory_id));`,
  // stats() counts the current rows another model (or none) embedded through this index: a few
  // index probes, where reading every current row took ~300 ms at 100k.
  `CREATE INDEX ms_versions_current_model ON ms_versions (store, embed_model) WHERE is_current;`,
];

/** Columns of a version row as read back (the vector only where asked). */
const ROW_COLS =
  'v.seq, v.version_id, v.memory_id, v.version, v.tx, v.content, v.content_hash, v.user_id, v.agent_id, v.app_id, v.run_id, v.owner_id, v.space, v.repo, v.dir, v.category, v.metadata, v.source, v.valid_from, v.valid_to, v.recorded_at, v.created_at, v.deleted, v.block, v.embed_model';
/**
 * With the vector, in PostgreSQL's binary array format (`array_send`): its float4 values as they
 * are stored, where the text form made the database print and Node parse ~10 characters a
 * dimension (loading 20k rows: 0.6 s instead of 3 s, a seventh of the CPU in Node).
 */
const ROW_COLS_VEC = `${ROW_COLS}, array_send(v.vector) AS vector_bin`;

/** A float4[] in PostgreSQL's binary array format (ndim, flags, element type, per dimension size and lower bound, then length + value per element). */
export function decodeFloat4Array(bin: Uint8Array): Float32Array {
  const view = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
  const ndim = view.getInt32(0);
  if (ndim === 0) return new Float32Array(0);
  if (ndim !== 1) throw new Error(`a vector has ${ndim} dimensions of array, not 1`);
  const n = view.getInt32(12);
  const out = new Float32Array(n);
  for (let i = 0, at = 20; i < n; i++, at += 8) out[i] = view.getInt32(at) === 4 ? view.getFloat32(at + 4) : NaN;
  return out;
}

const RECORD_FIELDS: readonly [string, string][] = [
  ['seq', 'bigint'], ['version_id', 'text'], ['memory_id', 'text'], ['version', 'int'], ['tx', 'int'], ['content', 'text'], ['content_hash', 'text'],
  ['user_id', 'text'], ['agent_id', 'text'], ['app_id', 'text'], ['run_id', 'text'], ['owner_id', 'text'], ['space', 'text'], ['repo', 'text'], ['dir', 'text'],
  ['category', 'text'], ['metadata', 'json'], ['source', 'json'], ['valid_from', 'bigint'], ['valid_to', 'bigint'], ['recorded_at', 'bigint'],
  ['created_at', 'bigint'], ['deleted', 'boolean'], ['block', 'json'], ['vector', 'real[]'], ['embed_model', 'text'],
];
const RECORD_TYPE = RECORD_FIELDS.map(([n, t]) => `${n} ${t}`).join(', ');
const RECORD_NAMES = RECORD_FIELDS.map(([n]) => n).join(', ');

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

/** Rows of a full-text search joined to their versions before the filter (at least; 4× the limit). */
const TEXT_POOL_MIN = 100;

/** Change-log entries kept for replicas catching up (older ones: a replica that far behind reloads). */
const CHANGES_KEPT = 200_000;
/** Current rows read per statement when a resident view is loaded whole. */
const LOAD_PAGE = 10_000;

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

type Row = Record<string, unknown>;

/**
 * Work a host does in the transaction that writes versions (the server records their events and
 * webhook deliveries there): it runs under the store's lock after the rows are in, and a failure
 * rolls the versions back with it, so no committed version lacks what the host writes for it.
 */
export type VersionsWriting = (tx: SqlQueryable, rows: readonly VersionRow[]) => Promise<void>;

function toRow(r: Row): VersionRow {
  const bin = r.vector_bin as Uint8Array | null | undefined;
  const vec = bin ? decodeFloat4Array(bin) : (r.vector as number[] | null | undefined);
  return {
    version_id: r.version_id as string,
    memory_id: r.memory_id as string,
    version: Number(r.version),
    tx: Number(r.tx),
    seq: Number(r.seq),
    content: r.content as string,
    content_hash: r.content_hash as string,
    user_id: r.user_id as string,
    agent_id: (r.agent_id as string | null) ?? null,
    app_id: (r.app_id as string | null) ?? null,
    run_id: (r.run_id as string | null) ?? null,
    owner_id: (r.owner_id as string | null) ?? null,
    space: r.space as VersionRow['space'],
    repo: (r.repo as string | null) ?? null,
    dir: (r.dir as string | null) ?? null,
    category: r.category as VersionRow['category'],
    metadata: (r.metadata as VersionRow['metadata']) ?? {},
    source: (r.source as VersionRow['source']) ?? { kind: 'api' },
    valid_from: Number(r.valid_from),
    valid_to: r.valid_to === null || r.valid_to === undefined ? null : Number(r.valid_to),
    recorded_at: Number(r.recorded_at),
    created_at: Number(r.created_at),
    deleted: r.deleted === true,
    block: (r.block as VersionRow['block']) ?? null,
    vector: vec ? (vec instanceof Float32Array ? vec : Float32Array.from(vec.map(Number))) : null,
    embed_model: (r.embed_model as string | null) ?? null,
  };
}

function recordOf(r: PlannedRow, seq: number): Row {
  return { ...r, seq, vector: r.vector ? Array.from(r.vector) : null };
}

/** pgvector's text form of a vector. */
function vectorLiteral(v: Float32Array): string {
  return `[${Array.from(v).join(',')}]`;
}

interface CurrentDoc {
  version_id: string;
  memory_id: string;
  content: string;
}

/**
 * Another process (a second server replica) may have written a memory since this one planned
 * its new versions: refuse rather than store two versions under one number. Checked under the
 * store's lock, so the answer holds until commit.
 */
function refuseTaken(rows: readonly PlannedRow[], existing: readonly { memory_id: string; version: number }[]): void {
  const first = new Map<string, number>();
  for (const r of rows) first.set(r.memory_id, Math.min(first.get(r.memory_id) ?? Infinity, r.version));
  const max = new Map<string, number>();
  for (const e of existing) max.set(e.memory_id, Math.max(max.get(e.memory_id) ?? 0, e.version));
  for (const [id, v] of max) {
    const want = first.get(id);
    if (want !== undefined && v >= want) {
      throw new EngineError('CONFLICT', `memory ${id} was changed concurrently (it already has version ${v}); nothing was written: read it again and retry`, { memory_id: id, version: v });
    }
  }
}

/** How the full-text statistics change when `removed` stop and `added` start being current rows. */
function termDelta(
  removed: readonly CurrentDoc[],
  added: readonly CurrentDoc[],
  termsOf: (r: CurrentDoc) => string[] = (r) => terms(r.content),
): { docs: number; total: number; df: [string, number][]; postings: { terms: string[]; ids: string[]; memories: string[]; tfs: number[]; lengths: number[] } } {
  const df = new Map<string, number>();
  let docs = 0;
  let total = 0;
  for (const r of removed) {
    const ts = termsOf(r);
    docs--;
    total -= ts.length;
    for (const t of new Set(ts)) df.set(t, (df.get(t) ?? 0) - 1);
  }
  const postings = { terms: [] as string[], ids: [] as string[], memories: [] as string[], tfs: [] as number[], lengths: [] as number[] };
  for (const r of added) {
    const ts = termsOf(r);
    docs++;
    total += ts.length;
    const tf = new Map<string, number>();
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) {
      df.set(t, (df.get(t) ?? 0) + 1);
      postings.terms.push(t);
      postings.ids.push(r.version_id);
      postings.memories.push(r.memory_id);
      postings.tfs.push(n);
      postings.lengths.push(ts.length);
    }
  }
  return { docs, total, df: [...df].filter(([, d]) => d !== 0), postings };
}

export class PgStore implements MemoryStore {
  readonly kind = 'postgres' as const;
  private readonly db: SqlClient;
  private readonly log: Logger;
  private activeModel: string | null = null;
  private opened = false;
  private usePgvector = false;
  /** pgvector ≥ 0.8: filtered HNSW scans keep going until they have `limit` rows. */
  private iterativeScan = false;
  /** Without pgvector: the current rows held for the vector channel, and the change they reflect. */
  private view: ResidentView | null = null;
  private viewChange = 0;
  private catchingUp: Promise<void> | null = null;
  /** The catch-up that starts once `catchingUp` ends, shared by every search that arrived meanwhile. */
  private nextCatchUp: Promise<void> | null = null;
  private readonly scan: VectorScan;
  private writing: VersionsWriting | null = null;
  private trimmedAt = 0;

  constructor(private readonly opts: PgStoreOptions) {
    this.db = opts.db;
    this.log = opts.logger ?? silentLogger;
    this.scan = new VectorScan(opts.dim, (reason) => this.log.warn('vector scans run in JavaScript', { reason }));
  }

  /** Which path serves the vector channel: 'pgvector' (HNSW in the database) or 'resident' (each process's memory). */
  get vectorPath(): 'pgvector' | 'resident' {
    return this.usePgvector ? 'pgvector' : 'resident';
  }

  async open(): Promise<void> {
    await migrate(this.db, 'store', STORE_MIGRATIONS);
    await this.db.query(`INSERT INTO ms_store_meta (store) VALUES ($1) ON CONFLICT (store) DO NOTHING`, [this.opts.store]);
    this.usePgvector = this.opts.pgvector !== false && (await ensurePgvector(this.db));
    if (this.usePgvector) {
      const dim = Math.trunc(this.opts.dim);
      await this.db.query(
        `CREATE INDEX IF NOT EXISTS ms_versions_hnsw_${dim} ON ms_versions USING hnsw ((vector::vector(${dim})) vector_cosine_ops) WHERE is_current AND cardinality(vector) = ${dim}`,
      );
      this.iterativeScan = await this.db
        .transaction(async (tx) => tx.query(`SET LOCAL hnsw.iterative_scan = strict_order`))
        .then(
          () => true,
          () => false,
        );
    } else {
      this.view = null;
      this.viewChange = 0;
    }
    this.opened = true;
    this.log.info('postgres store open', { store: this.opts.store, vector_path: this.vectorPath });
  }

  async close(): Promise<void> {
    this.opened = false;
    this.view = null;
  }

  /** Run `fn` in every transaction that writes versions (append, rewrite), before it commits; null stops. */
  alsoInTransaction(fn: VersionsWriting | null): void {
    this.writing = fn;
  }

  private check(): void {
    if (!this.opened) throw new EngineError('STORE_CLOSED', 'the store is closed');
  }

  // ------------------------------------------------------------------ writes

  /** Lock this store's meta row for the transaction: every writer of the store passes here in turn. */
  private async lock(tx: SqlQueryable): Promise<{ lastSeq: number; changeNo: number }> {
    const r = await tx.query<{ last_seq: number; change_no: number }>(`SELECT last_seq, change_no FROM ms_store_meta WHERE store = $1 FOR UPDATE`, [this.opts.store]);
    const m = r.rows[0];
    if (!m) throw new EngineError('STORE_CLOSED', `store ${this.opts.store} has no meta row: open it first`);
    return { lastSeq: Number(m.last_seq), changeNo: Number(m.change_no) };
  }

  private async insertRows(tx: SqlQueryable, rows: readonly PlannedRow[], firstSeq: number): Promise<void> {
    const records = rows.map((r, i) => recordOf(r, firstSeq + i));
    await tx.query(
      `INSERT INTO ms_versions (store, ${RECORD_NAMES})
       SELECT $1, x.* FROM json_to_recordset($2::json) AS x(${RECORD_TYPE})`,
      [this.opts.store, JSON.stringify(records)],
    );
  }

  /**
   * Run `body` (which changes versions of `memoryIds`) and bring the current view and the
   * full-text statistics of those memories up to date, all in `tx`.
   */
  private async recompute(tx: SqlQueryable, memoryIds: readonly string[], changeNo: number, body: () => Promise<void>, rewritten: ReadonlySet<string> = new Set()): Promise<number> {
    const ids = [...new Set(memoryIds)];
    const before = (await tx.query<CurrentDoc>(`SELECT version_id, memory_id, content FROM ms_versions WHERE store = $1 AND memory_id = ANY($2::text[]) AND is_current`, [this.opts.store, ids])).rows;
    await body();
    const after = (
      await tx.query<{ version_id: string; memory_id: string; version: number; tx: number; deleted: boolean; content: string }>(
        `SELECT version_id, memory_id, version, tx, deleted, content FROM ms_versions WHERE store = $1 AND memory_id = ANY($2::text[])`,
        [this.opts.store, ids],
      )
    ).rows;
    const byMemory = new Map<string, { version_id: string; version: number; tx: number; deleted: boolean; content: string }[]>();
    for (const r of after) {
      const list = byMemory.get(r.memory_id) ?? [];
      list.push({ ...r, version: Number(r.version), tx: Number(r.tx) });
      byMemory.set(r.memory_id, list);
    }
    const now = new Map<string, CurrentDoc>();
    for (const list of byMemory.values()) for (const r of currentRows(list as unknown as VersionRow[])) now.set(r.version_id, { version_id: r.version_id, memory_id: r.memory_id, content: r.content });
    const wasIds = new Set(before.map((r) => r.version_id));
    const removed = before.filter((r) => !now.has(r.version_id) || rewritten.has(r.version_id));
    const added = [...now.values()].filter((r) => !wasIds.has(r.version_id) || rewritten.has(r.version_id));

    const { docs, total, df: changed, postings } = termDelta(removed, added);
    const store = this.opts.store;
    if (removed.length > 0) {
      const rids = removed.map((r) => r.version_id);
      await tx.query(`DELETE FROM ms_postings WHERE store = $1 AND version_id = ANY($2::text[]) AND memory_id = ANY($3::text[])`, [store, rids, ids]);
      await tx.query(`UPDATE ms_versions SET is_current = false WHERE store = $1 AND version_id = ANY($2::text[]) AND memory_id = ANY($3::text[])`, [store, rids.filter((id) => !now.has(id)), ids]);
    }
    if (added.length > 0) {
      await tx.query(`UPDATE ms_versions SET is_current = true WHERE store = $1 AND version_id = ANY($2::text[]) AND memory_id = ANY($3::text[])`, [store, added.map((r) => r.version_id), ids]);
      if (postings.terms.length > 0) {
        await tx.query(`INSERT INTO ms_postings (store, term, version_id, memory_id, tf, doc_length) SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::int[])`, [
          store,
          postings.terms,
          postings.ids,
          postings.memories,
          postings.tfs,
          postings.lengths,
        ]);
      }
    }
    if (changed.length > 0) {
      const t = changed.map(([k]) => k);
      await tx.query(
        `INSERT INTO ms_term_df (store, term, df) SELECT $1, * FROM unnest($2::text[], $3::int[])
         ON CONFLICT (store, term) DO UPDATE SET df = ms_term_df.df + excluded.df`,
        [store, t, changed.map(([, d]) => d)],
      );
      await tx.query(`DELETE FROM ms_term_df WHERE store = $1 AND term = ANY($2::text[]) AND df <= 0`, [store, t]);
    }
    await tx.query(`INSERT INTO ms_store_changes (store, change_no, memory_id) SELECT $1, $2, * FROM unnest($3::text[])`, [store, changeNo, ids]);
    await tx.query(`UPDATE ms_store_meta SET docs = docs + $2, total_length = total_length + $3, change_no = $4 WHERE store = $1`, [store, docs, total, changeNo]);
    return after.length;
  }

  /**
   * Append versions: under the store's lock, one read of the memories' versions (to refuse a
   * version number another process took, and to know which rows stop or start being current),
   * then one statement that inserts the rows, switches `is_current`, replaces the postings,
   * updates document frequencies, records the change and moves the meta row on. The lock is held
   * for four round trips and the host's own writes (events), instead of a dozen statements.
   */
  async append(rows: readonly PlannedRow[]): Promise<VersionRow[]> {
    this.check();
    if (rows.length === 0) return [];
    const store = this.opts.store;
    const ids = [...new Set(rows.map((r) => r.memory_id))];
    // What needs no lock is worked out before taking it: the new rows' terms.
    const termsOf = new Map(rows.map((r) => [r.version_id, terms(r.content)]));
    const done = await this.db.transaction(async (tx) => {
      const m = await this.lock(tx);
      const existing = (
        await tx.query<{ version_id: string; memory_id: string; version: number; tx: number; deleted: boolean; content: string; is_current: boolean }>(
          `SELECT version_id, memory_id, version, tx, deleted, content, is_current FROM ms_versions WHERE store = $1 AND memory_id = ANY($2::text[])`,
          [store, ids],
        )
      ).rows.map((r) => ({ ...r, version: Number(r.version), tx: Number(r.tx) }));
      refuseTaken(rows, existing);
      const byMemory = new Map<string, { version_id: string; memory_id: string; version: number; tx: number; deleted: boolean; content: string }[]>();
      for (const r of [...existing, ...rows]) {
        const list = byMemory.get(r.memory_id);
        if (list) list.push(r);
        else byMemory.set(r.memory_id, [r]);
      }
      const now = new Set<string>();
      for (const list of byMemory.values()) for (const r of currentRows(list as unknown as VersionRow[])) now.add(r.version_id);
      const removed = existing.filter((r) => r.is_current && !now.has(r.version_id));
      const revived = existing.filter((r) => !r.is_current && now.has(r.version_id));
      const added: CurrentDoc[] = [...revived, ...rows.filter((r) => now.has(r.version_id))];
      const delta = termDelta(removed, added, (r) => termsOf.get(r.version_id) ?? terms(r.content));
      const p = new SqlParams([store]);
      const idsP = p.add(ids);
      const firstSeq = m.lastSeq + 1;
      const records = rows.map((r, i) => ({ ...recordOf(r, firstSeq + i), is_current: now.has(r.version_id) }));
      const ctes = [`v AS (INSERT INTO ms_versions (store, ${RECORD_NAMES}, is_current) SELECT $1, x.* FROM json_to_recordset(${p.add(JSON.stringify(records))}::json) AS x(${RECORD_TYPE}, is_current boolean))`];
      const flip = [...removed, ...revived].map((r) => r.version_id);
      if (flip.length > 0) {
        ctes.push(`f AS (UPDATE ms_versions SET is_current = (version_id = ANY(${p.add(revived.map((r) => r.version_id))}::text[])) WHERE store = $1 AND memory_id = ANY(${idsP}::text[]) AND version_id = ANY(${p.add(flip)}::text[]))`);
      }
      if (removed.length > 0) ctes.push(`dp AS (DELETE FROM ms_postings WHERE store = $1 AND memory_id = ANY(${idsP}::text[]) AND version_id = ANY(${p.add(removed.map((r) => r.version_id))}::text[]))`);
      if (delta.postings.terms.length > 0) {
        const q = delta.postings;
        ctes.push(`ip AS (INSERT INTO ms_postings (store, term, version_id, memory_id, tf, doc_length) SELECT $1, * FROM unnest(${p.add(q.terms)}::text[], ${p.add(q.ids)}::text[], ${p.add(q.memories)}::text[], ${p.add(q.tfs)}::int[], ${p.add(q.lengths)}::int[]))`);
      }
      if (delta.df.length > 0) {
        ctes.push(
          `d AS (INSERT INTO ms_term_df (store, term, df) SELECT $1, * FROM unnest(${p.add(delta.df.map(([t]) => t))}::text[], ${p.add(delta.df.map(([, d]) => d))}::int[]) ON CONFLICT (store, term) DO UPDATE SET df = ms_term_df.df + excluded.df)`,
        );
      }
      const changeNo = m.changeNo + 1;
      ctes.push(`c AS (INSERT INTO ms_store_changes (store, change_no, memory_id) SELECT $1, ${p.add(changeNo)}::bigint, * FROM unnest(${idsP}::text[]))`);
      await tx.query(
        `WITH ${ctes.join(',\n')}
         UPDATE ms_store_meta SET docs = docs + ${p.add(delta.docs)}::bigint, total_length = total_length + ${p.add(delta.total)}::bigint, change_no = ${p.add(changeNo)}::bigint, last_seq = ${p.add(m.lastSeq + rows.length)}::bigint WHERE store = $1`,
        p.values,
      );
      // Terms no current row holds any more (a statement of their own: one statement cannot see its own upsert).
      const gone = delta.df.filter(([, d]) => d < 0).map(([t]) => t);
      if (gone.length > 0) await tx.query(`DELETE FROM ms_term_df WHERE store = $1 AND term = ANY($2::text[]) AND df <= 0`, [store, gone]);
      const stored = rows.map((r, i) => cloneRow({ ...r, seq: firstSeq + i } as VersionRow));
      await this.writing?.(tx, stored);
      // Every memory's current rows are among the new ones (no older row stays current): the
      // resident view can take them as they are once this commits.
      const own = revived.length === 0 && ids.every((id) => existing.every((e) => e.memory_id !== id || !now.has(e.version_id)));
      return { stored, changeNo, current: own ? stored.filter((r) => now.has(r.version_id)) : null };
    });
    this.applyOwn(ids, done.changeNo, done.current);
    return done.stored;
  }

  /**
   * This process's own committed write, straight into its resident view when the view is at the
   * change just before it and no catch-up is under way: no statement reads back what it just wrote
   * (a search after a burst of adds on this replica replayed thousands of rows first). Otherwise
   * the next catch-up replays it from the change log as any other write.
   */
  private applyOwn(ids: readonly string[], changeNo: number, current: readonly VersionRow[] | null): void {
    const view = this.view;
    if (!view || !current || this.catchingUp || this.nextCatchUp || this.viewChange !== changeNo - 1) return;
    view.removeMemories(ids);
    view.add(current);
    this.viewChange = changeNo;
  }

  async rewrite(rows: readonly PlannedRow[]): Promise<VersionRow[]> {
    this.check();
    if (rows.length === 0) return [];
    return this.db.transaction(async (tx) => {
      const m = await this.lock(tx);
      const ids = rows.map((r) => r.version_id);
      await this.recompute(
        tx,
        rows.map((r) => r.memory_id),
        m.changeNo + 1,
        async () => {
          await tx.query(`DELETE FROM ms_versions v USING unnest($2::text[], $3::text[]) AS x(version_id, memory_id) WHERE v.store = $1 AND v.version_id = x.version_id AND v.memory_id = x.memory_id`, [
            this.opts.store,
            ids,
            rows.map((r) => r.memory_id),
          ]);
          await this.insertRows(tx, rows, m.lastSeq + 1);
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
      const m = await this.lock(tx);
      let removed = 0;
      await this.recompute(tx, memoryIds, m.changeNo + 1, async () => {
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
      const m = await this.lock(tx);
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
      const view = await this.currentView(req.changeSeen);
      return view.search({ text: req.text, vector: req.vector, model: req.model, filter: req.filter, validAt: req.validAt, limit: req.limit, exact: req.exact });
    }
    const hits = new Map<string, StoreHit>();
    if (req.vector && req.model) {
      const vhits = this.usePgvector ? await this.vectorSql(req) : await this.vectorResident(req);
      for (const h of vhits) hits.set(h.row.version_id, h);
    }
    if (req.text) {
      for (const h of await this.textSql(req)) {
        const hit = hits.get(h.row.version_id);
        if (hit) hit.textScore = h.textScore;
        else hits.set(h.row.version_id, h);
      }
    }
    return [...hits.values()];
  }

  /**
   * BM25 over the current view with the engine's formula (k1 = 1.2, b = 0.75), in one statement.
   * Ties rank as in the embedded store's top-k, which meets rows term by term in query order and
   * each term's rows oldest first: by the first query term the row holds, then by seq. Scores are
   * compared rounded to 1e-9 because SQL sums a row's terms in no set order (LoCoMo has many
   * exact ties).
   */
  private async textSql(req: StoreSearch): Promise<StoreHit[]> {
    const q = queryTerms(req.text ?? '');
    if (q.length === 0 || req.limit <= 0) return [];
    const p = new SqlParams([this.opts.store, q]);
    const where = [filterSql(req.filter, p), validSql(req.validAt, p)].join(' AND ');
    const limit = p.add(Math.trunc(req.limit));
    const scored = `
      WITH m AS (SELECT docs::float8 AS docs, CASE WHEN docs > 0 AND total_length > 0 THEN total_length::float8 / docs ELSE 1::float8 END AS avg
                 FROM ms_store_meta WHERE store = $1),
           q AS (SELECT d.term, ln(1::float8 + (m.docs - d.df + 0.5::float8) / (d.df + 0.5::float8)) AS idf
                 FROM ms_term_df d CROSS JOIN m WHERE d.store = $1 AND d.term = ANY($2::text[])),
           s AS (SELECT p.version_id, p.memory_id, min(array_position($2::text[], p.term)) AS first_term,
                        sum(q.idf * p.tf * 2.2::float8 / (p.tf + 1.2::float8 * (0.25::float8 + (0.75::float8 * p.doc_length) / m.avg))) AS score
                 FROM ms_postings p JOIN q ON q.term = p.term CROSS JOIN m
                 WHERE p.store = $1 GROUP BY p.version_id, p.memory_id)`;
    const rank = `ORDER BY round(s.score::numeric, 9) DESC, s.first_term, v.seq LIMIT ${limit}`;
    const join = `JOIN ms_versions v ON v.store = $1 AND v.memory_id = s.memory_id AND v.version_id = s.version_id WHERE v.is_current AND s.score > 0 AND ${where}`;
    // Most of the statement's time went into joining every scoring posting to its version (at 20k
    // rows, 6k lookups for four common terms): first only the best `pool` by score are joined.
    const pool = Math.max(TEXT_POOL_MIN, Math.trunc(req.limit) * 4);
    const first = await this.db.query<Row & { _r: number; _n: number; _floor: number }>(
      `${scored},
           top AS (SELECT * FROM s WHERE score > 0 ORDER BY score DESC LIMIT ${pool}),
           n AS (SELECT count(*)::int AS n, min(round(score::numeric, 9))::float8 AS floor FROM top)
      SELECT ${ROW_COLS}, s.score, round(s.score::numeric, 9)::float8 AS _r, n.n AS _n, n.floor AS _floor
      FROM top s CROSS JOIN n ${join} ${rank}`,
      p.values,
    );
    const rows = first.rows;
    const last = rows[rows.length - 1];
    // Exact when the pool held every scoring row, or when `limit` rows passed the filter and the
    // last of them scores above the pool's floor (no row left out can tie or beat it).
    const exact = last !== undefined && (Number(last._n) < pool || (rows.length >= req.limit && Number(last._r) > Number(last._floor)));
    const out = exact ? rows : (await this.db.query(`${scored} SELECT ${ROW_COLS}, s.score FROM s ${join} ${rank}`, p.values)).rows;
    return out.map((x) => ({ row: toRow(x), vectorScore: null, textScore: Number(x.score) }));
  }

  private async vectorSql(req: StoreSearch): Promise<StoreHit[]> {
    const dim = Math.trunc(this.opts.dim);
    if (!req.vector || req.vector.length !== dim || req.limit <= 0) return [];
    const p = new SqlParams([this.opts.store, vectorLiteral(req.vector), req.model]);
    const where = [filterSql(req.filter, p), validSql(req.validAt, p)].join(' AND ');
    const dist = `((v.vector::vector(${dim})) <=> $2::vector(${dim}))`;
    const sql = `SELECT ${ROW_COLS}, 1 - ${dist} AS score FROM ms_versions v
      WHERE v.store = $1 AND v.is_current AND cardinality(v.vector) = ${dim} AND v.embed_model = $3 AND ${where} AND ${dist} <> 'NaN'::float8
      ORDER BY ${dist} LIMIT ${p.add(Math.trunc(req.limit))}`;
    return this.db.transaction(async (tx) => {
      // HNSW returns at most ef_search rows; filters are applied while scanning, not after.
      await tx.query(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(Math.min(1000, Math.max(40, Math.trunc(req.limit))))]);
      if (this.iterativeScan) await tx.query(`SELECT set_config('hnsw.iterative_scan', 'strict_order', true)`);
      if (req.exact) await tx.query(`SET LOCAL enable_indexscan = off`);
      return (await tx.query(sql, p.values)).rows.map((x) => ({ row: toRow(x), vectorScore: Number(x.score), textScore: null }));
    });
  }

  private async vectorResident(req: StoreSearch): Promise<StoreHit[]> {
    const view = await this.currentView(req.changeSeen);
    return view.search({ text: null, vector: req.vector, model: req.model, filter: req.filter, validAt: req.validAt, limit: req.limit, exact: req.exact });
  }

  /**
   * Bring the resident view (if any) up to the database's latest change now rather than at the
   * next search: after another process purged, so this one stops holding the erased rows.
   */
  async refresh(): Promise<void> {
    if (this.opened && this.view) await this.currentView();
  }

  /**
   * The resident view, brought up to the database's latest committed change first: by a catch-up
   * that starts after this call, so it sees every write committed before the search began.
   * Searches arriving while one catch-up runs share the next (one query for all of them, not one
   * each in turn: at 200 searches/s they would queue behind each other's round trips). Given the
   * change number the host read after the request arrived (`changeSeen`, `storeChangesSql` in the
   * request's one statement), a view already that far along answers with no query at all.
   */
  private async currentView(changeSeen?: number): Promise<ResidentView> {
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
    const store = this.opts.store;
    const head = Number((await this.db.query<{ change_no: number }>(`SELECT change_no FROM ms_store_meta WHERE store = $1`, [store])).rows[0]?.change_no ?? 0);
    if (this.view && head === this.viewChange) return;
    if (this.view) {
      const r = await this.db.query<{ change_no: number; memory_id: string }>(
        `SELECT change_no, memory_id FROM ms_store_changes WHERE store = $1 AND change_no > $2::bigint AND change_no <= $3::bigint ORDER BY change_no`,
        [store, this.viewChange, head],
      );
      const first = r.rows.length > 0 ? Number(r.rows[0]!.change_no) : head + 1;
      if (first === this.viewChange + 1) {
        const ids = [...new Set(r.rows.map((x) => x.memory_id))];
        const rows = await this.rows(`SELECT ${ROW_COLS_VEC} FROM ms_versions v WHERE v.store = $1 AND v.is_current AND v.memory_id = ANY($2::text[]) ORDER BY v.seq`, [store, ids]);
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
    const loaded = await this.db.transaction(async (tx) => {
      await tx.query(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
      const m = (await tx.query<{ change_no: number; docs: number }>(`SELECT change_no, docs FROM ms_store_meta WHERE store = $1`, [store])).rows[0];
      const view = new ResidentView(this.opts.dim, this.scan, Number(m?.docs ?? 0));
      const page = Math.max(1, Math.trunc(this.opts.loadPage ?? LOAD_PAGE));
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
