/** ResidentView (the in-memory current view) and VectorScan against plain reference computations. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cosine, FakeEmbedder, type MemoryFilter, type VersionRow } from '../../engine/index.js';
import { matchesFilter } from '../../engine/store/filter.js';
import { ResidentView } from '../../engine/store/resident-view.js';
import { JS_SCAN_MAX_PRODUCTS, scanInJs, VectorScan } from '../../engine/store/vector-scan.js';
import { Bm25Index } from '../../engine/text/bm25.js';
import { row } from '../helpers/rows.js';

const T = Date.parse('2026-02-01T00:00:00Z');
const WORDS = ['postgres', 'redis', 'billing', 'deploy', 'cache', 'queue', 'auth', 'token', 'retry', 'index', 'schema', 'lint'];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function rowsOf(n: number, dim: number, seed = 1): Promise<VersionRow[]> {
  const r = rng(seed);
  const embedder = new FakeEmbedder(dim);
  const out: VersionRow[] = [];
  for (let i = 0; i < n; i++) {
    const content = Array.from({ length: 3 + Math.floor(r() * 8) }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ') + ` note${i}`;
    out.push({ ...row({ content, vector: await embedder.embedQuery(content), embed_model: embedder.model, user_id: i % 3 === 0 ? 'bob' : 'alice', valid_from: T }), seq: i + 1 });
  }
  return out;
}

/** The reference: exact cosine over every matching row, and BM25 over exactly the rows held. */
function reference(rows: readonly VersionRow[], q: { text: string | null; vector: Float32Array | null; keep: (r: VersionRow) => boolean; limit: number }): { vector: string[]; text: [string, number][] } {
  const idx = new Bm25Index();
  for (const r of rows) idx.add(r.version_id, r.content);
  const byId = new Map(rows.map((r) => [r.version_id, r]));
  const vector = q.vector
    ? rows
        .filter((r) => r.vector && q.keep(r))
        .map((r) => [r.version_id, cosine(q.vector!, r.vector!)] as const)
        .sort((a, b) => b[1] - a[1])
        .slice(0, q.limit)
        .map(([id]) => id)
    : [];
  const text = q.text ? [...idx.score(q.text, (id) => q.keep(byId.get(id)!))].sort((a, b) => b[1] - a[1]).slice(0, q.limit) : [];
  return { vector, text };
}

