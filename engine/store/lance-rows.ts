/**
 * Arrow schemas of LanceStore's two tables and conversion between their rows and records.
 *
 * - The version log (`versions`) keeps every field of every version as its own column, and no
 *   vector: it is the source of truth, and a vector is derived data (an export leaves it out too).
 *   At 384 dimensions a float32 vector was 1.5 KB of a ~1.8 KB log row, twice the size of the
 *   version's exported JSON; a vector the current view no longer holds was only ever read by
 *   searches of the past, which now find superseded versions by full text.
 * - The current view (`current`) keeps the columns filters and indexes need, the vector as
 *   float16 (768 bytes at 384 dimensions; cosine moves by ~1e-4, and it is the smallest element
 *   type LanceDB 0.31's vector search and IVF_RQ index accept: int8 and uint8 are refused), and
 *   the whole row as one payload column.
 */
import type * as lancedb from '@lancedb/lancedb';
import type * as arrow from 'apache-arrow';
import { arrowLib, lance, lanceArrow } from './lance-runtime.js';
import type { BlockLink, Category, Source, Space, VersionRow } from '../types.js';
import { terms } from '../text/tokenize.js';
import { metadataTokens } from './filter.js';

function field(name: string, type: arrow.DataType, nullable = true): arrow.Field {
  return new (arrowLib().Field)(name, type, nullable);
}

/**
 * The current view's copy of each whole row (every field but the vector) in one string column.
 * Reading a row back then reads one column instead of twenty-four: LanceDB fetches each column of
 * a search hit separately, and at 100k memories that made up over half of a search (≈4 of 6 ms per
 * channel for 48 hits; ≈1 ms with this column). The other columns of the view are the ones filters
 * and indexes need.
 */
export const PAYLOAD_COLUMN = 'row_json';

/**
 * The fields of a row in payload order. The payload is a JSON array `[PAYLOAD_FORMAT, ...values]`
 * rather than an object: the keys were a quarter of it on disk (336 → 260 bytes a row at 10k
 * memories of the bench corpus, after LanceDB's own string compression).
 */
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
] as const;
const PAYLOAD_FORMAT = 1;

/** Columns of the version log (every row field but the vector and its model). */
export const LOG_COLUMNS: readonly string[] = ROW_COLUMNS.filter((c) => c !== 'embed_model');

/** Columns a legacy version log (with vectors) is migrated from. */
export const LEGACY_LOG_VECTOR_COLUMNS = ['vector', 'embed_model'];

/** The columns both tables filter on, in their order in both schemas: who, where, what kind. */
function scopeFields(a: ReturnType<typeof arrowLib>): arrow.Field[] {
  return [
    field('user_id', new a.Utf8(), false),
    field('agent_id', new a.Utf8()),
    field('app_id', new a.Utf8()),
    field('run_id', new a.Utf8()),
    field('owner_id', new a.Utf8()),
    field('space', new a.Utf8(), false),
    field('repo', new a.Utf8()),
    field('dir', new a.Utf8()),
    field('category', new a.Utf8(), false),
  ];
}

/** A version's times (valid-time interval, when it was recorded, when its memory was created). */
function timeFields(a: ReturnType<typeof arrowLib>): arrow.Field[] {
  return [field('valid_from', new a.Int64(), false), field('valid_to', new a.Int64()), field('recorded_at', new a.Int64(), false), field('created_at', new a.Int64(), false)];
}

/** Schema of the version log. */
export function logSchema(): arrow.Schema {
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
    ...scopeFields(a),
    field('metadata', new a.Utf8(), false),
    field('meta_kv', new a.List(field('item', new a.Utf8()))),
    field('source', new a.Utf8(), false),
    ...timeFields(a),
    field('deleted', new a.Bool(), false),
    field('block', new a.Utf8()),
  ]);
}

/** Schema of the current view: filter and index columns, the float16 vector, the payload. */
export function viewSchema(dim: number): arrow.Schema {
  const a = arrowLib();
  return new a.Schema([
    field('version_id', new a.Utf8(), false),
    field('memory_id', new a.Utf8(), false),
    field('seq', new a.Int64(), false),
    field('search_terms', new a.Utf8(), false),
    ...scopeFields(a),
    field('meta_kv', new a.List(field('item', new a.Utf8()))),
    ...timeFields(a),
    field('vector', new a.FixedSizeList(dim, field('item', new a.Float16()))),
    field('embed_model', new a.Utf8()),
    field(PAYLOAD_COLUMN, new a.Utf8(), false),
  ]);
}

