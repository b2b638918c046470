/**
 * At most `limit` tasks at once; the rest wait their turn in arrival order.
 *
 * LanceStore runs its searches through one: each search is two LanceDB queries that use every
 * core, so more of them at once only share the same cores, and under an open-ended stream of
 * requests (a server offered more searches than it can answer) the pile of concurrent queries
 * made each one slower until throughput collapsed (measured at 10k memories on 2 cores, 200
 * searches/s offered: 14 answered per second with no gate, 198-200 with a gate of 2-3).
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** Most tasks ever running at once (for tests and diagnostics). */
  peak = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a concurrency gate needs a limit of at least 1, got ${limit}`);
  }

  /** Tasks waiting for a turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    this.peak = Math.max(this.peak, this.running);
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next task, so a newcomer cannot overtake it.
      if (next) next();
      else this.running--;
    }
  }
}
