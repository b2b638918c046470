/**
 * The event feed through the real server: order and gap-freedom under 20 concurrent writers,
 * exactly one event per committed version in the engine's commit order, survival across restarts,
 * reconciliation after a crash between the store and the log, purge erasure, export and import
 * events, filters and bad parameters.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MemoryEngine, pgPoolClient } from '../../engine/index.js';
import { assertError, eventually } from '../helpers/errors.js';
import { projectStore, startTestServer, testServerBackend, type TestServer } from '../helpers/server.js';

async function allEvents(s: TestServer, query = ''): Promise<any[]> {
  const out: any[] = [];
  let after = 0;
  for (;;) {
    const r = await s.req('GET', `/v1/events?after=${after}&limit=50${query}`);
    assert.equal(r.status, 200, r.text);
    out.push(...r.json.results);
    after = r.json.next_after;
    if (!r.json.has_more) return out;
  }
}

/** Version ids in the engine's commit order, read straight from the project's store. */
async function committedVersions(s: TestServer, projectId: string): Promise<string[]> {
  const p = projectStore(s, projectId);
  const engine = new MemoryEngine({ store: p.store, embedder: null, background: false });
  await engine.open();
  const rows = await engine.store.changes(0, 1_000_000);
  await engine.close();
  await p.close();
  return rows.map((r) => r.version_id);
}

/** Every stored event row of a project as text (PostgreSQL backend), payloads included. */
async function storedEvents(s: TestServer, projectId: string): Promise<string> {
  const db = pgPoolClient(s.databaseUrl, { max: 1 });
  try {
    return JSON.stringify((await db.query(`SELECT * FROM ms_events WHERE project_id = $1 ORDER BY seq`, [projectId])).rows);
  } finally {
    await db.close();
  }
}

async function projectId(s: TestServer): Promise<string> {
  return (await s.req('GET', '/api/v1/verify')).json.project_id;
}

