/**
 * What LanceStore keeps in memory about each memory, so that the write path and common reads need
 * no table scan: the highest version, the size of the last transaction, and whether it is a
 * tombstone. One number per memory (about 100 bytes with its key), so 100k memories cost ~10 MB.
 *
 * Besides per-memory facts it keeps two summaries of the current view that let a read leave out
 * the valid-time clause when it cannot exclude anything (that clause is a full-column filter):
 * - memories whose current rows include a closed valid interval (`valid_to` set);
 * - an upper bound of every current row's `valid_from` (only raised between rebuilds, so it stays
 *   an upper bound when rows leave the view).
 */

export interface CatalogEntry {
  maxVersion: number;
  /** Rows of the last transaction (the memory's current rows unless deleted). */
  rows: number;
  /** The last transaction is a tombstone (no current rows). */
  deleted: boolean;
  /** Some current row has a `valid_to`. */
  bounded: boolean;
}

/** The fields of a version row the catalog reads. */
export interface CatalogRow {
  memory_id: string;
  version: number;
  tx: number;
  deleted: boolean;
  valid_from: number;
  valid_to: number | null;
}

/** Column access to version rows (an Arrow table's children), so loading creates no row objects. */
export interface CatalogColumns {
  length: number;
  memoryId(i: number): string;
  version(i: number): number;
  tx(i: number): number;
  deleted(i: number): boolean;
  validFrom(i: number): number;
  hasValidTo(i: number): boolean;
}

/** Version-log columns the catalog is built from. */
export const CATALOG_COLUMNS = ['memory_id', 'version', 'tx', 'deleted', 'valid_from', 'valid_to'] as const;

/** Column access to an Arrow table holding CATALOG_COLUMNS (the schema is fixed: every one exists). */
export function catalogColumns(t: { numRows: number; getChild(name: string): { get(i: number): unknown; isValid(i: number): boolean } | null }): CatalogColumns {
  const [memoryId, version, tx, deleted, validFrom, validTo] = CATALOG_COLUMNS.map((c) => t.getChild(c)!);
  return {
    length: t.numRows,
    memoryId: (i) => String(memoryId!.get(i)),
    version: (i) => Number(version!.get(i)),
    tx: (i) => Number(tx!.get(i)),
    deleted: (i) => Boolean(deleted!.get(i)),
    validFrom: (i) => Number(validFrom!.get(i)),
    hasValidTo: (i) => validTo!.isValid(i),
  };
}

const ROWS_CAP = 0xffff;

function pack(e: CatalogEntry): number {
  return ((e.maxVersion * 0x10000 + Math.min(e.rows, ROWS_CAP)) * 2 + (e.deleted ? 1 : 0)) * 2 + (e.bounded ? 1 : 0);
}

function unpack(x: number): CatalogEntry {
  const bounded = x % 2 === 1;
  x = Math.floor(x / 2);
  const deleted = x % 2 === 1;
  x = Math.floor(x / 2);
  return { maxVersion: Math.floor(x / 0x10000), rows: x % 0x10000, deleted, bounded };
}

export class Catalog {
  private readonly entries = new Map<string, number>();
  private readonly boundedIds = new Set<string>();
  private readonly multiRowIds = new Set<string>();
  private maxFrom = Number.NEGATIVE_INFINITY;

  get size(): number {
    return this.entries.size;
  }

  get(memoryId: string): CatalogEntry | undefined {
    const x = this.entries.get(memoryId);
    return x === undefined ? undefined : unpack(x);
  }

  /** Record a memory's state from its versions: all of them, or at least its last transaction. */
  update(memoryId: string, rows: readonly CatalogRow[]): void {
    if (rows.length === 0) return;
    let maxVersion = 0;
    let lastTx = 0;
    for (const r of rows) {
      if (r.version > maxVersion) maxVersion = r.version;
      if (r.tx > lastTx) lastTx = r.tx;
    }
    const last = rows.filter((r) => r.tx === lastTx);
    const deleted = last.some((r) => r.deleted);
    if (!deleted) for (const r of last) if (r.valid_from > this.maxFrom) this.maxFrom = r.valid_from;
    this.set(memoryId, { maxVersion, rows: last.length, deleted, bounded: !deleted && last.some((r) => r.valid_to !== null) });
  }

  private set(memoryId: string, e: CatalogEntry): void {
    this.entries.set(memoryId, pack(e));
    if (e.bounded) this.boundedIds.add(memoryId);
    else this.boundedIds.delete(memoryId);
    if (!e.deleted && e.rows > 1) this.multiRowIds.add(memoryId);
    else this.multiRowIds.delete(memoryId);
  }

  delete(memoryId: string): void {
    this.entries.delete(memoryId);
    this.boundedIds.delete(memoryId);
    this.multiRowIds.delete(memoryId);
  }

  clear(): void {
    this.entries.clear();
    this.boundedIds.clear();
    this.multiRowIds.clear();
    this.maxFrom = Number.NEGATIVE_INFINITY;
  }

  /** Rebuild from every version row, in any order. */
  load(cols: CatalogColumns): void {
    this.clear();
    const ordinal = new Map<string, number>();
    const ids: string[] = [];
    const n = cols.length;
    const rowOrd = new Int32Array(n);
    const maxVersion: number[] = [];
    const lastTx: number[] = [];
    for (let i = 0; i < n; i++) {
      const id = cols.memoryId(i);
      let o = ordinal.get(id);
      if (o === undefined) {
        o = ids.length;
        ordinal.set(id, o);
        ids.push(id);
        maxVersion.push(0);
        lastTx.push(0);
      }
      rowOrd[i] = o;
      maxVersion[o] = Math.max(maxVersion[o]!, cols.version(i));
      lastTx[o] = Math.max(lastTx[o]!, cols.tx(i));
    }
    const m = ids.length;
    const rows = new Uint32Array(m);
    const deleted = new Uint8Array(m);
    const bounded = new Uint8Array(m);
    const validFrom = new Float64Array(m).fill(Number.NEGATIVE_INFINITY);
    for (let i = 0; i < n; i++) {
      const o = rowOrd[i]!;
      if (cols.tx(i) !== lastTx[o]) continue;
      rows[o]!++;
      if (cols.deleted(i)) deleted[o] = 1;
      if (cols.hasValidTo(i)) bounded[o] = 1;
      validFrom[o] = Math.max(validFrom[o]!, cols.validFrom(i));
    }
    for (let o = 0; o < m; o++) {
      const del = deleted[o] === 1;
      if (!del && validFrom[o]! > this.maxFrom) this.maxFrom = validFrom[o]!;
      this.set(ids[o]!, { maxVersion: maxVersion[o]!, rows: rows[o]!, deleted: del, bounded: !del && bounded[o] === 1 });
    }
  }

  /**
   * Whether a read of the current view at `validAt` must filter on valid time: `from` when some
   * current row may start after it, `to` when some current row has a closed interval.
   */
  validityNeeds(validAt: number): { from: boolean; to: boolean } {
    return { from: validAt < this.maxFrom, to: this.boundedIds.size > 0 };
  }

  /** Memories with more than one current row (a change in the world keeps the earlier fact). */
  multiRow(): string[] {
    return [...this.multiRowIds];
  }
}
