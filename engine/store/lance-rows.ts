/** Arrow schema of the LanceDB tables and conversion between rows and records. */
import type * as lancedb from '@lancedb/lancedb';
import type * as arrow from 'apache-arrow';
import { arrowLib } from './lance-runtime.js';
import type { BlockLink, Category, Source, Space, VersionRow } from '../types.js';
import { terms } from '../text/tokenize.js';
import { metadataTokens } from './filter.js';

function field(name: string, type: arrow.DataType, nullable = true): arrow.Field {
  return new (arrowLib().Field)(name, type, nullable);
}

/**
 * The current view's copy of each whole row (every field but the vector) as one JSON string.
 * Reading a row back then reads one column instead of twenty-four: LanceDB fetches each column of
 * a search hit separately, and at 100k memories that made up over half of a search (≈4 of 6 ms per
 * channel for 48 hits; ≈1 ms with this column). The separate columns stay for filters and indexes.
 */
export const PAYLOAD_COLUMN = 'row_json';

/**
 * Schema of both tables (`versions`: every version; `current`: the current view, which also has
 * the PAYLOAD_COLUMN).
 */
export function lanceSchema(dim: number, opts: { payload: boolean }): arrow.Schema {
  const a = arrowLib();
  return new a.Schema([
    field('version_id', new a.Utf8(), false),
    field('memory_id', new a.Utf8(), false),
    field('version', new a.Int32(), false),
    field('tx', new a.Int32(), false),
    field('seq', new a.Int64(), false),
    field('content', new a.Utf8(), false),
    // The engine's own index terms (stemmed, stop words dropped), full-text indexed with a plain
    // whitespace tokenizer, so queries and documents are normalized by the same code in both stores.
    field('search_terms', new a.Utf8(), false),
    field('content_hash', new a.Utf8(), false),
    field('user_id', new a.Utf8(), false),
    field('agent_id', new a.Utf8()),
    field('app_id', new a.Utf8()),
    field('run_id', new a.Utf8()),
    field('owner_id', new a.Utf8()),
    field('space', new a.Utf8(), false),
    field('repo', new a.Utf8()),
    field('dir', new a.Utf8()),
    field('category', new a.Utf8(), false),
    field('metadata', new a.Utf8(), false),
    field('meta_kv', new a.List(field('item', new a.Utf8()))),
    field('source', new a.Utf8(), false),
    field('valid_from', new a.Int64(), false),
    field('valid_to', new a.Int64()),
    field('recorded_at', new a.Int64(), false),
    field('created_at', new a.Int64(), false),
    field('deleted', new a.Bool(), false),
    field('block', new a.Utf8()),
    field('vector', new a.FixedSizeList(dim, field('item', new a.Float32()))),
    field('embed_model', new a.Utf8()),
    ...(opts.payload ? [field(PAYLOAD_COLUMN, new a.Utf8(), false)] : []),
  ]);
}

/** Columns read back for rows (everything but the derived `meta_kv`; `vector` only on request). */
export const ROW_COLUMNS = [
  'version_id',
  'memory_id',
  'version',
  'tx',
  'seq',
  'content',
  'content_hash',
  'user_id',
  'agent_id',
  'app_id',
  'run_id',
  'owner_id',
  'space',
  'repo',
  'dir',
  'category',
  'metadata',
  'source',
  'valid_from',
  'valid_to',
  'recorded_at',
  'created_at',
  'deleted',
  'block',
  'embed_model',
];

/** Columns to read whole rows from a table with (`payload`) or without the PAYLOAD_COLUMN. */
export function rowColumns(payload: boolean): string[] {
  return payload ? [PAYLOAD_COLUMN] : ROW_COLUMNS;
}

export type LanceRecord = Record<string, unknown>;

/**
 * A row as a plain record for `table.add` (with the PAYLOAD_COLUMN when `payload`). A vector of the
 * wrong dimension is stored as null.
 */
