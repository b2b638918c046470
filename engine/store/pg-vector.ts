/**
 * PgStore's vector channel on pgvector: an HNSW cosine index over the current rows of the store's
 * dimension, and the nearest-neighbour search through it.
 */
import { filterSql, SqlParams, validSql } from './pg-filter.js';
import { ROW_COLS, toRow } from './pg-rows.js';
import type { SqlClient } from './sql-client.js';
import type { StoreHit, StoreSearch } from './types.js';

/** pgvector's text form of a vector. */
function vectorLiteral(v: Float32Array): string {
  return `[${Array.from(v).join(',')}]`;
}

/** Create the HNSW index for vectors of `dim` dimensions; resolves to whether pgvector can scan it iteratively (≥ 0.8). */
export async function prepareHnsw(db: SqlClient, dimensions: number): Promise<boolean> {
  const dim = Math.trunc(dimensions);
  await db.query(
    `CREATE INDEX IF NOT EXISTS ms_versions_hnsw_${dim} ON ms_versions USING hnsw ((vector::vector(${dim})) vector_cosine_ops) WHERE is_current AND cardinality(vector) = ${dim}`,
  );
  return await db
    .transaction(async (tx) => tx.query(`SET LOCAL hnsw.iterative_scan = strict_order`))
    .then(
      () => true,
      () => false,
    );
}

/** The `limit` current rows nearest the query vector by cosine distance, through the HNSW index (`exact`: without it). */
export async function vectorSql(db: SqlClient, at: { store: string; dim: number; iterativeScan: boolean }, req: StoreSearch): Promise<StoreHit[]> {
  const dim = Math.trunc(at.dim);
  if (!req.vector || req.vector.length !== dim || req.limit <= 0) return [];
  const p = new SqlParams([at.store, vectorLiteral(req.vector), req.model]);
  const where = [filterSql(req.filter, p), validSql(req.validAt, p)].join(' AND ');
  const dist = `((v.vector::vector(${dim})) <=> $2::vector(${dim}))`;
  const sql = `SELECT ${ROW_COLS}, 1 - ${dist} AS score FROM ms_versions v
    WHERE v.store = $1 AND v.is_current AND cardinality(v.vector) = ${dim} AND v.embed_model = $3 AND ${where} AND ${dist} <> 'NaN'::float8
    ORDER BY ${dist} LIMIT ${p.add(Math.trunc(req.limit))}`;
  return db.transaction(async (tx) => {
    // HNSW returns at most ef_search rows; filters are applied while scanning, not after.
    await tx.query(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(Math.min(1000, Math.max(40, Math.trunc(req.limit))))]);
    if (at.iterativeScan) await tx.query(`SELECT set_config('hnsw.iterative_scan', 'strict_order', true)`);
    if (req.exact) await tx.query(`SET LOCAL enable_indexscan = off`);
    return (await tx.query(sql, p.values)).rows.map((x) => ({ row: toRow(x), vectorScore: Number(x.score), textScore: null }));
  });
}
