/**
 * What LanceStore keeps in memory about each memory, so that the write path needs no table scan:
 * the highest version, the size of the last transaction, and whether it is a tombstone. One number
 * per memory (about 100 bytes with its key), so 100k memories cost ~10 MB.
 */

export interface CatalogEntry {
  maxVersion: number;
  /** Rows of the last transaction (the memory's current rows unless deleted). */
  rows: number;
  /** The last transaction is a tombstone (no current rows). */
  deleted: boolean;
}

/** The fields of a version row the catalog reads. */
export interface CatalogRow {
  memory_id: string;
  version: number;
  tx: number;
  deleted: boolean;
}

/** Column access to version rows (an Arrow table's children), so loading creates no row objects. */
export interface CatalogColumns {
  length: number;
  memoryId(i: number): string;
  version(i: number): number;
  tx(i: number): number;
  deleted(i: number): boolean;
}

const ROWS_CAP = 0xffff;

function pack(e: CatalogEntry): number {
  return (e.maxVersion * 0x10000 + Math.min(e.rows, ROWS_CAP)) * 2 + (e.deleted ? 1 : 0);
}

function unpack(x: number): CatalogEntry {
  const deleted = x % 2 === 1;
  x = Math.floor(x / 2);
  return { maxVersion: Math.floor(x / 0x10000), rows: x % 0x10000, deleted };
}

export class Catalog {
  private readonly entries = new Map<string, number>();

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
    this.set(memoryId, { maxVersion, rows: last.length, deleted: last.some((r) => r.deleted) });
  }

  private set(memoryId: string, e: CatalogEntry): void {
    this.entries.set(memoryId, pack(e));
  }

  delete(memoryId: string): void {
    this.entries.delete(memoryId);
  }

  clear(): void {
    this.entries.clear();
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
    for (let i = 0; i < n; i++) {
      const o = rowOrd[i]!;
      if (cols.tx(i) !== lastTx[o]) continue;
      rows[o]!++;
      if (cols.deleted(i)) deleted[o] = 1;
    }
    for (let o = 0; o < m; o++) this.set(ids[o]!, { maxVersion: maxVersion[o]!, rows: rows[o]!, deleted: deleted[o] === 1 });
  }
}
