/** StringTable and SlotArena (the resident view's off-heap keys and rows) against a Map and arrays. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SlotArena } from '../../engine/store/slot-arena.js';
import { StringTable } from '../../engine/store/string-table.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SAMPLES = ['', 'a', 'postgres', 'Zürich', '東京のキャッシュ', '🙂 emoji', 'x'.repeat(5000), '0192f6c2-7a1e-7b3c-9d4e-5f6a7b8c9d0e'];

describe('StringTable', () => {
  it('finds exactly what a Map holds through adds and removes, with ids reused and strings intact', () => {
    const r = rng(3);
    const table = new StringTable();
    const want = new Map<string, number>();
    const word = (): string => (r() < 0.05 ? SAMPLES[Math.floor(r() * SAMPLES.length)]! : `term-${Math.floor(r() * 6000)}`);
    for (let step = 0; step < 60_000; step++) {
      const s = word();
      if (r() < 0.6) {
        const id = table.add(s);
        const before = want.get(s);
        if (before !== undefined) assert.equal(id, before, 'adding a held string returns its id');
        want.set(s, id);
      } else {
        const id = want.get(s);
        if (id === undefined) {
          assert.equal(table.id(s), -1);
          continue;
        }
        table.remove(id);
        want.delete(s);
        assert.equal(table.id(s), -1, 'a removed string is gone');
      }
    }
    assert.equal(table.size, want.size);
    const ids = new Set<number>();
    for (const [s, id] of want) {
      assert.equal(table.id(s), id);
      assert.equal(table.text(id), s);
      ids.add(id);
    }
    assert.equal(ids.size, want.size, 'distinct strings have distinct ids');
    assert.ok(table.idBound < 7000, `ids are reused (bound ${table.idBound})`);
  });

  it('tells apart strings whose hashes collide in a small table', () => {
    const table = new StringTable();
    const ids = Array.from({ length: 1000 }, (_, i) => table.add(`k${i}`));
    for (let i = 0; i < 1000; i += 2) table.remove(ids[i]!);
    for (let i = 0; i < 1000; i++) assert.equal(table.id(`k${i}`), i % 2 ? ids[i] : -1);
  });
});

describe('SlotArena', () => {
  it('returns what each slot was last given through rewrites and clears, and reclaims the garbage', () => {
    const r = rng(11);
    const arena = new SlotArena((n) => new Int32Array(n));
    const want: (number[] | null)[] = Array.from({ length: 500 }, () => null);
    const values = (): number[] => Array.from({ length: Math.floor(r() * 40) }, () => Math.floor(r() * 2 ** 31));
    // Every slot once, then churn in the first 50 only: compactions move the others' ranges.
    for (let slot = 0; slot < want.length; slot++) arena.set(slot, (want[slot] = values()));
    for (let step = 0; step < 40_000; step++) {
      const slot = Math.floor(r() * 50);
      if (r() < 0.8) {
        arena.set(slot, (want[slot] = values()));
      } else {
        arena.clear(slot);
        want[slot] = null;
      }
    }
    let live = 0;
    for (const [slot, held] of want.entries()) {
      assert.equal(arena.has(slot), held !== null);
      assert.deepEqual([...arena.get(slot)], held ?? []);
      live += held?.length ?? 0;
    }
    // ~640k values were written; what stays is the live ones plus at most what a compaction tolerates.
    assert.ok(arena.footprint <= live * 2 + (1 << 17), `footprint ${arena.footprint} for ${live} live`);
  });

  it('stores the first `length` of a typed array, and an empty range as held', () => {
    const arena = new SlotArena((n) => new Uint8Array(n));
    arena.set(3, Uint8Array.of(1, 2, 3, 4), 2);
    arena.set(7, []);
    assert.deepEqual([...arena.get(3)], [1, 2]);
    assert.equal(arena.has(7), true);
    assert.equal(arena.get(7).length, 0);
    assert.equal(arena.has(5), false);
    assert.equal(arena.has(1000), false);
  });
});
