/**
 * Imports running on the daemon, with how far each has got, for `GET /v1/status` (the dashboard
 * shows them as progress). An import is tracked from the moment its lines are validated until its
 * request closes, whether it succeeded or failed.
 */

export interface ImportRun {
  started_at: string;
  /** Version lines in the upload. */
  total: number;
  /** Lines handed to the engine so far (it stores them in batches, so this leads by one batch at most). */
  processed: number;
}

export interface ImportHandle {
  advance(): void;
  done(): void;
}

export class ImportProgress {
  private readonly runs = new Set<ImportRun>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** Start tracking an import of `total` lines; call `done` once it ends (idempotent). */
  begin(total: number): ImportHandle {
    const run: ImportRun = { started_at: new Date(this.clock()).toISOString(), total, processed: 0 };
    this.runs.add(run);
    return {
      advance: () => {
        if (run.processed < run.total) run.processed++;
      },
      done: () => void this.runs.delete(run),
    };
  }

  /** Running imports, oldest first (copies). */
  list(): ImportRun[] {
    return [...this.runs].map((r) => ({ ...r }));
  }
}
