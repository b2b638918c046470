/** Bounded best-k collections of (slot, score) pairs, for the resident view's two channels. */

/**
 * The `k` best (slot, score) pairs seen, best first. Equal scores keep the order they were met
 * in, or, given `tie` (a slot's rank among equals, lower first), that order: then the result does
 * not depend on the order the slots were visited in.
 */
export class TopK {
  readonly slots: number[] = [];
  readonly scores: number[] = [];
  constructor(
    private readonly k: number,
    private readonly tie: ((slot: number) => number) | null = null,
  ) {}

  get full(): boolean {
    return this.scores.length >= this.k;
  }

  admits(score: number, slot = -1): boolean {
    if (this.k <= 0) return false;
    if (this.scores.length < this.k) return true;
    const last = this.scores[this.scores.length - 1]!;
    return score > last || (score === last && this.tie !== null && this.tie(slot) < this.tie(this.slots[this.slots.length - 1]!));
  }

  push(slot: number, score: number): void {
    let i = this.scores.length;
    while (i > 0 && (this.scores[i - 1]! < score || (this.tie !== null && this.scores[i - 1] === score && this.tie(this.slots[i - 1]!) > this.tie(slot)))) i--;
    this.slots.splice(i, 0, slot);
    this.scores.splice(i, 0, score);
    if (this.scores.length > this.k) {
      this.slots.pop();
      this.scores.pop();
    }
  }
}

/** The `k` highest-scoring slots offered, in a binary min-heap (the IVF pass's candidates). */
export class MinHeap {
  readonly slots: Int32Array;
  private readonly scores: Float64Array;
  size = 0;

  constructor(private readonly k: number) {
    this.slots = new Int32Array(k);
    this.scores = new Float64Array(k);
  }

  /** Keep `slot` if it is among the `k` best so far; returns the score a newcomer must beat now. */
  offer(slot: number, score: number): number {
    const k = this.k;
    const sl = this.slots;
    const sc = this.scores;
    if (this.size < k) {
      // Sift up.
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (sc[parent]! <= score) break;
        sl[i] = sl[parent]!;
        sc[i] = sc[parent]!;
        i = parent;
      }
      sl[i] = slot;
      sc[i] = score;
      return this.size < k ? -Infinity : sc[0]!;
    }
    if (score <= sc[0]!) return sc[0]!;
    // Replace the smallest and sift down.
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= k) break;
      const right = left + 1;
      const child = right < k && sc[right]! < sc[left]! ? right : left;
      if (sc[child]! >= score) break;
      sl[i] = sl[child]!;
      sc[i] = sc[child]!;
      i = child;
    }
    sl[i] = slot;
    sc[i] = score;
    return sc[0]!;
  }
}
