/**
 * The approximate vector channel of large resident views: int8 codes scored in WebAssembly
 * (Int8Lists), the IVF index (trained in the background, kept up to date through changes, even
 * changes made while it trains), and what a search through it returns against the exact scan.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VersionRow } from '../../engine/index.js';
import { Int8Lists, int8ListsAvailable, int8DotsModule } from '../../engine/store/int8-lists.js';
import { ResidentView } from '../../engine/store/resident-view.js';
import { VectorScan } from '../../engine/store/vector-scan.js';
import { row } from '../helpers/rows.js';

const T = Date.parse('2026-02-01T00:00:00Z');
const DIM = 32;
const MODEL = 'test-model';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  return v.map((x) => x / Math.sqrt(n));
}

/** Vectors around `clusters` centres (as real embeddings cluster by topic). */
function clustered(n: number, clusters: number, seed: number): Float32Array[] {
  const r = rng(seed);
  const centres = Array.from({ length: clusters }, () => unit(Float32Array.from({ length: DIM }, () => r() - 0.5)));
  return Array.from({ length: n }, (_, i) => unit(centres[i % clusters]!.map((x) => x + (r() - 0.5) * 0.35)));
}

function rowsOf(vectors: readonly Float32Array[], first = 1): VersionRow[] {
  return vectors.map((vector, i) => ({ ...row({ content: `row ${first + i}`, vector, embed_model: MODEL, user_id: i % 2 ? 'bob' : 'alice', valid_from: T }), seq: first + i }));
}

function dot(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!;
  return d;
}

const search = (view: ResidentView, vector: Float32Array, over: { exact?: boolean; filter?: Record<string, unknown>; limit?: number } = {}) =>
  view.search({ text: null, vector, model: MODEL, filter: over.filter ?? {}, validAt: T + 1, limit: over.limit ?? 10, exact: over.exact });

describe('Int8Lists', { skip: int8ListsAvailable() ? false : 'no WebAssembly SIMD' }, () => {
  it('compiles, and scores each list as the float dot product does, through removals and moves', () => {
    assert.ok((globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } }).WebAssembly.validate(int8DotsModule()));
    const vectors = clustered(600, 7, 3);
    const flat = new Float32Array(vectors.length * DIM);
    vectors.forEach((v, i) => flat.set(v, i * DIM));
    const lists = new Int8Lists(DIM, 3);
    const members: number[][] = [[], [], []];
    vectors.forEach((_, i) => {
      const l = i % 3;
      assert.equal(lists.push(l, flat, i * DIM), members[l]!.length);
      members[l]!.push(i);
    });
    // Remove from the middle: the last row moves into the hole, in the codes as in `members`.
    for (const pos of [5, 0, 40]) {
      const m = members[1]!;
      lists.removeAt(1, pos);
      m[pos] = m[m.length - 1]!;
      m.pop();
    }
    // Grow one list well past its room (it moves; once enough room is left behind, all are packed).
    for (let k = 0; k < 5; k++) lists.reserve(2, lists.size(2) * 2 + 64);
    const query = unit(Float32Array.from({ length: DIM }, (_, i) => Math.sin(i)));
    lists.setQuery(query);
    for (let l = 0; l < 3; l++) {
      assert.equal(lists.size(l), members[l]!.length);
      const count = lists.score(l, 0, members[l]!.length);
      assert.equal(count, members[l]!.length, 'every row is above a floor of -Infinity');
      const approx = Array.from({ length: count }, (_, i) => lists.hitScore[2 * i + 1]!);
      assert.deepEqual(
        Array.from({ length: count }, (_, i) => lists.hitRow[2 * i]!),
        Array.from({ length: count }, (_, i) => i),
      );
      const exact = members[l]!.map((i) => dot(vectors[i]!, query));
      // Proportional to the dot product (the query's own scale is left out), within int8 rounding.
      const k = exact.reduce((s, e, j) => s + e * approx[j]!, 0) / exact.reduce((s, e) => s + e * e, 0);
      for (let j = 0; j < exact.length; j++) assert.ok(Math.abs(approx[j]! / k - exact[j]!) < 0.02, `list ${l} row ${j}: ${approx[j]! / k} vs ${exact[j]}`);
      // Above a floor: exactly the rows that score higher, in order, with the same scores.
      const floor = [...approx].sort((x, y) => x - y)[Math.floor(approx.length / 2)]!;
      const above = lists.score(l, 0, members[l]!.length, floor);
      const want = approx.map((a, j) => [j, a] as const).filter(([, a]) => a > floor);
      assert.equal(above, want.length);
      for (let i = 0; i < above; i++) assert.deepEqual([lists.hitRow[2 * i], lists.hitScore[2 * i + 1]], [want[i]![0], want[i]![1]]);
    }
  });
});