export function toRecord(row: VersionRow, dim: number, payload = false): LanceRecord {
  const vector = row.vector && row.vector.length === dim ? Array.from(row.vector) : null;
  const record: LanceRecord = {
    version_id: row.version_id,
    memory_id: row.memory_id,
    version: row.version,
    tx: row.tx,
    seq: BigInt(row.seq),
    content: row.content,
    search_terms: terms(row.content).join(' '),
    content_hash: row.content_hash,
    user_id: row.user_id,
    agent_id: row.agent_id,
    app_id: row.app_id,
    run_id: row.run_id,
    owner_id: row.owner_id,
    space: row.space,
    repo: row.repo,
    dir: row.dir,
    category: row.category,
    metadata: JSON.stringify(row.metadata),
    meta_kv: metadataTokens(row.metadata),
    source: JSON.stringify(row.source),
    valid_from: BigInt(row.valid_from),
    valid_to: row.valid_to === null ? null : BigInt(row.valid_to),
    recorded_at: BigInt(row.recorded_at),
    created_at: BigInt(row.created_at),
    deleted: row.deleted,
    block: row.block ? JSON.stringify(row.block) : null,
    vector,
    embed_model: vector ? row.embed_model : null,
  };
  if (payload) {
    // Exactly the row's fields (ROW_COLUMNS), whatever else the object carries.
    const fields = Object.fromEntries(ROW_COLUMNS.map((c) => [c, row[c as keyof VersionRow]]));
    record[PAYLOAD_COLUMN] = JSON.stringify({ ...fields, embed_model: record.embed_model });
  }
  return record;
}

function num(v: unknown): number {
  return typeof v === 'bigint' ? Number(v) : (v as number);
}

function str(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}

function toFloat32(v: unknown): Float32Array | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Float32Array) return v;
  const maybe = v as { toArray?: () => ArrayLike<number> };
  if (typeof maybe.toArray === 'function') return Float32Array.from(maybe.toArray());
  return Float32Array.from(v as ArrayLike<number>);
}

/** A record read from LanceDB back into a row (from its PAYLOAD_COLUMN when it was read). */
export function fromRecord(r: LanceRecord): VersionRow {
  const payload = r[PAYLOAD_COLUMN];
  if (typeof payload === 'string') return { ...(JSON.parse(payload) as Omit<VersionRow, 'vector'>), vector: toFloat32(r.vector) };
  return {
    version_id: String(r.version_id),
    memory_id: String(r.memory_id),
    version: num(r.version),
    tx: num(r.tx),
    seq: num(r.seq),
    content: String(r.content),
    content_hash: String(r.content_hash),
    user_id: String(r.user_id),
    agent_id: str(r.agent_id),
    app_id: str(r.app_id),
    run_id: str(r.run_id),
    owner_id: str(r.owner_id),
    space: String(r.space) as Space,
    repo: str(r.repo),
    dir: str(r.dir),
    category: String(r.category) as Category,
    metadata: JSON.parse(String(r.metadata)) as Record<string, unknown>,
    source: JSON.parse(String(r.source)) as Source,
    valid_from: num(r.valid_from),
    valid_to: r.valid_to === null || r.valid_to === undefined ? null : num(r.valid_to),
    recorded_at: num(r.recorded_at),
    created_at: num(r.created_at),
    deleted: Boolean(r.deleted),
    block: r.block ? (JSON.parse(String(r.block)) as BlockLink) : null,
    vector: toFloat32(r.vector),
    embed_model: str(r.embed_model),
  };
}

/** Rows grouped by memory, each group in version order. */
export function groupBy(rows: readonly VersionRow[]): VersionRow[][] {
  const m = new Map<string, VersionRow[]>();
  for (const r of rows) {
    const list = m.get(r.memory_id);
    if (list) list.push(r);
    else m.set(r.memory_id, [r]);
  }
  return [...m.values()].map((vs) => vs.sort((a, b) => a.version - b.version));
}

/** The vector dimension of a table's schema (-1 when it has none). */
export async function vectorDim(tbl: lancedb.Table): Promise<number> {
  const schema = await tbl.schema();
  const f = schema.fields.find((x) => x.name === 'vector');
  const t = f?.type as { listSize?: number } | undefined;
  return t?.listSize ?? -1;
}
