/**
 * Off-heap storage for what a resident view holds per row: each slot's bytes (or ints) live in one
 * growing typed array instead of a string or array object of its own. A major garbage collection
 * marks objects, not typed array contents, so 100k rows held here cost it nothing, where 100k
 * strings cost tens of milliseconds of marking on a busy server (BENCHMARKS.md, "Server backends").
 *
 * Writes append; a rewritten or cleared slot leaves its old range as garbage, reclaimed by copying
 * the live ranges into a new array once garbage outweighs what is live.
 */

type Elements = Uint8Array | Int32Array;

/** `a` grown to at least `n` entries (doubling), new ones set to `fill`; `a` itself when long enough. */
export function grown(a: Int32Array<ArrayBuffer>, n: number, fill: number): Int32Array<ArrayBuffer> {
  if (n <= a.length) return a;
  const out = new Int32Array(Math.max(n, a.length * 2)).fill(fill);
  out.set(a);
  return out;
}

/** Garbage tolerated before a compaction, whatever the live size (elements). */
const MIN_GARBAGE = 1 << 16;

export class SlotArena<T extends Elements> {
  private data: T;
  private used = 0;
  private garbage = 0;
  /** Per slot: start of its range in `data`, and its length (-1: nothing held). */
  private starts = new Int32Array(64);
  private lengths = new Int32Array(64).fill(-1);

  constructor(private readonly make: (length: number) => T) {
    this.data = make(1024);
  }

  /** Elements in use, live and garbage (for tests and sizing). */
  get footprint(): number {
    return this.used;
  }

  has(slot: number): boolean {
    return slot < this.lengths.length && this.lengths[slot]! >= 0;
  }

  /** Store `values` (the first `length` of them) as the slot's contents, replacing what it held. */
  set(slot: number, values: ArrayLike<number>, length = values.length): void {
    this.clear(slot);
    this.ensureSlot(slot);
    if (this.used + length > this.data.length) this.makeRoom(length);
    const at = this.used;
    if (ArrayBuffer.isView(values)) this.data.set((values as T).subarray(0, length), at);
    else for (let i = 0; i < length; i++) this.data[at + i] = values[i]!;
    this.starts[slot] = at;
    this.lengths[slot] = length;
    this.used += length;
  }

  /** The slot's contents as a view of the arena (valid until the next `set`); empty when none. */
  get(slot: number): T {
    const n = slot < this.lengths.length ? this.lengths[slot]! : -1;
    if (n < 0) return this.data.subarray(0, 0) as T;
    const at = this.starts[slot]!;
    return this.data.subarray(at, at + n) as T;
  }

  clear(slot: number): void {
    if (!this.has(slot)) return;
    this.garbage += this.lengths[slot]!;
    this.lengths[slot] = -1;
  }

  private ensureSlot(slot: number): void {
    this.starts = grown(this.starts, slot + 1, 0);
    this.lengths = grown(this.lengths, slot + 1, -1);
  }

  /** Room for `more` elements: compact when garbage outweighs the live ones, else grow. */
  private makeRoom(more: number): void {
    const live = this.used - this.garbage;
    const compact = this.garbage > MIN_GARBAGE && this.garbage > live;
    const size = Math.max(1024, compact ? Math.ceil((live + more) * 1.5) : Math.max(this.data.length * 2, this.used + more));
    const next = this.make(size);
    if (compact) {
      let at = 0;
      for (let s = 0; s < this.lengths.length; s++) {
        const n = this.lengths[s]!;
        if (n < 0) continue;
        next.set(this.data.subarray(this.starts[s]!, this.starts[s]! + n), at);
        this.starts[s] = at;
        at += n;
      }
      this.used = at;
      this.garbage = 0;
    } else {
      next.set(this.data.subarray(0, this.used));
    }
    this.data = next;
  }
}
