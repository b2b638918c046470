/**
 * One acceptance suite for the MemoryStore contract, run against every implementation
 * (store.test.ts runs it over LanceStore in a temp dir and over InMemoryStore).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeEmbedder, type MemoryStore, type VersionRow } from '../../engine/index.js';
import { row } from '../helpers/rows.js';

const T0 = Date.parse('2026-03-01T00:00:00Z');
const embedder = new FakeEmbedder(16);

async function vec(text: string): Promise<Float32Array> {
  return embedder.embedQuery(text);
}

export function storeAcceptance(name: string, make: () => Promise<MemoryStore>): void {
  describe(`MemoryStore contract: ${name}`, () => {
    let store: MemoryStore;
    before(async () => {
      store = await make();
      await store.open();
      store.setActiveModel(embedder.model);
    });
    after(async () => {
      await store.close();
    });

    it('assigns gap-free increasing seq numbers on append', async () => {
      const before = (await store.stats()).lastSeq;
      const a = row({ content: 'alpha seq test' });
      const b = row({ content: 'beta seq test' });
      const stored = await store.append([a, b]);
      assert.deepEqual(
        stored.map((r) => r.seq),
        [before + 1, before + 2],
      );
      const changes = await store.changes(before, 10);
      assert.deepEqual(
        changes.map((r) => r.version_id),
        [a.version_id, b.version_id],
      );
    });

    it('finds a row by full text and by vector as soon as append returns', async () => {
      const content = 'the deploy pipeline uses blue green releases';
      const r = row({ content, vector: await vec(content), embed_model: embedder.model });
      await store.append([r]);
      const text = await store.search({ text: 'blue green', vector: null, model: null, filter: {}, validAt: T0 + 1, limit: 5 });
      assert.ok(text.some((h) => h.row.memory_id === r.memory_id && h.textScore !== null && h.textScore > 0));
      const v = await store.search({ text: null, vector: await vec(content), model: embedder.model, filter: {}, validAt: T0 + 1, limit: 5 });
      const hit = v.find((h) => h.row.memory_id === r.memory_id);
      assert.ok(hit, 'vector search finds the row');
      assert.ok(hit.vectorScore! > 0.99, `cosine of identical text is ~1 (got ${hit.vectorScore})`);
    });

    it('keeps every version and shows only the last transaction as current', async () => {
      const v1 = row({ content: 'I love Adidas running shoes', recorded_at: T0, valid_from: T0 });
      await store.append([v1]);
      const t2 = Date.parse('2026-05-04T00:00:00Z');
      const v2 = row({ ...v1, version_id: `${v1.version_id.slice(0, -4)}aaaa`, version: 2, tx: 2, recorded_at: t2, valid_to: t2 });
      const v3 = row({ ...v1, version_id: `${v1.version_id.slice(0, -4)}bbbb`, version: 3, tx: 2, content: 'switched to Hoka running shoes', recorded_at: t2, valid_from: t2 });
      await store.append([v2, v3]);
      const versions = await store.versionsOf([v1.memory_id]);
      assert.deepEqual(
        versions.map((r) => r.version),
        [1, 2, 3],
      );
      const current = await store.currentOf([v1.memory_id]);
      assert.deepEqual(current.map((r) => r.version).sort(), [2, 3]);
      const now = Date.parse('2026-06-01T00:00:00Z');
      const hits = await store.search({ text: 'running shoes', vector: null, model: null, filter: { memory_ids: [v1.memory_id] }, validAt: now, limit: 5 });
      assert.deepEqual(
        hits.map((h) => h.row.content),
        ['switched to Hoka running shoes'],
      );
      const past = await store.search({ text: 'running shoes', vector: null, model: null, filter: { memory_ids: [v1.memory_id] }, validAt: Date.parse('2026-04-01T00:00:00Z'), limit: 5 });
      assert.deepEqual(
        past.map((h) => h.row.content),
        ['I love Adidas running shoes'],
      );
      const hist = await store.search({
        text: 'running shoes',
        vector: null,
        model: null,
        filter: { memory_ids: [v1.memory_id] },
        validAt: now,
        limit: 5,
        knownAt: Date.parse('2026-04-15T00:00:00Z'),
      });
      assert.deepEqual(
        hist.map((h) => h.row.version),
        [1],
      );
    });

    it('removes a tombstoned memory from the current view but keeps its history', async () => {
      const r = row({ content: 'temporary note about the staging cluster' });
      await store.append([r]);
      await store.append([{ ...r, version_id: r.version_id.replace(/.{4}$/, 'dead'), version: 2, tx: 2, content: '', deleted: true, recorded_at: r.recorded_at + 1 }]);
      assert.equal((await store.currentOf([r.memory_id])).length, 0);
      assert.equal((await store.versionsOf([r.memory_id])).length, 2);
      const hits = await store.search({ text: 'staging cluster', vector: null, model: null, filter: {}, validAt: T0 + 10, limit: 10 });
      assert.ok(!hits.some((h) => h.row.memory_id === r.memory_id));
    });

    it('filters on every field, metadata equality and time ranges', async () => {
      const base = { content: 'filter probe lorem ipsum', recorded_at: T0 + 1000, valid_from: T0 };
      const rows: VersionRow[] = await store.append([
        row({ ...base, user_id: 'u-filter-1', agent_id: 'ag1', app_id: 'app1', run_id: 'run1', space: 'personal', owner_id: 'm1', repo: null, dir: 'src', category: 'preference', metadata: { team: 'core', n: 3, flag: true } }),
        row({ ...base, user_id: 'u-filter-2', agent_id: 'ag2', app_id: 'app2', run_id: 'run2', space: 'project', repo: 'r2', dir: 'lib', category: 'decision', metadata: { team: 'web' }, created_at: T0 + 5000, recorded_at: T0 + 5000 }),
      ]);
      const [a, b] = rows;
      const q = async (filter: Parameters<MemoryStore['list']>[0]): Promise<string[]> =>
        (await store.list({ ...filter, memory_ids: [a!.memory_id, b!.memory_id] }, { limit: 10 })).map((r) => r.user_id).sort();
      assert.deepEqual(await q({ user_id: 'u-filter-1' }), ['u-filter-1']);
      assert.deepEqual(await q({ agent_id: 'ag2' }), ['u-filter-2']);
      assert.deepEqual(await q({ app_id: ['app1', 'app2'] }), ['u-filter-1', 'u-filter-2']);
      assert.deepEqual(await q({ run_id: 'run1' }), ['u-filter-1']);
      assert.deepEqual(await q({ space: 'project' }), ['u-filter-2']);
      assert.deepEqual(await q({ repo: null }), ['u-filter-1']);
      assert.deepEqual(await q({ dir: 'lib' }), ['u-filter-2']);
      assert.deepEqual(await q({ category: 'preference' }), ['u-filter-1']);
      assert.deepEqual(await q({ metadata: { team: 'core' } }), ['u-filter-1']);
      assert.deepEqual(await q({ metadata: { n: 3, flag: true } }), ['u-filter-1']);
      assert.deepEqual(await q({ metadata: { team: 'nobody' } }), []);
      assert.deepEqual(await q({ created_at: { gte: T0 + 4000 } }), ['u-filter-2']);
      assert.deepEqual(await q({ updated_at: { lt: T0 + 4000 } }), ['u-filter-1']);
      assert.deepEqual(await q({ personal_owner: 'someone-else' }), ['u-filter-2']);
      assert.deepEqual(await q({ personal_owner: 'm1' }), ['u-filter-1', 'u-filter-2']);
      assert.equal(await store.count({ user_id: ['u-filter-1', 'u-filter-2'] }), 2);
    });

    it('never lets quotes or operators in filter values widen a query', async () => {
      const marker = row({ content: 'injection canary row', user_id: "o'hara", repo: "acme'; DROP TABLE versions; --", metadata: { k: "v' OR '1'='1" } });
      await store.append([marker]);
      const attacks = ["' OR '1'='1", "x' OR 1=1 --", "') OR ('a'='a", "\\' OR 1=1", "%' OR user_id LIKE '%", "o''hara", 'x"; DROP', "' OR TRUE OR '"];
      const fields = ['user_id', 'agent_id', 'app_id', 'run_id', 'owner_id', 'repo', 'dir'] as const;
      for (const attack of attacks) {
        for (const field of fields) {
          const listed = await store.list({ [field]: attack }, { limit: 1000 });
          assert.equal(listed.length, 0, `list ${field}=${attack} returned rows`);
          const searched = await store.search({ text: 'injection canary', vector: null, model: null, filter: { [field]: attack }, validAt: Date.now(), limit: 10 });
          assert.equal(searched.length, 0, `search ${field}=${attack} returned rows`);
          assert.equal(await store.count({ [field]: [attack, attack] }), 0);
        }
        assert.equal((await store.list({ metadata: { k: attack } }, { limit: 10 })).length, 0);
        assert.equal((await store.list({ metadata: { [attack]: 'x' } }, { limit: 10 })).length, 0);
        assert.equal((await store.list({ memory_ids: [attack] }, { limit: 10 })).length, 0);
      }
      // The exact odd values still match themselves.
      assert.equal((await store.list({ user_id: "o'hara" }, { limit: 10 })).length, 1);
      assert.equal((await store.list({ repo: "acme'; DROP TABLE versions; --" }, { limit: 10 })).length, 1);
      assert.equal((await store.list({ metadata: { k: "v' OR '1'='1" } }, { limit: 10 })).length, 1);
      assert.ok((await store.stats()).versions > 0, 'tables still there');
    });

    it('lists newest first with a seq cursor and no silent cap', async () => {
      const user = `pager-${Math.random()}`;
      const rows = Array.from({ length: 25 }, (_, i) => row({ user_id: user, content: `page row ${i}` }));
      await store.append(rows);
      const seen: string[] = [];
      let before: number | undefined;
      for (;;) {
        const page = await store.list({ user_id: user }, { limit: 7, beforeSeq: before });
        if (page.length === 0) break;
        seen.push(...page.map((r) => r.content));
        before = page[page.length - 1]!.seq;
      }
      assert.equal(seen.length, 25);
      assert.equal(seen[0], 'page row 24');
      assert.equal(new Set(seen).size, 25);
    });

    it('backfills vectors for rows written without one', async () => {
      const r = row({ content: 'backlog row without vector zebra' });
      await store.append([r]);
      const pending = await store.unembedded(embedder.model, 1000);
      assert.ok(pending.some((p) => p.version_id === r.version_id));
      await store.setVectors([{ version_id: r.version_id, vector: await vec(r.content), model: embedder.model }]);
      const hits = await store.search({ text: null, vector: await vec(r.content), model: embedder.model, filter: { memory_ids: [r.memory_id] }, validAt: Date.now(), limit: 3 });
      assert.equal(hits[0]?.row.version_id, r.version_id);
      assert.ok(!(await store.unembedded(embedder.model, 1000)).some((p) => p.version_id === r.version_id));
    });

    it('purges every version of a memory', async () => {
      const r = row({ content: 'purge me completely quokka' });
      await store.append([r]);
      const removed = await store.purge([r.memory_id]);
      assert.equal(removed, 1);
      assert.equal((await store.versionsOf([r.memory_id])).length, 0);
      const hits = await store.search({ text: 'quokka', vector: null, model: null, filter: {}, validAt: Date.now(), limit: 5 });
      assert.equal(hits.length, 0);
    });

    it('ranks full text the same for freshly appended rows as after index upkeep', async () => {
      const tag = `fresh${Math.random().toString(36).slice(2, 8)}`;
      const docs = [
        `I prefer short commit messages ${tag}`,
        `The session store now uses PostgreSQL with a sessions table and sessions survive restarts ${tag}`,
        `Let us use PostgreSQL for the session store instead of Redis ${tag}`,
        `Sessions sessions sessions everywhere in the store ${tag}`,
      ];
      for (const content of docs) await store.append([row({ content })]);
      const query = async (): Promise<string[]> =>
        (await store.search({ text: `how should we store user sessions ${tag}`, vector: null, model: null, filter: {}, validAt: Date.now(), limit: 10 }))
          .filter((h) => h.row.content.endsWith(tag))
          .sort((a, b) => b.textScore! - a.textScore!)
          .map((h) => h.row.content);
      const fresh = await query();
      assert.equal(fresh.length, 4, 'every fresh row is found');
      await store.maintain({ force: true });
      assert.deepEqual(await query(), fresh, 'same ranking once indexed');
      assert.ok(!fresh[0]!.startsWith('I prefer'), 'the row sharing only the tag is not first');
    });

    it('reports the highest stored version of known memories only', async () => {
      const a = row({ content: 'max version probe one' });
      await store.append([a]);
      await store.append([{ ...a, version_id: a.version_id.replace(/.{4}$/, 'beef'), version: 2, tx: 2, content: 'max version probe two', recorded_at: a.recorded_at + 1 }]);
      const unknown = row().memory_id;
      const got = await store.maxVersions([a.memory_id, unknown]);
      assert.equal(got.get(a.memory_id), 2);
      assert.equal(got.has(unknown), false);
      await store.purge([a.memory_id]);
      assert.equal((await store.maxVersions([a.memory_id])).has(a.memory_id), false);
    });

    it('applies valid time to current reads: future starts and closed intervals', async () => {
      const user = `valid-${Math.random()}`;
      const now = Date.parse('2026-06-01T00:00:00Z');
      const open = row({ user_id: user, content: 'valid time open marmot', valid_from: now - 1000 });
      const future = row({ user_id: user, content: 'valid time future marmot', valid_from: now + 1000 });
      const closed = row({ user_id: user, content: 'valid time closed marmot', valid_from: now - 2000, valid_to: now - 500 });
      await store.append([open, future, closed]);
      const listed = async (t: number): Promise<string[]> => (await store.list({ user_id: user }, { limit: 10, validAt: t })).map((r) => r.content).sort();
      const searched = async (t: number): Promise<string[]> =>
        (await store.search({ text: 'marmot', vector: null, model: null, filter: { user_id: user }, validAt: t, limit: 10 })).map((h) => h.row.content).sort();
      for (const read of [listed, searched]) {
        assert.deepEqual(await read(now), ['valid time open marmot']);
        assert.deepEqual(await read(now + 2000), ['valid time future marmot', 'valid time open marmot']);
        assert.deepEqual(await read(now - 1000), ['valid time closed marmot', 'valid time open marmot']);
      }
      // Once the bounded memories are gone, what is left reads the same.
      await store.purge([future.memory_id, closed.memory_id]);
      assert.deepEqual(await listed(now), ['valid time open marmot']);
      assert.deepEqual(await searched(now - 5000), []);
    });

    it('counts a memory with several current rows once, whichever of its rows match', async () => {
      const user = `count-${Math.random()}`;
      const t1 = Date.parse('2026-02-01T00:00:00Z');
      const t2 = Date.parse('2026-03-01T00:00:00Z');
      const v1 = row({ user_id: user, content: 'uses webpack', repo: 'r-old', valid_from: t1, recorded_at: t1 });
      await store.append([v1]);
      // A change in the world: the old fact closed at t2 (repo r-old), the new one from t2 (repo r-new).
      await store.append([
        { ...v1, version_id: v1.version_id.replace(/.{4}$/, 'c0de'), version: 2, tx: 2, valid_to: t2, recorded_at: t2 },
        { ...v1, version_id: v1.version_id.replace(/.{4}$/, 'c0df'), version: 3, tx: 2, content: 'uses vite', repo: 'r-new', valid_from: t2, recorded_at: t2 },
      ]);
      await store.append([row({ user_id: user, content: 'another memory', repo: 'r-new' })]);
      assert.equal(await store.count({ user_id: user }), 2);
      assert.equal(await store.count({ user_id: user, repo: 'r-old' }), 1);
      assert.equal(await store.count({ user_id: user, repo: 'r-new' }), 2);
      assert.equal(await store.count({ user_id: user, repo: ['r-old', 'r-new'] }), 2);
    });

    it('never compares vectors of two models, also right after the active model changes', async () => {
      const content = 'model switch probe ocelot';
      const r = row({ content, vector: await vec(content), embed_model: embedder.model });
      await store.append([r]);
      await store.stats();
      const q = { text: null, vector: await vec(content), filter: { memory_ids: [r.memory_id] }, validAt: Date.now(), limit: 5 };
      assert.equal((await store.search({ ...q, model: embedder.model })).length, 1);
      store.setActiveModel('another-model-same-dim');
      try {
        assert.equal((await store.search({ ...q, model: 'another-model-same-dim' })).length, 0);
        await store.stats();
        assert.equal((await store.search({ ...q, model: 'another-model-same-dim' })).length, 0);
      } finally {
        store.setActiveModel(embedder.model);
      }
    });

    it('rewrites versions by id: new seq, old seq left as a gap, current view and full text follow', async () => {
      const tag = `rewrite${Math.random().toString(36).slice(2, 8)}`;
      const v1 = row({ content: `original wording ${tag} walrus` });
      const v2 = { ...v1, version_id: v1.version_id.replace(/.{4}$/, 'cafe'), version: 2, tx: 2, content: `second wording ${tag} narwhal`, recorded_at: v1.recorded_at + 1 };
      const [s1, s2] = [...(await store.append([v1])), ...(await store.append([v2]))];
      const moved = { ...v2, version: 5, tx: 5, content: `moved wording ${tag} beluga` };
      const [r] = await store.rewrite([moved]);
      assert.ok(r!.seq > s2!.seq, 'the replacement gets a new seq');
      assert.equal(r!.version, 5);
      const log = await store.changes(s1!.seq - 1, r!.seq - s1!.seq + 1);
      assert.deepEqual(
        log.filter((x) => x.memory_id === v1.memory_id).map((x) => [x.version_id, x.seq]),
        [
          [v1.version_id, s1!.seq],
          [v2.version_id, r!.seq],
        ],
        'the old seq is a gap in the change log',
      );
      assert.deepEqual(
        (await store.versionsOf([v1.memory_id])).map((x) => [x.version, x.content]),
        [
          [1, v1.content],
          [5, moved.content],
        ],
      );
      assert.deepEqual(
        (await store.currentOf([v1.memory_id])).map((x) => x.content),
        [moved.content],
      );
      const found = async (word: string): Promise<string[]> =>
        (await store.search({ text: `${word} ${tag}`, vector: null, model: null, filter: { memory_ids: [v1.memory_id] }, validAt: Date.now(), limit: 5 })).map((h) => h.row.content);
      assert.deepEqual(await found('beluga'), [moved.content]);
      assert.equal((await found('narwhal')).some((c) => c.includes('narwhal')), false, 'the replaced text is no longer indexed');
      assert.equal((await store.maxVersions([v1.memory_id])).get(v1.memory_id), 5);
    });

    it('serves the change log in seq order, bounded by the limit', async () => {
      const start = (await store.stats()).lastSeq;
      const rows = Array.from({ length: 6 }, (_, i) => row({ content: `change log row ${i}` }));
      await store.append(rows.slice(0, 3));
      await store.append(rows.slice(3));
      const page1 = await store.changes(start, 4);
      assert.deepEqual(
        page1.map((r) => r.seq),
        [start + 1, start + 2, start + 3, start + 4],
      );
      const page2 = await store.changes(start + 4, 4);
      assert.deepEqual(
        page2.map((r) => r.version_id),
        rows.slice(4).map((r) => r.version_id),
      );
      assert.deepEqual(await store.changes(start + 6, 10), []);
    });

    it('counts versions, current rows, the embedding backlog and the last seq', async () => {
      const s0 = await store.stats();
      const a = row({ content: 'stats probe one', vector: await vec('stats probe one'), embed_model: embedder.model });
      const b = row({ content: 'stats probe two' });
      await store.append([a, b]);
      await store.append([{ ...a, version_id: a.version_id.replace(/.{4}$/, 'd00d'), version: 2, tx: 2, content: '', deleted: true, recorded_at: a.recorded_at + 1 }]);
      const s1 = await store.stats();
      assert.equal(s1.versions - s0.versions, 3);
      assert.equal(s1.current - s0.current, 1, 'the tombstoned memory has no current row');
      assert.equal(s1.unembedded - s0.unembedded, 1, 'the row without a vector is in the backlog');
      assert.equal(s1.lastSeq - s0.lastSeq, 3);
      await store.setVectors([{ version_id: b.version_id, vector: await vec(b.content), model: embedder.model }]);
      assert.equal((await store.stats()).unembedded, s0.unembedded);
    });

    it('keeps seq gap-free and every row once under concurrent writers', async () => {
      const start = (await store.stats()).lastSeq;
      const writers = 8;
      const per = 5;
      const batches = Array.from({ length: writers }, (_, w) => Array.from({ length: per }, (_, i) => row({ content: `concurrent writer ${w} row ${i} heron` })));
      const stored = await Promise.all(batches.map((b) => store.append(b)));
      for (const s of stored) {
        const seqs = s.map((r) => r.seq);
        assert.deepEqual(
          seqs,
          seqs.map((_, i) => seqs[0]! + i),
          'one append gets consecutive seqs',
        );
      }
      const all = stored.flat().map((r) => r.seq).sort((x, y) => x - y);
      assert.deepEqual(
        all,
        Array.from({ length: writers * per }, (_, i) => start + 1 + i),
      );
      const log = await store.changes(start, writers * per + 10);
      assert.equal(log.length, writers * per);
      assert.equal(new Set(log.map((r) => r.version_id)).size, writers * per);
      const hits = await store.search({ text: 'concurrent writer heron', vector: null, model: null, filter: {}, validAt: Date.now(), limit: 100 });
      assert.equal(hits.filter((h) => h.row.content.endsWith('heron')).length, writers * per);
    });

    it('survives maintenance with results unchanged', async () => {
      const r = row({ content: 'maintenance survivor pangolin', vector: await vec('maintenance survivor pangolin'), embed_model: embedder.model });
      await store.append([r]);
      await store.maintain({ force: true });
      const hits = await store.search({ text: 'pangolin', vector: await vec('pangolin'), model: embedder.model, filter: {}, validAt: Date.now(), limit: 5 });
      assert.ok(hits.some((h) => h.row.memory_id === r.memory_id));
    });
  });
}
