/**
 * The sync protocol between in-process machines (engine + SyncService + HTTP transport) and a real
 * server on loopback: push, pull and bootstrap, no echo, concurrent edits, purges, parking, restarts.
 * The daemon tests (daemons.test.ts) run the same loop inside real daemon processes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MemoryEngine } from '../../engine/index.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { assertNoDuplicates, engineHistory, serverHistory } from '../helpers/histories.js';
import { startMachine, syncAll, type Machine } from '../helpers/machines.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from '../helpers/team.js';
import { tempDir } from '../helpers/tmp.js';

let s: TestServer;
let org: string;
let project: string;
const open: Machine[] = [];

async function keyFor(name: string, role = 'member', projectId = project): Promise<{ key: string; member: string }> {
  const member = ok(await s.req('POST', `/v1/orgs/${org}/members`, { name, role }), 201).member_id;
  return { member, key: ok(await s.req('POST', `/v1/orgs/${org}/projects/${projectId}/keys`, { member_id: member }), 201).key };
}

async function machine(key: string, o: Partial<Parameters<typeof startMachine>[0]> = {}): Promise<Machine> {
  const m = await startMachine({ url: s.url, key, ...o });
  open.push(m);
  return m;
}

/** The lines of a history about these memories. */
function pick(history: readonly string[], ids: Iterable<string | undefined>): string[] {
  const want = new Set(ids);
  return history.filter((l) => want.has(JSON.parse(l).memory_id));
}

function idsOf(history: readonly string[]): Set<string> {
  return new Set(history.map((l) => JSON.parse(l).memory_id as string));
}

/** A machine on disk that added `n` memories, synced them and stopped; its data dir. */
async function syncedAndStopped(key: string, n: number, prefix: string): Promise<string> {
  const dir = tempDir('machine-');
  const a = await machine(key, { dir, store: 'lance' });
  await seed(a.engine, n, prefix);
  await a.sync.now();
  await a.close();
  open.splice(open.indexOf(a), 1);
  return dir;
}

async function seed(engine: MemoryEngine, n: number, prefix: string): Promise<string[]> {
  const rows = await Promise.all(Array.from({ length: n }, (_, i) => engine.add({ content: `${prefix} decision ${i}: use tool ${i}`, user_id: 'dev', repo: 'github.com/acme/shop', category: 'decision' })));
  return rows.map((r) => r[0]!.memory_id);
}

before(async () => {
  s = await startTestServer({ embedder: null });
  const v = ok(await s.req('GET', '/api/v1/verify'));
  org = v.org_id;
  project = v.project_id;
});
after(async () => {
  for (const m of open) await m.close().catch(() => {});
  await s.close();
});

