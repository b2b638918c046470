/** A small seeded PRNG (mulberry32), so benchmark corpora and query sets are reproducible. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** Index in [0, n) with a Zipf-like skew (index 0 most likely), like real repo activity. */
  skewed(n: number, s = 1.1): number {
    let total = 0;
    for (let i = 1; i <= n; i++) total += 1 / i ** s;
    let x = this.next() * total;
    for (let i = 1; i <= n; i++) {
      x -= 1 / i ** s;
      if (x <= 0) return i - 1;
    }
    return n - 1;
  }
}