/** Columns to read whole rows from the current view (`view`) or the version log. */
export function rowColumns(table: 'view' | 'log'): string[] {
  return table === 'view' ? [PAYLOAD_COLUMN] : [...LOG_COLUMNS];
}

export type LanceRecord = Record<string, unknown>;

/** A vector of the dimension as a plain array, or null (a vector of another dimension is not stored). */
function storedVector(row: VersionRow, dim: number): number[] | null {
  return row.vector && row.vector.length === dim ? Array.from(row.vector) : null;
}

/** A version as a record of the version log (no vector). */
export function toLogRecord(row: VersionRow): LanceRecord {
  return {
    version_id: row.version_id,
    memory_id: row.memory_id,
    version: row.version,
    tx: row.tx,
    seq: BigInt(row.seq),
    content: row.content,
    search_terms: terms(row.content).join(' '),
    content_hash: row.content_hash,
    ...scopeValues(row),
    metadata: JSON.stringify(row.metadata),
    meta_kv: metadataTokens(row.metadata),
    source: JSON.stringify(row.source),
    ...timeValues(row),
    deleted: row.deleted,
    block: row.block ? JSON.stringify(row.block) : null,
  };
}

/** A row's values of `scopeFields`. */
function scopeValues(row: VersionRow): LanceRecord {
  const { user_id, agent_id, app_id, run_id, owner_id, space, repo, dir, category } = row;
  return { user_id, agent_id, app_id, run_id, owner_id, space, repo, dir, category };
}

/** A row's values of `timeFields`. */
function timeValues(row: VersionRow): LanceRecord {
  return { valid_from: BigInt(row.valid_from), valid_to: row.valid_to === null ? null : BigInt(row.valid_to), recorded_at: BigInt(row.recorded_at), created_at: BigInt(row.created_at) };
}

/** A current row as a record of the current view, without its vector (toViewTable adds it). */
function toViewRecord(row: VersionRow, dim: number): LanceRecord {
  const embedModel = storedVector(row, dim) ? row.embed_model : null;
  return {
    version_id: row.version_id,
    memory_id: row.memory_id,
    seq: BigInt(row.seq),
    search_terms: terms(row.content).join(' '),
    ...scopeValues(row),
    meta_kv: metadataTokens(row.metadata),
    ...timeValues(row),
    vector: null,
    embed_model: embedModel,
    [PAYLOAD_COLUMN]: JSON.stringify([PAYLOAD_FORMAT, ...ROW_COLUMNS.map((c) => (c === 'embed_model' ? embedModel : row[c]))]),
  };
}

/**
 * Current rows as an Arrow table of the current view, for `add` and `mergeInsert`. A vector of the
 * wrong dimension is stored as null. The float16 vector column is encoded here (floatToHalfBits):
 * Arrow's own conversion, which LanceDB's record path uses, turns values below 2^-14 (a few of the
 * 384 components of most unit vectors) into infinities and NaNs.
 */
