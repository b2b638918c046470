/**
 * Sync end to end: a real server on loopback and three real daemon processes with their own temp
 * homes and keys — A (Alice's laptop), B (Bob's laptop), C (Alice's second machine, started empty
 * later). The daemons sync on their own (a short pull interval); the CLI drives `sync now|status`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, makeRepo, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/errors.js';
import { daemonHistory, serverHistory } from '../helpers/histories.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from '../helpers/team.js';

let s: TestServer;
const keys = { alice: '', alice2: '', bob: '' };
let A: TestDaemon;
let B: TestDaemon;
let C: TestDaemon | null = null;
let repoA: string;
let repoB: string;
let decision = '';

function syncEnv(key: string, user: string): Record<string, string> {
  return {
    SERVICE_BASE_URL: s.url,
    SERVICE_API_KEY: key,
    SERVICE_USER_ID: user,
    SERVICE_SYNC_INTERVAL_MS: '300',
    SERVICE_SYNC_RETRY_BASE_MS: '100',
    SERVICE_SYNC_RETRY_MAX_MS: '2000',
    SERVICE_SYNC_TIMEOUT_MS: '5000',
  };
}

async function recallOn(d: TestDaemon, cwd: string, prompt: string): Promise<string> {
  return (await d.client.recall({ hook_event_name: 'UserPromptSubmit', session_id: `recall-${Date.now()}`, cwd, prompt })).context;
}

/** Project-space lines only (what every member's machine shares). */
function projectPart(history: string[]): string[] {
  return history.filter((l) => JSON.parse(l).space === 'project');
}

before(async () => {
  s = await startTestServer();
  const v = ok(await s.req('GET', '/api/v1/verify'));
  const member = async (name: string): Promise<string> => ok(await s.req('POST', `/v1/orgs/${v.org_id}/members`, { name, role: 'member' }), 201).member_id;
  const key = async (m: string): Promise<string> => ok(await s.req('POST', `/v1/orgs/${v.org_id}/projects/${v.project_id}/keys`, { member_id: m }), 201).key;
  const alice = await member('Alice');
  const bob = await member('Bob');
  keys.alice = await key(alice);
  // Her second machine's key is hers to make (a manager may only issue a member's first key).
  keys.alice2 = ok(await call(s.url, keys.alice, 'POST', `/v1/orgs/${v.org_id}/projects/${v.project_id}/keys`, { member_id: alice }), 201).key;
  keys.bob = await key(bob);
  repoA = makeRepo();
  repoB = makeRepo();
  [A, B] = await Promise.all([startTestDaemon({ env: syncEnv(keys.alice, 'alice') }), startTestDaemon({ env: syncEnv(keys.bob, 'bob') })]);
});
after(async () => {
  await Promise.all([A?.stop(), B?.stop(), C?.stop()]);
  await s.close();
});

