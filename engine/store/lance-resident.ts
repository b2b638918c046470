/**
 * LanceStore's current view held in memory (a ResidentView) while its rows fit a ResidentBudget:
 * loading it, keeping the rows it takes from the budget in step with its size, letting it go.
 */
import type * as lancedb from '@lancedb/lancedb';
import type { Logger } from '../log.js';
import { fromRecord, rowColumns, type LanceRecord } from './lance-rows.js';
import type { ResidentBudget } from './resident-budget.js';
import { ResidentView } from './resident-view.js';
import type { VectorScan } from './vector-scan.js';

export class HeldView {
  /** The current view in memory while it fits the budget (null: searched through LanceDB's indexes). */
  view: ResidentView | null = null;
  /** Rows taken from the budget for `view`. */
  private reserved = 0;

  constructor(
    private readonly budget: ResidentBudget,
    private readonly scan: VectorScan,
    private readonly dim: number,
    private readonly log: Logger,
  ) {}

  /** Read the whole current view into memory when the budget covers it (else hold nothing). */
  async load(current: lancedb.Table): Promise<void> {
    this.drop();
    const rows = await current.countRows();
    if (!this.budget.reserve(rows)) {
      this.log.info('current view searched through its indexes', { rows, residentBudget: this.budget.maxRows, budgetInUse: this.budget.usedRows });
      return;
    }
    this.reserved = rows;
    const view = new ResidentView(this.dim, this.scan, rows);
    // Batch by batch: the whole view read at once doubled the process's peak memory.
    for await (const batch of current.query().select([...rowColumns('view'), 'vector'])) {
      view.add((batch.toArray() as LanceRecord[]).map(fromRecord));
    }
    this.view = view;
  }

  /**
   * Keep the budget in step with the view's size; let go of the view when it outgrew the budget
   * ('outgrown': searches go through LanceDB's indexes from now on).
   */
  fit(): 'fits' | 'outgrown' {
    const view = this.view;
    if (!view) return 'fits';
    const grow = view.size - this.reserved;
    if (grow <= 0) {
      this.budget.release(-grow);
      this.reserved = view.size;
    } else if (this.budget.reserve(grow)) {
      this.reserved = view.size;
    } else {
      this.log.info('current view outgrew the resident budget: searched through its indexes from now on', { rows: view.size, residentBudget: this.budget.maxRows });
      this.drop();
      return 'outgrown';
    }
    return 'fits';
  }

  drop(): void {
    this.view = null;
    this.budget.release(this.reserved);
    this.reserved = 0;
  }

  /** Let go of the view and stop the scan's workers. */
  async close(): Promise<void> {
    this.drop();
    await this.scan.close();
  }
}