describe('event feed', () => {
  it('numbers the events of 20 concurrent writers gap-free, one per version, in commit order, across a restart', async () => {
    let s = await startTestServer();
    const pid = await projectId(s);
    const writer = async (w: number): Promise<void> => {
      const a = await s.req('POST', '/v1/memories', { user_id: `writer-${w}`, content: `writer ${w} decided to cache query plans` });
      assert.equal(a.status, 201, a.text);
      const b = await s.req('PATCH', `/v1/memories/${a.json.memory_id}`, { content: `writer ${w} decided to cache query plans for 5 minutes` });
      assert.equal(b.status, 200, b.text);
      const c = await s.req('POST', '/v1/memories', { user_id: `writer-${w}`, content: `writer ${w} will use a change in the world`, valid_from: '2026-01-01T00:00:00Z' });
      await s.req('PATCH', `/v1/memories/${c.json.memory_id}`, { content: `writer ${w} changed it`, valid_from: '2026-06-01T00:00:00Z' });
      if (w % 2 === 0) assert.equal((await s.req('DELETE', `/v1/memories/${a.json.memory_id}`)).status, 200);
    };
    await Promise.all(Array.from({ length: 20 }, (_, w) => writer(w)));
    const events = await allEvents(s);
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i + 1),
      'seq is 1, 2, 3… with no gap',
    );
    assert.equal(new Set(events.map((e) => e.event_id)).size, events.length);
    // 20 adds + 20 corrections + 20 adds + 20 changes (2 versions each) + 10 tombstones
    assert.equal(events.length, 20 + 20 + 20 + 40 + 10);
    const count = (t: string): number => events.filter((e) => e.type === t).length;
    assert.equal(count('memory.added'), 40);
    assert.equal(count('memory.updated'), 60);
    assert.equal(count('memory.deleted'), 10);
    for (const e of events) {
      assert.equal(e.status, 'SUCCEEDED');
      assert.equal(e.data.kind, 'version', 'memory events carry the full version record');
      assert.equal(e.data.memory_id, e.memory_id);
    }
    // Transaction time never runs backwards along the feed.
    for (let i = 1; i < events.length; i++) assert.ok(Date.parse(events[i].data.recorded_at) >= Date.parse(events[i - 1].data.recorded_at));

    // One more write, a restart, then the feed is unchanged and continues at the next seq.
    await s.req('POST', '/v1/memories', { user_id: 'late', content: 'written just before the restart' });
    const before = await allEvents(s);
    await s.close();
    assert.deepEqual(
      before.map((e) => e.data.version_id),
      await committedVersions(s, pid),
      'exactly the committed versions, in the engine’s commit order',
    );
    s = await startTestServer({ dataDir: s.dataDir, key: s.key });
    try {
      assert.deepEqual(await allEvents(s), before);
      await s.req('POST', '/v1/memories', { user_id: 'late', content: 'written after the restart' });
      const after = await allEvents(s);
      assert.equal(after.length, before.length + 1);
      assert.equal(after[after.length - 1].seq, before.length + 1);
    } finally {
      await s.close();
    }
  });

  it('adds events for versions committed without them (a crash between the store and the log)', async () => {
    let s = await startTestServer();
    const pid = await projectId(s);
    await s.req('POST', '/v1/memories', { user_id: 'u', content: 'recorded normally' });
    await s.close();
    // Versions written straight into the store, as if the process died before the log write.
    const p = projectStore(s, pid);
    const engine = new MemoryEngine({ store: p.store, embedder: null, background: false });
    await engine.open();
    const [lost] = await engine.add({ user_id: 'u', content: 'committed while the event log was not written' });
    await engine.update(lost!.memory_id, { content: 'and corrected' });
    await engine.close();
    await p.close();
    // A torn, never-durable line at the end of the log is cut off (the embedded file log).
    if (testServerBackend !== 'postgres') fs.appendFileSync(path.join(s.dataDir, 'projects', pid, 'events', 'events.ndjson'), '{"event_id":"torn","seq":');
    s = await startTestServer({ dataDir: s.dataDir, key: s.key });
    try {
      const events = await allEvents(s);
      assert.deepEqual(
        events.map((e) => [e.seq, e.type]),
        [
          [1, 'memory.added'],
          [2, 'memory.added'],
          [3, 'memory.updated'],
        ],
      );
      assert.equal(events[2].data.content, 'and corrected');
      assert.equal((await s.req('POST', '/v1/memories', { user_id: 'u', content: 'next' })).status, 201);
      const final = await allEvents(s);
      assert.equal(final.length, 4);
      await s.close();
      assert.deepEqual(
        final.map((e) => e.data.version_id),
        await committedVersions(s, pid),
      );
    } finally {
      await s.close();
    }
  });

  it('refuses to serve a project whose store is older than its event log (no silent event loss)', { skip: testServerBackend === 'postgres' && 'an older backup of one project directory is an embedded-backend case' }, async () => {
    let s = await startTestServer();
    const pid = await projectId(s);
    await s.req('POST', '/v1/memories', { user_id: 'u', content: 'in the log and the store' });
    await s.close();
    fs.rmSync(path.join(s.dataDir, 'projects', pid, 'lance'), { recursive: true }); // as if lance/ came from an older backup
    s = await startTestServer({ dataDir: s.dataDir, key: s.key });
    try {
      assertError(await s.req('POST', '/v1/memories', { user_id: 'u', content: 'would reuse seq 1' }), 500, 'INTERNAL');
      assertError(await s.req('GET', '/v1/events'), 500, 'INTERNAL');
    } finally {
      await s.close();
    }
  });

  it('erases purged content from the feed and records memory.purged', async () => {
    const s = await startTestServer();
    try {
      const m = await s.req('POST', '/v1/memories', { user_id: 'u', content: 'my home address is 12 Secret Lane' });
      await s.req('PATCH', `/v1/memories/${m.json.memory_id}`, { content: 'my home address is 14 Secret Lane' });
      const keep = await s.req('POST', '/v1/memories', { user_id: 'u', content: 'unrelated memory stays' });
      assert.equal((await s.req('DELETE', `/v1/memories/${m.json.memory_id}?purge=true`)).status, 200);
      const events = await allEvents(s);
      assert.deepEqual(
        events.map((e) => e.type),
        ['memory.added', 'memory.updated', 'memory.added', 'memory.purged'],
      );
      for (const e of events.filter((x) => x.memory_id === m.json.memory_id)) assert.deepEqual(e.data, { memory_id: m.json.memory_id, purged: true });
      assert.equal(events[2].data.content, 'unrelated memory stays');
      const stored = testServerBackend === 'postgres' ? await storedEvents(s, await projectId(s)) : fs.readFileSync(path.join(s.dataDir, 'projects', await projectId(s), 'events', 'events.ndjson'), 'utf8');
      assert.ok(!stored.includes('Secret Lane'), 'no trace of the purged text where the feed is stored');
      assert.ok(stored.includes(keep.json.memory_id));
    } finally {
      await s.close();
    }
  });

  it('completes a purge that a crash interrupted before the next start serves requests', async () => {
    let s = await startTestServer();
    const pid = await projectId(s);
    const m = await s.req('POST', '/v1/memories', { user_id: 'u', content: 'half purged secret about the VPN password' });
    await s.close();
    // The intent a purge records before erasing anything: a file, or a row every replica sees.
    if (testServerBackend === 'postgres') {
      const db = pgPoolClient(s.databaseUrl, { max: 1 });
      await db.query(`INSERT INTO ms_purge_intents (project_id, memory_id, at_ms) VALUES ($1, $2, 0)`, [pid, m.json.memory_id]).finally(() => db.close());
    } else fs.writeFileSync(path.join(s.dataDir, 'projects', pid, 'events', 'purge-intent.json'), JSON.stringify({ memory_ids: [m.json.memory_id] }));
    s = await startTestServer({ dataDir: s.dataDir, key: s.key });
    try {
      assertError(await s.req('GET', `/v1/memories/${m.json.memory_id}/history`), 404, 'NOT_FOUND');
      const events = await allEvents(s);
      assert.deepEqual(
        events.map((e) => [e.type, e.data]),
        [
          ['memory.added', { memory_id: m.json.memory_id, purged: true }],
          ['memory.purged', { memory_id: m.json.memory_id, purged: true }],
        ],
      );
      assert.ok(!fs.existsSync(path.join(s.dataDir, 'projects', pid, 'events', 'purge-intent.json')));
    } finally {
      await s.close();
    }
  });

  it('reports exports PENDING → RUNNING → SUCCEEDED and imports, filters by type, and gets one event', async () => {
    const s = await startTestServer();
    try {
      await s.req('POST', '/v1/memories', { user_id: 'u', content: 'exported memory' });
      const job = await s.req('POST', '/v1/exports', {});
      await eventually(async () => (await s.req('GET', `/v1/exports/${job.json.export_id}`)).json.status === 'SUCCEEDED', 5000, 'export');
      const exports = await allEvents(s, '&type=export.*');
      assert.deepEqual(
        exports.map((e) => [e.type, e.status, e.data.export_id]),
        [
          ['export.created', 'PENDING', job.json.export_id],
          ['export.running', 'RUNNING', job.json.export_id],
          ['export.succeeded', 'SUCCEEDED', job.json.export_id],
        ],
      );
      assert.equal(exports[2].data.count, 1);
      const file = await s.req('GET', `/v1/exports/${job.json.export_id}/download`);
      const other = await startTestServer();
      try {
        const imp = await other.req('POST', '/v1/imports', file.text, { 'Content-Type': 'application/x-ndjson' });
        assert.equal(imp.status, 200);
        const evs = await allEvents(other);
        assert.deepEqual(
          evs.map((e) => e.type),
          ['memory.added', 'import.completed'],
        );
        assert.deepEqual(evs[1].data, { imported: 1, skipped: 0, memories: 1 });
        assert.equal(evs[0].data.version_id, JSON.parse(file.text.trim()).version_id, 'imported versions keep their identity');
      } finally {
        await other.close();
      }
      const one = await s.req('GET', `/v1/events/${exports[1].event_id}`);
      assert.deepEqual(one.json, exports[1]);
      const two = await s.req('GET', '/v1/events?type=memory.added,export.succeeded');
      assert.deepEqual(
        two.json.results.map((e: any) => e.type),
        ['memory.added', 'export.succeeded'],
      );
      const page = await s.req('GET', '/v1/events?limit=2');
      assert.equal(page.json.results.length, 2);
      assert.equal(page.json.has_more, true);
      assert.equal(page.json.next_after, 2);
    } finally {
      await s.close();
    }
  });

  it('answers bad parameters with 400 and unknown events with 404', async () => {
    const s = await startTestServer({ config: { pageSizeMax: 50 } });
    try {
      assertError(await s.req('GET', '/v1/events?after=-1'), 400, 'INVALID_REQUEST');
      assertError(await s.req('GET', '/v1/events?after=abc'), 400, 'INVALID_REQUEST');
      assertError(await s.req('GET', '/v1/events?limit=51'), 400, 'INVALID_REQUEST');
      assertError(await s.req('GET', '/v1/events?limit=0'), 400, 'INVALID_REQUEST');
      assertError(await s.req('GET', '/v1/events?type=memory.exploded'), 400, 'INVALID_REQUEST');
      assertError(await s.req('GET', '/v1/events?colour=red'), 400, 'INVALID_REQUEST');
      assertError(await s.req('GET', '/v1/events/not-an-id'), 400, 'INVALID_REQUEST');
      assertError(await s.req('GET', '/v1/events/01890a5d-ac96-774b-bcce-b302099a8057'), 404, 'NOT_FOUND');
      const r = await s.req('GET', '/v1/events?after=999');
      assert.equal(r.status, 200);
      assert.deepEqual(r.json.results, []);
    } finally {
      await s.close();
    }
  });
});