describe('ResidentView with an IVF index', () => {
  const scan = new VectorScan(DIM);

  it('stays exact below its threshold, and past it finds what the exact scan finds (recall@10 ≥ 0.9), scores exact', async () => {
    const vectors = clustered(4000, 40, 1);
    const small = new ResidentView(DIM, scan, 0, { approximateFrom: 5000 });
    small.add(rowsOf(vectors));
    await small.indexed();
    assert.equal(small.approximate, false);
    const view = new ResidentView(DIM, scan, 0, { approximateFrom: 1000 });
    view.add(rowsOf(vectors));
    assert.equal(view.approximate, false, 'exact until the index is trained (in the background)');
    await view.indexed();
    assert.equal(view.approximate, true);
    const queries = clustered(60, 40, 2);
    let found = 0;
    for (const q of queries) {
      const exact = await search(view, q, { exact: true });
      assert.deepEqual(
        (await search(small, q)).map((h) => h.row.seq),
        exact.map((h) => h.row.seq),
        'below the threshold: the exact scan',
      );
      const approx = await search(view, q);
      assert.equal(approx.length, 10);
      const want = new Set(exact.map((h) => h.row.version_id));
      found += approx.filter((h) => want.has(h.row.version_id)).length;
      for (const h of approx) assert.ok(Math.abs(h.vectorScore! - dot(q, vectors[h.row.seq - 1]!)) < 1e-6, 'every score is the exact cosine');
      for (let i = 1; i < approx.length; i++) assert.ok(approx[i - 1]!.vectorScore! >= approx[i]!.vectorScore!);
    }
    assert.ok(found / (queries.length * 10) >= 0.9, `recall@10 ${found / (queries.length * 10)}`);
  });

  it('follows rows added, removed and given new vectors after training, and while it trains', async () => {
    const vectors = clustered(3000, 30, 5);
    const view = new ResidentView(DIM, scan, 0, { approximateFrom: 1000 });
    const rows = rowsOf(vectors);
    view.add(rows);
    // Changes while the index trains: rows added and removed, a vector replaced.
    const during = rowsOf(clustered(200, 30, 6), 5001);
    view.add(during);
    view.removeMemories(rows.slice(0, 100).map((r) => r.memory_id));
    const moved = rows[500]!;
    const elsewhere = clustered(1, 1, 99)[0]!;
    view.setVector(moved.version_id, elsewhere, MODEL);
    await view.indexed();
    assert.equal(view.approximate, true);
    // And after it.
    const after = rowsOf(clustered(100, 30, 7), 6001);
    view.add(after);
    view.removeMemories(during.slice(0, 50).map((r) => r.memory_id));
    const own = async (r: VersionRow, v: Float32Array): Promise<string | undefined> => (await search(view, v, { limit: 1 }))[0]?.row.version_id;
    for (const r of [...during.slice(50), ...after].filter((_, i) => i % 10 === 0)) assert.equal(await own(r, r.vector!), r.version_id, `row ${r.seq} is found by its own vector`);
    assert.equal(await own(moved, elsewhere), moved.version_id, 'a row found by its new vector');
    const gone = new Set([...rows.slice(0, 100), ...during.slice(0, 50)].map((r) => r.version_id));
    for (const r of [...rows.slice(0, 100), ...during.slice(0, 50)].filter((_, i) => i % 10 === 0)) {
      const hits = await search(view, r.vector!, { limit: 20 });
      assert.ok(!hits.some((h) => gone.has(h.row.version_id)), 'removed rows are never returned');
    }
  });

  it('scans every row when the filter lets few through, and breaks equal scores by seq whatever the order rows were added', async () => {
    const vectors = clustered(3000, 30, 8);
    const view = new ResidentView(DIM, scan, 0, { approximateFrom: 1000 });
    const rows = rowsOf(vectors).map((r, i) => ({ ...r, run_id: i % 200 === 0 ? 'rare' : null }));
    view.add(rows);
    await view.indexed();
    for (const q of clustered(10, 30, 9)) {
      const filter = { run_id: 'rare' };
      assert.deepEqual(
        (await search(view, q, { filter })).map((h) => h.row.version_id),
        (await search(view, q, { filter, exact: true })).map((h) => h.row.version_id),
      );
    }
    // Two rows with one vector: the older (lower seq) ranks first, though added second.
    const twin = clustered(1, 1, 77)[0]!;
    const newer = { ...row({ content: 'twin newer', vector: twin, embed_model: MODEL, valid_from: T }), seq: 9002 };
    const older = { ...row({ content: 'twin older', vector: twin, embed_model: MODEL, valid_from: T }), seq: 9001 };
    view.add([newer]);
    view.add([older]);
    for (const exact of [true, false]) assert.deepEqual((await search(view, twin, { limit: 2, exact })).map((h) => h.row.seq), [9001, 9002]);
  });
});