describe('sync between daemons', () => {
  it('recalls on B a decision remembered on A, with nothing but the sync loop in between', async () => {
    const r = await A.client.remember({ text: 'We decided to use PostgreSQL for the session store, never MySQL.', cwd: repoA });
    decision = r.results[0]!.memory_id;
    const context = await eventually(async () => {
      const c = await recallOn(B, repoB, 'which database does the session store use?');
      return c.includes('PostgreSQL') ? c : null;
    }, 20_000, 'the decision reaching B');
    assert.match(context, /session store/);
  });

  it('removes from A what B forgot', async () => {
    const r = await B.client.remember({ text: 'Decision: the build uses esbuild for bundling.', cwd: repoB });
    const id = r.results[0]!.memory_id;
    await eventually(async () => (await A.client.get(id).catch(() => null)) !== null, 20_000, 'the memory reaching A');
    await B.client.forget(id);
    await eventually(async () => (await A.client.get(id).then(() => false).catch((e: { status?: number }) => e.status === 404)), 20_000, 'the forget reaching A');
    const h = await A.client.history(id);
    assert.deepEqual(
      h.versions.map((v) => v.event),
      ['ADD', 'DELETE'],
      'A keeps the history, with B’s tombstone',
    );
  });

  it('carries a personal preference to its owner’s other machine and never to a teammate', async () => {
    const r = await A.client.remember({ text: 'I prefer tabs over spaces in every repository.', personal: true, cwd: repoA });
    const id = r.results[0]!.memory_id;
    const now = await cli(['sync', 'now', '--json'], A.env);
    assert.equal(now.code, 0, now.stderr);
    assert.equal(JSON.parse(now.stdout).status.backlog.versions, 0);
    assert.equal(ok(await s.as(keys.alice)('GET', `/v1/memories/${id}`)).space, 'personal');
    // Alice's second machine starts empty and bootstraps her project's history and her own memories.
    C = await startTestDaemon({ env: syncEnv(keys.alice2, 'alice') });
    await eventually(async () => (await C!.client.get(id).catch(() => null))?.content.includes('tabs'), 20_000, 'the preference on Alice’s second machine');
    assert.equal((await C.client.get(decision)).content, (await A.client.get(decision)).content, 'C bootstrapped the project too');
    assert.equal((await cli(['sync', 'now'], B.env)).code, 0);
    const bob = [await B.client.exportAll(), (await B.client.search({ query: 'tabs spaces prefer', top_k: 20 })).results.map((x) => x.content).join('\n')];
    for (const text of bob) assert.ok(!text.includes('tabs over spaces'), 'nothing of it on Bob’s machine');
    await assert.rejects(B.client.get(id), (e: { status?: number }) => e.status === 404);
    assert.ok(!(await s.as(keys.bob)('GET', '/v1/events?limit=1000')).text.includes(id), 'nor in Bob’s feed');
  });

  it('converges concurrent edits of one memory on every machine and the server, keeping both', async () => {
    // Both machines edit the same memory at once, before either hears of the other's edit.
    await Promise.all([
      A.client.request('PATCH', `/v1/memories/${decision}`, { content: 'We use PostgreSQL 16 for the session store (A).' }),
      B.client.request('PATCH', `/v1/memories/${decision}`, { content: 'We use PostgreSQL with pgbouncer for the session store (B).' }),
    ]);
    const converged = await eventually(
      async () => {
        const [ha, hb, hc, sa, sb] = await Promise.all([daemonHistory(A.client), daemonHistory(B.client), daemonHistory(C!.client), serverHistory(s.url, keys.alice), serverHistory(s.url, keys.bob)]);
        const same = JSON.stringify(ha) === JSON.stringify(sa) && JSON.stringify(hc) === JSON.stringify(sa) && JSON.stringify(hb) === JSON.stringify(sb) && JSON.stringify(projectPart(ha)) === JSON.stringify(hb);
        return same ? { ha, hb } : null;
      },
      30_000,
      'A, B, C and the server to hold the same histories',
    );
    const versions = converged.ha.map((l) => JSON.parse(l)).filter((r) => r.memory_id === decision);
    const contents = versions.map((r) => r.content);
    assert.equal(versions.length, 3, contents.join(' | '));
    assert.ok(contents.some((c) => c.endsWith('(A).')) && contents.some((c) => c.endsWith('(B).')), 'both edits are in history');
    assert.deepEqual(
      versions.map((r) => r.version),
      [1, 2, 3],
    );
    const current = (await A.client.get(decision)).content;
    for (const d of [B, C!]) assert.equal((await d.client.get(decision)).content, current, 'every machine shows the same current state');
    assert.equal(ok(await s.as(keys.bob)('GET', `/v1/memories/${decision}`)).content, current);
    assert.equal(current, versions[2].content, 'the edit the server sequenced last is current');
  });

  it('reports its state through service sync status and /v1/status', async () => {
    const st = await cli(['sync', 'status', '--json'], A.env);
    assert.equal(st.code, 0, st.stderr);
    const j = JSON.parse(st.stdout);
    assert.equal(j.enabled, true);
    assert.equal(j.server, s.url);
    assert.equal(j.reachable, true);
    assert.equal(j.verify.valid, true);
    assert.equal(j.backlog.versions, 0);
    assert.equal(j.parked.versions, 0);
    assert.ok(j.last_push.at && j.last_pull.at);
    const text = await cli(['sync'], A.env);
    assert.match(text.stdout, /backlog +none/);
    assert.match(text.stdout, /key +valid/);
    const full = await A.client.status<{ sync: { enabled: boolean; state: string } }>();
    assert.equal(full.sync.enabled, true);
    assert.match((await cli(['status'], A.env, repoA)).stdout, new RegExp(`sync +\\w+ with ${s.url.replace(/[.]/g, '\\.')}; nothing waiting`));
  });

  it('stays local with no server configured: status says why, sync now refuses', async () => {
    const local = await startTestDaemon();
    try {
      const st = JSON.parse((await cli(['sync', 'status', '--json'], local.env)).stdout);
      assert.equal(st.enabled, false);
      assert.match(st.reason, /SERVICE_BASE_URL/);
      assert.equal(st.reachable, null);
      const now = await cli(['sync', 'now'], local.env);
      assert.equal(now.code, 4, 'a configuration problem');
      assert.match(now.stderr, /sync is off/);
      assert.match((await cli(['status'], local.env)).stdout, /sync +off: SERVICE_BASE_URL is unset/);
    } finally {
      await local.stop();
    }
  });

  it('pushes what was just written before it stops on SIGTERM, and picks up where it left off', async () => {
    const r = await B.client.remember({ text: 'Decision: releases are tagged from main only, written right before shutdown.', cwd: repoB });
    const id = r.results[0]!.memory_id;
    assert.equal(await B.stop(), 0);
    assert.equal(ok(await s.as(keys.bob)('GET', `/v1/memories/${id}`)).memory_id, id, 'the server has it after the daemon exited');
    const before = JSON.parse(fs.readFileSync(path.join(B.home, 'state', 'sync.json'), 'utf8')) as { pull_after: number };
    B = await startTestDaemon({ home: B.home, env: syncEnv(keys.bob, 'bob') });
    // The first round after the restart starts from the saved cursors: it resends nothing the
    // server has (a lost state would resend everything, answered `exists`) and rereads no old event.
    const first = await eventually(async () => (await B.client.syncStatus<{ last_round: { ok: boolean; push: { exists: number }; pull: { events: number } | null } | null }>()).last_round, 20_000, 'the first round after the restart');
    assert.ok(first.ok);
    assert.equal(first.push.exists, 0);
    assert.ok(first.pull !== null && first.pull.events <= 3, `events read again: ${first.pull?.events}`);
    const after = await B.client.syncStatus<{ cursor: { pull_after: number } }>();
    assert.ok(after.cursor.pull_after >= before.pull_after);
  });
});
