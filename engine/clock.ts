/** Source of time for everything the engine records. Injected so tests can control it. */
export interface Clock {
  /** Epoch milliseconds, UTC. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  constructor(private t: number) {}
  now(): number {
    return this.t;
  }
  set(t: number | string): void {
    this.t = typeof t === 'string' ? Date.parse(t) : t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