export function toViewTable(rows: readonly VersionRow[], dim: number): arrow.Table {
  const a = lanceArrow();
  const base = lance().makeArrowTable(
    rows.map((r) => toViewRecord(r, dim)),
    { schema: viewSchema(dim) },
  ) as unknown as arrow.Table;
  const schema = base.schema;
  const vectorType = schema.fields.find((f) => f.name === 'vector')!.type as arrow.FixedSizeList<arrow.Float16>;
  let offset = 0;
  const batches = base.batches.map((batch) => {
    const n = batch.numRows;
    const bits = new Uint16Array(n * dim);
    const valid = new Uint8Array(Math.ceil(n / 8));
    let nulls = 0;
    for (let i = 0; i < n; i++) {
      const v = rows[offset + i]!.vector;
      if (v && v.length === dim) {
        floatToHalfBits(v, bits, i * dim);
        valid[i >> 3]! |= 1 << (i & 7);
      } else nulls++;
    }
    offset += n;
    const child = a.makeData({ type: vectorType.children[0]!.type, length: n * dim, data: bits });
    const vector = a.makeData({ type: vectorType, length: n, nullCount: nulls, nullBitmap: valid, child });
    const children = schema.fields.map((f) => (f.name === 'vector' ? vector : batch.getChild(f.name)!.data[0]!));
    return new a.RecordBatch(schema, a.makeData({ type: new a.Struct(schema.fields), length: n, nullCount: 0, children }));
  });
  return new a.Table(schema, batches);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * IEEE 754 half-precision bit patterns of `values` (rounded to nearest, ties to even; subnormals
 * kept; beyond ±65504 infinite), written into `out` from `at`.
 */
export function floatToHalfBits(values: ArrayLike<number>, out: Uint16Array, at = 0): void {
  for (let i = 0; i < values.length; i++) {
    f32[0] = values[i]!;
    const b = u32[0]!;
    const sign = (b >>> 16) & 0x8000;
    const exp = (b >>> 23) & 0xff;
    const mant = b & 0x7fffff;
    let h: number;
    if (exp === 0xff) h = sign | 0x7c00 | (mant ? 0x200 : 0);
    else {
      const e = exp - 127 + 15;
      if (e >= 0x1f) h = sign | 0x7c00;
      else if (e <= 0) {
        if (e < -10) h = sign;
        else {
          const m = mant | 0x800000;
          const shift = 14 - e;
          let half = m >>> shift;
          const rem = m & ((1 << shift) - 1);
          const halfway = 1 << (shift - 1);
          if (rem > halfway || (rem === halfway && half & 1)) half++;
          h = sign | half;
        }
      } else {
        let half = (e << 10) | (mant >>> 13);
        const rem = mant & 0x1fff;
        if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++;
        h = sign | half;
      }
    }
    out[at + i] = h;
  }
}

function num(v: unknown): number {
  return typeof v === 'bigint' ? Number(v) : (v as number);
}

function str(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}

let halfTable: Float32Array | null = null;

/** IEEE 754 half-precision bit patterns as float32 values. */
export function halfBitsToFloat32(bits: Uint16Array): Float32Array {
  if (!halfTable) {
    halfTable = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) {
      const sign = h & 0x8000 ? -1 : 1;
      const exp = (h >> 10) & 0x1f;
      const frac = h & 0x3ff;
      halfTable[h] = exp === 0 ? sign * frac * 2 ** -24 : exp === 31 ? (frac ? NaN : sign * Infinity) : sign * (1 + frac / 1024) * 2 ** (exp - 15);
    }
  }
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = halfTable[bits[i]!]!;
  return out;
}

/** A stored vector as float32 (Arrow hands float16 values over as their bit patterns). */
export function toFloat32(v: unknown): Float32Array | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Float32Array) return v;
  const maybe = v as { toArray?: () => ArrayLike<number> };
  const values = typeof maybe.toArray === 'function' ? maybe.toArray() : (v as ArrayLike<number>);
  if (values instanceof Uint16Array) return halfBitsToFloat32(values);
  return Float32Array.from(values);
}

/** A row from the payload: the array format, or the object format of views written before it. */
function fromPayload(payload: string, vector: unknown): VersionRow {
  const parsed = JSON.parse(payload) as unknown;
  if (Array.isArray(parsed)) {
    if (parsed[0] !== PAYLOAD_FORMAT) throw new Error(`unknown row payload format ${String(parsed[0])}`);
    const row = Object.fromEntries(ROW_COLUMNS.map((c, i) => [c, parsed[i + 1]])) as unknown as VersionRow;
    return { ...row, vector: toFloat32(vector) };
  }
  return { ...(parsed as Omit<VersionRow, 'vector'>), vector: toFloat32(vector) };
}

/**
 * A record read from LanceDB back into a row: from its PAYLOAD_COLUMN when it was read, else from
 * the separate columns of the version log (`vector` and `embed_model` only in a legacy log).
 */
export function fromRecord(r: LanceRecord): VersionRow {
  const payload = r[PAYLOAD_COLUMN];
  if (typeof payload === 'string') return fromPayload(payload, r.vector);
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

/**
 * Whether a current view is in this build's format for `dim`: float16 vectors of that dimension,
 * the array payload, no copies of the payload's text columns. Anything else (an older build's
 * view, another model's dimension) is rebuilt from the version log on open.
 */
export async function isCurrentViewFormat(tbl: lancedb.Table, dim: number): Promise<boolean> {
  const schema = await tbl.schema();
  const names = schema.fields.map((f) => f.name);
  const want = viewSchema(dim).fields.map((f) => f.name);
  if (names.length !== want.length || want.some((n, i) => names[i] !== n)) return false;
  const vector = schema.fields.find((f) => f.name === 'vector')!.type as { listSize?: number; children?: { type: { typeId: number; precision?: number } }[] };
  const item = vector.children?.[0]?.type;
  return vector.listSize === dim && item?.typeId === arrowLib().Type.Float && item.precision === arrowLib().Precision.HALF;
}

/** Whether a version log still holds vectors (written before they moved out of it). */
export async function isLegacyLog(tbl: lancedb.Table): Promise<boolean> {
  return (await tbl.schema()).fields.some((f) => f.name === 'vector');
}