describe('sync rounds', () => {
  it('pushes every kind of version; a new machine bootstraps the whole history, then follows the feed', async () => {
    const { key } = await keyFor('ada');
    const a = await machine(key);
    const ids = await seed(a.engine, 30, 'bootstrap');
    await a.engine.update(ids[0]!, { content: 'bootstrap decision 0: corrected' });
    await a.engine.update(ids[1]!, { content: 'bootstrap decision 1: changed in the world', valid_from: Date.now() - 1000 });
    await a.engine.delete(ids[2]!);
    const pushed = await a.sync.now();
    assert.ok(pushed.ok, pushed.error?.message);
    const ha = await engineHistory(a.engine);
    assert.equal(pushed.push!.accepted, ha.length);
    const b = await machine(key);
    const boot = await b.sync.now();
    assert.ok(boot.ok && boot.pull!.inserted === ha.length, `bootstrap inserted ${boot.pull?.inserted} of ${ha.length}`);
    assert.deepEqual(pick(await serverHistory(s.url, key), idsOf(ha)), ha, 'the server holds A’s history');
    assert.deepEqual(await engineHistory(b.engine), ha, 'B holds the same history');
    assert.equal((await b.engine.get(ids[0]!)).content, 'bootstrap decision 0: corrected');
    await assert.rejects(b.engine.get(ids[2]!), /not found/);

    // It then follows the feed, and never sends back what it pulled.
    const [late] = await a.engine.add({ content: 'bootstrap decision late', user_id: 'dev' });
    await a.sync.now();
    const follow = await b.sync.now();
    assert.equal(follow.push!.sent, 0, 'a pulled version is never pushed back');
    assert.equal(follow.pull!.inserted, 1);
    assert.equal((await b.engine.get(late!.memory_id)).content, 'bootstrap decision late');
    assert.equal(b.sync.status().backlog.versions, 0);
  });

  it('converges concurrent edits by server order, with both edits in every history', async () => {
    const { key: ka } = await keyFor('ann');
    const { key: kb } = await keyFor('ben');
    const a = await machine(ka);
    const b = await machine(kb);
    const [shared, other, gone] = await seed(a.engine, 3, 'concurrent');
    await syncAll([a, b]);
    // Offline from each other: both edit `shared`; A deletes `gone` while B edits it; B changes `other` twice.
    await a.engine.update(shared!, { content: 'A: the session store is PostgreSQL' });
    await b.engine.update(shared!, { content: 'B: the session store is SQLite' });
    await b.engine.update(other!, { content: 'B: first edit' });
    await b.engine.update(other!, { content: 'B: second edit, a change in the world', valid_from: Date.now() - 10 });
    await a.engine.delete(gone!);
    await b.engine.update(gone!, { content: 'B: still needed' });
    await a.sync.now();
    const rb = await b.sync.now();
    assert.ok(rb.push!.accepted >= 4 && rb.pull!.inserted >= 2, JSON.stringify(rb));
    await syncAll([a, b]);
    const ha = await engineHistory(a.engine);
    assert.deepEqual(await engineHistory(b.engine), ha, 'A and B hold the same history');
    assert.deepEqual(pick(await serverHistory(s.url, ka), idsOf(ha)), ha, 'and so does the server');
    assertNoDuplicates(ha, 'converged history');
    const h = (await a.engine.history(shared!)).map((v) => v.content);
    assert.deepEqual(h, ['concurrent decision 0: use tool 0', 'A: the session store is PostgreSQL', 'B: the session store is SQLite'], 'A reached the server first, B was sequenced after it');
    for (const m of [a, b]) {
      assert.equal((await m.engine.get(shared!)).content, 'B: the session store is SQLite');
      assert.equal((await m.engine.get(gone!)).content, 'B: still needed', 'B’s edit came after A’s tombstone');
    }
  });

  it('moves a parked local edit after the server’s versions, and pushes it once retried with a working key', async () => {
    const writer = await keyFor('wes');
    const reader = await keyFor('rita', 'reader');
    const w = await machine(writer.key);
    const [id] = await seed(w.engine, 1, 'parked');
    await w.sync.now();
    const dir = tempDir('machine-');
    const r = await machine(reader.key, { dir, store: 'lance' });
    await r.sync.now();
    await r.engine.update(id!, { content: 'R: an edit a reader key cannot push' });
    const refused = await r.sync.now();
    assert.equal(refused.push!.rejected, 1);
    const st = r.sync.status();
    assert.equal(st.parked.versions, 1);
    assert.equal(st.parked.items[0]!.error.code, 'FORBIDDEN');
    assert.equal(st.backlog.versions, 0, 'a parked version does not block the queue');
    await w.engine.update(id!, { content: 'W: the server’s version 2' });
    await w.sync.now();
    const pulled = await r.sync.now();
    assert.equal(pulled.pull!.rebased, 1, 'the parked edit moved after the server’s version');
    assert.deepEqual(
      (await r.engine.history(id!)).map((v) => [v.version, v.content]),
      [
        [1, 'parked decision 0: use tool 0'],
        [2, 'W: the server’s version 2'],
        [3, 'R: an edit a reader key cannot push'],
      ],
    );
    // Restart the machine with a key that may write, and retry what was parked.
    await r.close();
    open.splice(open.indexOf(r), 1);
    const fixed = await keyFor('rita-writer');
    const r2 = await machine(fixed.key, { dir, store: 'lance' });
    const retried = await r2.sync.now({ retryParked: true });
    assert.equal(retried.push!.accepted, 1, JSON.stringify(retried));
    assert.equal(r2.sync.status().parked.versions, 0);
    await w.sync.now();
    assert.deepEqual(pick(await engineHistory(w.engine), [id]), pick(await engineHistory(r2.engine), [id]));
    assert.equal((await w.engine.get(id!)).content, 'R: an edit a reader key cannot push');
  });

  it('carries purges both ways; a purged memory is never revived by a late edit', async () => {
    const { key } = await keyFor('pia');
    const a = await machine(key);
    const b = await machine(key);
    const [p1, p2] = await seed(a.engine, 2, 'purge');
    await syncAll([a, b]);
    await b.engine.update(p1!, { content: 'an edit made while the purge was on its way' });
    await a.engine.purge([p1!]);
    assert.equal(a.sync.status().backlog.purges, 1, 'the purge is recorded before anything is erased');
    await a.sync.now();
    assert.equal((await s.as(key)('GET', `/v1/memories/${p1}`)).status, 404);
    const rb = await b.sync.now();
    assert.equal(rb.push!.purged, 1, 'the server refuses to revive it');
    await assert.rejects(b.engine.history(p1!), /not found/);
    await b.engine.purge([p2!]);
    await b.sync.now();
    await a.sync.now();
    await assert.rejects(a.engine.history(p2!), /not found/);
    assert.equal((await s.as(key)('GET', `/v1/memories/${p1}`)).status, 404);
    assert.equal(a.sync.status().backlog.purges + b.sync.status().backlog.purges, 0, 'no purge echoed back');
  });

  it('keeps its cursors across a restart: nothing is pushed or pulled twice', async () => {
    const { key } = await keyFor('rex');
    const dir = await syncedAndStopped(key, 5, 'restart');
    const again = await machine(key, { dir, store: 'lance' });
    const r = await again.sync.now();
    assert.deepEqual([r.push!.sent, r.pull!.inserted], [0, 0], JSON.stringify(r));
    await seed(again.engine, 1, 'restart after');
    assert.equal((await again.sync.now()).push!.sent, 1);
  });

  it('starts over when the server’s feed is behind its cursor (a server restored from a backup)', async () => {
    const { key } = await keyFor('bo');
    const a = await machine(key);
    await seed(a.engine, 2, 'restored');
    await a.sync.now();
    // As if the server lost its newest events: the machine's cursor is past the feed's end.
    a.sync.state.setPullAfter(1_000_000);
    a.sync.state.save();
    const r = await a.sync.now();
    assert.ok(r.ok, r.error?.message);
    assert.equal(r.pull!.restarted, true);
    assert.ok(a.sync.state.pullAfter < 1_000_000);
    // The whole feed was read again, so the machine knows the server has its versions: none is resent.
    const again = await a.sync.now();
    assert.deepEqual([again.push!.sent, again.pull!.inserted], [0, 0]);
    assert.equal(a.sync.status().backlog.versions, 0);
    assertNoDuplicates(await serverHistory(s.url, key), 'after starting over');
  });

  it('never splits a transaction across requests, splits a batch the server finds too large, parks a version too large to send', async () => {
    const small = await startTestServer({ embedder: null, config: { bodyLimitBytes: 8192 } });
    try {
      const one = await startMachine({ url: small.url, key: small.key, sync: { batch: 1 } });
      open.push(one);
      const [fact] = await one.engine.add({ content: 'a fact that changes', user_id: 'dev', valid_from: Date.now() - 60_000 });
      await one.engine.update(fact!.memory_id, { content: 'the fact from half a minute ago on', valid_from: Date.now() - 30_000 });
      await one.engine.add({ content: 'too big to travel', user_id: 'dev', metadata: { blob: 'x'.repeat(12_000) } });
      const r1 = await one.sync.now();
      assert.ok(r1.ok, r1.error?.message);
      assert.equal(r1.push!.accepted, 3, 'the two-row transaction travelled whole despite batch = 1');
      assert.equal(one.sync.status().parked.versions, 1);
      assert.equal(one.sync.status().parked.items[0]!.error.code, 'PAYLOAD_TOO_LARGE');
      assert.deepEqual(
        (await one.engine.history(fact!.memory_id)).map((v) => [v.version, v.tx]),
        [
          [1, 1],
          [2, 2],
          [3, 2],
        ],
      );
      assert.deepEqual(pick(await serverHistory(small.url, small.key), [fact!.memory_id]), pick(await engineHistory(one.engine), [fact!.memory_id]));

      const many = await startMachine({ url: small.url, key: small.key, sync: { batch: 200 } });
      open.push(many);
      await Promise.all(Array.from({ length: 30 }, (_, i) => many.engine.add({ content: `batched ${i} `.repeat(20), user_id: 'dev' })));
      const r2 = await many.sync.now();
      assert.ok(r2.ok, r2.error?.message);
      assert.deepEqual([r2.push!.accepted, r2.push!.rejected], [30, 0], 'a 413 split the batch until each part fit');
    } finally {
      await small.close();
    }
  });

  it('retries a push whose answer was lost without storing anything twice', async () => {
    const { key } = await keyFor('lou');
    const proxy = await startFaultProxy({ host: '127.0.0.1', port: Number(new URL(s.url).port) });
    try {
      const heads: string[] = [];
      proxy.onRequest = (head) => heads.push(head.split(' ').slice(0, 2).join(' '));
      // Request 1 verifies the key; request 2, the first push, reaches the server, which commits,
      // and its answer never comes back.
      proxy.decide = (n) => (n === 2 ? 'drop-response' : 'pass');
      const a = await startMachine({ url: proxy.url, key });
      open.push(a);
      await seed(a.engine, 4, 'lost answer');
      const first = await a.sync.now();
      assert.equal(first.ok, false);
      assert.equal(first.error!.kind, 'transient');
      assert.equal(proxy.stats['drop-response'], 1);
      const second = await a.sync.now();
      assert.ok(second.ok, second.error?.message);
      assert.deepEqual([second.push!.accepted, second.push!.exists], [0, 4], 'the retry learns the server already has them');
      const mine = await engineHistory(a.engine);
      const server = await serverHistory(s.url, key);
      assert.deepEqual(pick(server, idsOf(mine)), mine);
      assertNoDuplicates(server, 'server after a lost answer');
      assert.deepEqual(heads.filter((h) => h.startsWith('POST')).length, 2);
    } finally {
      await proxy.close();
    }
  });

  it('with no server configured, touches no network and still records purges', async () => {
    const off = await startMachine({ url: null, key: '' });
    open.push(off);
    assert.equal(off.sync.enabled, false);
    const st = off.sync.status();
    assert.equal(st.state, 'off');
    assert.equal(st.reason, 'no server in this test');
    await assert.rejects(off.sync.now(), /no server/);
    const [m] = await off.engine.add({ content: 'local only', user_id: 'dev' });
    await off.engine.purge([m!.memory_id]);
    assert.equal(off.sync.status().backlog.purges, 1);
  });

  it('pushes everything again when pointed at another project', async () => {
    const { key } = await keyFor('pat');
    const dir = await syncedAndStopped(key, 3, 'retarget');
    const second = ok(await s.req('POST', `/v1/orgs/${org}/projects`, { name: 'second' }), 201).project_id;
    const { key: k2 } = await keyFor('pat-second', 'member', second);
    const moved = await machine(k2, { dir, store: 'lance' });
    const r = await moved.sync.now();
    assert.ok(r.ok, r.error?.message);
    assert.equal(moved.sync.state.target, `${s.url}#${second}`);
    assert.equal(r.push!.accepted, (await engineHistory(moved.engine)).length, 'every local version went to the new project');
    assert.deepEqual(await serverHistory(s.url, k2), await engineHistory(moved.engine));
  });
});
