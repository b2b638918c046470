/**
 * A set of local seqs kept as sorted, disjoint, inclusive ranges. Sync records here which stored
 * versions above the push cursor are already on the server (pulled from it, or acknowledged out of
 * order), so they are never pushed back. Versions pulled together get consecutive seqs, so the set
 * stays a handful of ranges even after a bootstrap of thousands of versions.
 */
export type Range = [number, number];

export class SeqRanges {
  private ranges: Range[];

  constructor(ranges: readonly Range[] = []) {
    this.ranges = [];
    for (const [a, b] of ranges) this.addRange(a, b);
  }

  has(seq: number): boolean {
    let lo = 0;
    let hi = this.ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [a, b] = this.ranges[mid]!;
      if (seq < a) hi = mid - 1;
      else if (seq > b) lo = mid + 1;
      else return true;
    }
    return false;
  }

  add(seq: number): void {
    this.addRange(seq, seq);
  }

  /** Add [a, b], merging with overlapping or adjacent ranges. */
  addRange(a: number, b: number): void {
    if (b < a) return;
    const out: Range[] = [];
    let cur: Range = [a, b];
    let placed = false;
    for (const r of this.ranges) {
      if (r[1] + 1 < cur[0]) out.push(r);
      else if (cur[1] + 1 < r[0]) {
        if (!placed) {
          out.push(cur);
          placed = true;
        }
        out.push(r);
      } else cur = [Math.min(cur[0], r[0]), Math.max(cur[1], r[1])];
    }
    if (!placed) out.push(cur);
    this.ranges = out.sort((x, y) => x[0] - y[0]);
  }

  /** Forget every seq up to and including `seq` (the push cursor passed them). */
  dropThrough(seq: number): void {
    this.ranges = this.ranges.filter((r) => r[1] > seq).map((r): Range => [Math.max(r[0], seq + 1), r[1]]);
  }

  /** How many seqs the set holds. */
  get size(): number {
    return this.ranges.reduce((n, [a, b]) => n + (b - a + 1), 0);
  }

  toJSON(): Range[] {
    return this.ranges.map((r): Range => [r[0], r[1]]);
  }
}
