/** How many rows resident views (resident-view.ts) may hold in memory, per store and per process. */

/**
 * Rows a store holds in memory by default. At 384 dimensions a row is ~1.5 KB of matrix and ~1 KB of JSON
 * and ids in typed arrays (a 100k view: 13 MB of heap); the daemon at 10k memories idles at ~245 MB,
 * under its 300 MB target.
 */
export const DEFAULT_RESIDENT_ROWS = 20_000;

/**
 * Rows the resident views of one process may hold in total: the daemon has one store, the server
 * shares one budget among its projects (first come, first served; a project that does not fit is
 * searched through its LanceDB indexes).
 */
export class ResidentBudget {
  private used = 0;

  constructor(readonly maxRows: number) {}

  get usedRows(): number {
    return this.used;
  }

  /** Take `rows` from the budget; false (and nothing taken) when they do not fit. */
  reserve(rows: number): boolean {
    if (this.used + rows > this.maxRows) return false;
    this.used += rows;
    return true;
  }

  release(rows: number): void {
    this.used = Math.max(0, this.used - rows);
  }
}