describe('ResidentView', () => {
  const scan = new VectorScan(16);

  it('filters exactly as matchesFilter does: equality, null, lists, the personal owner, ids, and what it checks on the row', async () => {
    const users = ['alice', 'bob', 'carol'];
    const repos = ['github.com/acme/app', 'github.com/acme/api', null];
    const rows: VersionRow[] = Array.from({ length: 60 }, (_, i) => ({
      ...row({
        content: `shared note${i}`,
        user_id: users[i % 3]!,
        repo: repos[i % 3 === 0 ? 2 : i % 2]!,
        space: i % 4 === 0 ? 'personal' : 'project',
        owner_id: i % 4 === 0 ? users[(i >> 2) % 3]! : null,
        run_id: i % 5 === 0 ? `run-${i % 3}` : null,
        category: i % 2 ? 'decision' : 'fact',
        metadata: { kind: i % 3 ? 'episode' : 'memory', n: i },
        recorded_at: T + i,
        created_at: T + i,
        valid_from: T,
      }),
      seq: i + 1,
    }));
    const view = new ResidentView(16, scan);
    view.add(rows);
    const filters: MemoryFilter[] = [
      {},
      { user_id: 'bob' },
      { user_id: ['alice', 'carol', 'nobody'] },
      { repo: null },
      { repo: 'github.com/acme/api', category: 'fact' },
      { run_id: 'run-1' },
      { run_id: null, space: 'project' },
      { user_id: 'nobody' },
      { personal_owner: 'alice' },
      { personal_owner: 'nobody', repo: ['github.com/acme/app'] },
      { memory_ids: [rows[3]!.memory_id, rows[7]!.memory_id, 'missing'] },
      { metadata: { kind: 'memory' } },
      { created_at: { gte: T + 30 }, user_id: 'alice' },
      { any_of: [{ repo: null }, { user_id: 'bob', personal_owner: 'carol' }] },
      { any_of: [{ repo: 'github.com/acme/app', space: 'project' }, { space: 'personal', owner_id: 'alice' }, { run_id: 'run-2' }] },
      { any_of: [{ repo: 'github.com/acme/api' }, { metadata: { kind: 'memory' } }] },
      { any_of: [] },
    ];
    for (const filter of filters) {
      const got = (await view.search({ text: 'shared', vector: null, model: null, filter, validAt: T + 1, limit: 100 })).map((h) => h.row.version_id).sort();
      const want = rows.filter((r) => matchesFilter(r, filter)).map((r) => r.version_id).sort();
      assert.deepEqual(got, want, JSON.stringify(filter));
    }
    const [hit] = await view.search({ text: 'note7', vector: null, model: null, filter: {}, validAt: T + 1, limit: 1 });
    assert.deepEqual(hit?.row, { ...rows[7]!, vector: null }, 'a hit is the row as it was added, without its vector');
  });

  it('drops every row of a memory held in several rows, and only its rows, from both channels', async () => {
    const rows = await rowsOf(6, 16);
    // Rows 0-2 are three blocks of one memory, row 3 a memory of one row, rows 4-5 two of another.
    const memory = (i: number): string => (i < 3 ? 'm-a' : i === 3 ? 'm-b' : 'm-c');
    const held = rows.map((r, i) => ({ ...r, memory_id: memory(i), content: `${r.content} shared` }));
    const view = new ResidentView(16, scan);
    view.add(held);
    const ids = async (): Promise<string[]> => (await view.search({ text: 'shared', vector: null, model: null, filter: {}, validAt: T + 1, limit: 10 })).map((h) => h.row.memory_id).sort();
    assert.deepEqual(await ids(), ['m-a', 'm-a', 'm-a', 'm-b', 'm-c', 'm-c']);
    view.add([{ ...held[4]!, content: 'replaced shared' }]); // the same version again: replaced, not added
    view.removeMemories(['m-a']);
    assert.deepEqual(await ids(), ['m-b', 'm-c', 'm-c']);
    view.removeMemories(['m-c', 'm-b']);
    assert.deepEqual(await ids(), []);
    view.add(held.slice(0, 2));
    assert.deepEqual(await ids(), ['m-a', 'm-a'], 'slots freed and taken again');
  });

  it('finds what exact cosine and BM25 over the same rows find, with the same scores', async () => {
    const rows = await rowsOf(300, 16);
    const view = new ResidentView(16, scan);
    view.add(rows);
    const embedder = new FakeEmbedder(16);
    for (const text of ['postgres billing retry', 'cache token', 'note17 schema lint']) {
      const vector = await embedder.embedQuery(text);
      const hits = await view.search({ text, vector, model: embedder.model, filter: { user_id: 'alice' }, validAt: T + 1, limit: 10 });
      const want = reference(rows, { text, vector, keep: (r) => r.user_id === 'alice', limit: 10 });
      const vectorHits = hits.filter((h) => h.vectorScore !== null).sort((a, b) => b.vectorScore! - a.vectorScore!);
      assert.deepEqual(
        vectorHits.map((h) => h.row.version_id),
        want.vector,
      );
      for (const h of vectorHits) assert.ok(Math.abs(h.vectorScore! - cosine(vector, rows.find((r) => r.version_id === h.row.version_id)!.vector!)) < 1e-5);
      const textHits = hits.filter((h) => h.textScore !== null).sort((a, b) => b.textScore! - a.textScore!);
      assert.equal(textHits.length, want.text.length);
      for (const [i, [id, score]] of want.text.entries()) {
        assert.ok(Math.abs(textHits[i]!.textScore! - score) < 1e-9, `text score ${i}`);
        // Equal scores may come in either order.
        assert.ok(textHits.some((h) => h.row.version_id === id) || Math.abs(textHits[textHits.length - 1]!.textScore! - score) < 1e-9, `text hit ${id}`);
      }
      assert.ok(hits.every((h) => h.row.user_id === 'alice' && h.row.vector === null));
    }
  });

  it('follows removals, replacements and new vectors, and keeps rows outside their valid time out', async () => {
    const rows = await rowsOf(120, 16, 7);
    const view = new ResidentView(16, scan);
    view.add(rows);
    const gone = rows.slice(0, 40);
    view.removeMemories(gone.map((r) => r.memory_id));
    const later = { ...rows[50]!, version_id: 'replaced-version', content: 'postgres postgres replacement', valid_from: T + 10_000 };
    view.removeMemories([rows[50]!.memory_id]);
    view.add([later]);
    const kept = [...rows.slice(40, 50), ...rows.slice(51), later];
    assert.equal(view.size, kept.length);
    const embedder = new FakeEmbedder(16);
    const vector = await embedder.embedQuery('postgres');
    const at = (t: number) => view.search({ text: 'postgres', vector, model: embedder.model, filter: {}, validAt: t, limit: 200 });
    const now = await at(T + 20_000);
    assert.ok(now.every((h) => !gone.some((g) => g.version_id === h.row.version_id)), 'removed rows are gone');
    assert.ok(now.some((h) => h.row.version_id === 'replaced-version'));
    assert.ok(!(await at(T + 1)).some((h) => h.row.version_id === 'replaced-version'), 'not valid yet');
    // Statistics are those of the rows held now.
    const want = reference(kept, { text: 'postgres', vector: null, keep: () => true, limit: 200 }).text;
    const got = new Map(now.filter((h) => h.textScore !== null).map((h) => [h.row.version_id, h.textScore!]));
    assert.equal(got.size, want.length);
    for (const [id, score] of want) assert.ok(Math.abs(got.get(id)! - score) < 1e-9);

    // A row without a vector takes part once it gets one, under the model that made it.
    const bare = { ...row({ content: 'bare row' }), seq: 999, valid_from: T };
    view.add([bare]);
    const q = await embedder.embedQuery('bare row');
    const search = (model: string) => view.search({ text: null, vector: q, model, filter: {}, validAt: T + 1, limit: 1 });
    assert.notEqual((await search(embedder.model))[0]?.row.version_id, bare.version_id);
    view.setVector(bare.version_id, q, 'other-model');
    assert.notEqual((await search(embedder.model))[0]?.row.version_id, bare.version_id, 'another model’s vector is not compared');
    const hit = (await search('other-model'))[0]!;
    assert.equal(hit.row.version_id, bare.version_id);
    assert.equal(hit.row.embed_model, 'other-model');
    assert.ok(Math.abs(hit.vectorScore! - 1) < 1e-6);
  });

  it('stays equal to the reference through heavy churn of versions, memories and non-ASCII text', async () => {
    const r = rng(5);
    const embedder = new FakeEmbedder(16);
    const view = new ResidentView(16, scan);
    const current = new Map<string, VersionRow>(); // by memory id
    let seq = 0;
    for (let round = 0; round < 40; round++) {
      const batch: VersionRow[] = [];
      for (let i = 0; i < 150; i++) {
        const memory = `mem-${Math.floor(r() * 400)}-ü`;
        if (batch.some((b) => b.memory_id === memory)) continue; // one version of a memory per batch
        const before = current.get(memory);
        const content = `${Array.from({ length: 20 }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ')} Zürich-${round} キャッシュ${i % 7} ${'x'.repeat(Math.floor(r() * 300))}`;
        const next = { ...row({ content, vector: await embedder.embedQuery(content), embed_model: embedder.model, valid_from: T }), memory_id: memory, seq: ++seq };
        if (before) view.removeMemories([memory]);
        current.set(memory, next);
        batch.push(next);
      }
      view.add(batch);
      if (round % 3 === 0) {
        const gone = [...current.keys()].filter(() => r() < 0.1);
        view.removeMemories(gone);
        for (const m of gone) current.delete(m);
      }
    }
    const rows = [...current.values()];
    assert.equal(view.size, rows.length);
    for (const text of ['zürich-39 postgres', 'キャッシュ3 cache', 'deploy token retry']) {
      const vector = await embedder.embedQuery(text);
      const hits = await view.search({ text, vector, model: embedder.model, filter: { memory_ids: rows.slice(0, 200).map((x) => x.memory_id) }, validAt: T + 1, limit: 10 });
      const want = reference(rows, { text, vector, keep: (x) => rows.indexOf(x) < 200, limit: 10 });
      assert.deepEqual(
        hits.filter((h) => h.vectorScore !== null).sort((a, b) => b.vectorScore! - a.vectorScore!).map((h) => h.row.version_id),
        want.vector,
      );
      const textScores = hits.filter((h) => h.textScore !== null).map((h) => h.textScore!).sort((a, b) => b - a);
      assert.deepEqual(textScores.map((x) => x.toFixed(9)), want.text.map(([, x]) => x.toFixed(9)), text);
      for (const h of hits) assert.deepEqual(h.row, { ...current.get(h.row.memory_id)!, vector: null }, 'a hit is its row as added');
    }
  });

  it('filters by memory ids as they are after the scan, when a memory left and another took its place meanwhile', async () => {
    const embedder = new FakeEmbedder(16);
    const vector = await embedder.embedQuery('postgres');
    const view = new ResidentView(16, scan);
    const a = { ...row({ content: 'postgres a', vector, embed_model: embedder.model, valid_from: T }), memory_id: 'm-a', seq: 1 };
    view.add([a, { ...row({ content: 'postgres other', vector, embed_model: embedder.model, valid_from: T }), memory_id: 'm-other', seq: 2 }]);
    const pending = view.search({ text: null, vector, model: embedder.model, filter: { memory_ids: ['m-a'] }, validAt: T + 1, limit: 5, exact: true });
    // While the scan runs: m-a goes, and a new memory takes the id it had in the view.
    view.removeMemories(['m-a']);
    view.add([{ ...row({ content: 'postgres newcomer', vector, embed_model: embedder.model, valid_from: T }), memory_id: 'm-new', seq: 3 }]);
    assert.deepEqual((await pending).map((h) => h.row.memory_id), []);
  });

  it('hands out copies: changing a hit does not change the view', async () => {
    const view = new ResidentView(16, scan);
    const r = { ...row({ content: 'immutable postgres', metadata: { k: 'v' } }), seq: 1 };
    view.add([r]);
    const first = (await view.search({ text: 'postgres', vector: null, model: null, filter: {}, validAt: Date.now(), limit: 5 }))[0]!;
    first.row.metadata.k = 'changed';
    first.row.content = 'changed';
    const again = (await view.search({ text: 'postgres', vector: null, model: null, filter: {}, validAt: Date.now(), limit: 5 }))[0]!;
    assert.equal(again.row.content, 'immutable postgres');
    assert.deepEqual(again.row.metadata, { k: 'v' });
  });
});

describe('VectorScan', () => {
  it('scores a large matrix through ONNX Runtime as a JavaScript loop does', async () => {
    const dim = 96;
    const rows = Math.ceil((JS_SCAN_MAX_PRODUCTS * 3) / dim);
    const r = rng(3);
    const matrix = Float32Array.from({ length: (rows + 10) * dim }, () => r() - 0.5);
    const query = Float32Array.from({ length: dim }, () => r() - 0.5);
    const scan = new VectorScan(dim, (reason) => assert.fail(`the runtime should load: ${reason}`));
    try {
      const got = await scan.scores(matrix, rows, query);
      const want = scanInJs(matrix, rows, query);
      assert.equal(got.length, rows, 'only the rows asked for');
      for (let i = 0; i < rows; i++) assert.ok(Math.abs(got[i]! - want[i]!) < 1e-4, `row ${i}: ${got[i]} vs ${want[i]}`);
    } finally {
      await scan.close();
    }
  });

  it('refuses a query of another dimension', async () => {
    await assert.rejects(new VectorScan(8).scores(new Float32Array(16), 2, new Float32Array(4)), /4 dimensions/);
  });
});
