import { EngineError } from './errors.js';

/**
 * At most `limit` tasks at once; the rest wait their turn in arrival order.
 *
 * LanceStore runs its searches through one: each search is two LanceDB queries that use every
 * core, so more of them at once only share the same cores, and under an open-ended stream of
 * requests (a server offered more searches than it can answer) the pile of concurrent queries
 * made each one slower until throughput collapsed (measured at 10k memories on 2 cores, 200
 * searches/s offered: 14 answered per second with no gate, 198-200 with a gate of 2-3).
 *
 * The server runs every search through one of its own (the query's embedding, the store's search
 * and the ranking), so searches it cannot answer yet wait here at no cost instead of filling the
 * model's queue and the main thread ahead of everything else (writes included). A task given a
 * `signal` that aborts while it waits (its client went away) leaves the queue without running.
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: { start: () => void }[] = [];
  /** Most tasks ever running at once (for tests and diagnostics). */
  peak = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a concurrency gate needs a limit of at least 1, got ${limit}`);
  }

  /** Tasks waiting for a turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw cancelled();
    if (this.running >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const entry = {
          // Given the slot of a task that finished. A signal that aborted since: the slot goes on.
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            if (signal?.aborted) {
              reject(cancelled());
              this.handOff();
            } else resolve();
          },
        };
        const onAbort = (): void => {
          const i = this.waiting.indexOf(entry);
          if (i < 0) return; // handed the slot already: `start` sees the abort
          this.waiting.splice(i, 1);
          reject(cancelled());
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(entry);
      });
    } else this.running++;
    this.peak = Math.max(this.peak, this.running);
    try {
      return await task();
    } finally {
      this.handOff();
    }
  }

  /**
   * A task finished: its slot passes straight to the next in line (so a newcomer cannot overtake
   * it), which starts on the next turn of the event loop. Tasks that never wait on I/O (a search
   * whose query vector is cached) would otherwise run one after another in one chain of promise
   * callbacks: a backlog of them kept a server from reading its sockets for seconds.
   */
  private handOff(): void {
    const next = this.waiting.shift();
    if (next) setImmediate(next.start);
    else this.running--;
  }
}

/** What a task whose signal aborted before its turn rejects with. */
export function cancelled(): EngineError {
  return new EngineError('CANCELLED', 'the request was cancelled before it ran (its client went away)');
}
