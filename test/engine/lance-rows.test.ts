/** The current view's float16 vectors: encoding, and unit vectors of the production size through a real store. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LanceStore, ResidentBudget } from '../../engine/index.js';
import { floatToHalfBits, halfBitsToFloat32 } from '../../engine/store/lance-rows.js';
import { Rng } from '../../scripts/bench/rng.js';
import { row } from '../helpers/rows.js';
import { tempDir } from '../helpers/tmp.js';

const half = (x: number): number => {
  const bits = new Uint16Array(1);
  floatToHalfBits([x], bits);
  return halfBitsToFloat32(bits)[0]!;
};

/** A unit vector with Gaussian components, as sentence embeddings are shaped. */
function unitVector(r: Rng, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i += 2) {
    const u = Math.max(r.next(), 1e-12);
    const g = Math.sqrt(-2 * Math.log(u));
    v[i] = g * Math.cos(2 * Math.PI * r.next());
    if (i + 1 < dim) v[i + 1] = g * Math.sin(2 * Math.PI * r.next());
  }
  for (const x of v) n += x * x;
  return v.map((x) => x / Math.sqrt(n));
}

function cosine(a: Float32Array, b: Float32Array): number {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return d / Math.sqrt(na * nb);
}

describe('float16 vectors', () => {
  it('round to the nearest half, subnormals included, and never turn a small value infinite', () => {
    const r = new Rng(3);
    for (let i = 0; i < 200_000; i++) {
      const x = (r.next() * 2 - 1) * 10 ** -Math.floor(r.next() * 10);
      const h = half(x);
      assert.ok(Number.isFinite(h), `${x} -> ${h}`);
      // Half an ulp: 2^-11 relative for normal halves, 2^-25 absolute below 2^-14.
      assert.ok(Math.abs(h - x) <= Math.max(Math.abs(x) * 2 ** -11, 2 ** -25) * 1.0001, `${x} -> ${h}`);
    }
    assert.equal(half(1e-9), 0);
    assert.equal(half(2 ** -24), 2 ** -24, 'the smallest subnormal');
    assert.equal(half(6.1e-5), 6.097555160522461e-5, 'just below the smallest normal');
    assert.equal(half(65504), 65504);
    assert.equal(half(65520), Infinity);
    assert.equal(half(-1), -1);
    assert.ok(Number.isNaN(half(NaN)));
    assert.equal(half(1 + 2 ** -11), 1, 'a tie rounds to even');
  });

  it('stores 384-dimension unit vectors so they read back within 1e-4 cosine, in memory and through LanceDB', async () => {
    const r = new Rng(11);
    const rows = Array.from({ length: 60 }, (_, i) => row({ content: `vector probe ${i}`, vector: unitVector(r, 384), embed_model: 'm' }));
    for (const budget of [undefined, new ResidentBudget(0)]) {
      const dir = path.join(tempDir('lance-f16-'), 'db');
      let store = new LanceStore({ dir, dim: 384, ...(budget ? { residentBudget: budget } : {}) });
      await store.open();
      await store.append(rows);
      await store.close();
      store = new LanceStore({ dir, dim: 384, ...(budget ? { residentBudget: budget } : {}) });
      await store.open();
      store.setActiveModel('m');
      try {
        const back = new Map((await store.currentOf(rows.map((x) => x.memory_id))).map((x) => [x.version_id, x.vector!]));
        for (const w of rows) {
          const v = back.get(w.version_id)!;
          assert.ok(v.every(Number.isFinite), 'every component finite');
          assert.ok(cosine(v, w.vector!) > 0.9999, `cosine ${cosine(v, w.vector!)}`);
          const hits = await store.search({ text: null, vector: w.vector, model: 'm', filter: {}, validAt: Date.now(), limit: 1, exact: true });
          assert.equal(hits[0]?.row.version_id, w.version_id, 'found by its own vector');
          assert.ok(hits[0]!.vectorScore! > 0.9999);
        }
      } finally {
        await store.close();
      }
    }
  });
});
