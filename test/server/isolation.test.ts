/**
 * Cross-tenant isolation on every route of the server (the list of routes is read from the app, so
 * a new route without a probe fails this test): a key from another project of the same org and a
 * key from another org get 403 or 404 for project A's resources, never data; on collection routes
 * they only ever see their own project. Inside project A, one member's personal memories are
 * invisible and unchangeable for every other member's key, the owner's included.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, eventually } from '../helpers/errors.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { appRoutes, startTestServer, type Reply, type TestServer } from '../helpers/server.js';
import { buildTeam, ok, type Team } from '../helpers/team.js';

type As = ReturnType<TestServer['as']>;

let s: TestServer;
let t: Team;
let r: Receiver;
const A: Record<string, string> = {};

async function exportDone(as: As): Promise<string> {
  const job = ok(await as('POST', '/v1/exports', {}), 202);
  await eventually(async () => (await as('GET', `/v1/exports/${job.export_id}`)).json.status === 'SUCCEEDED', 5000, 'export');
  return job.export_id;
}

function versionLine(memoryId: string, content: string, space = 'project'): string {
  const now = new Date().toISOString();
  return JSON.stringify({
    kind: 'version',
    version_id: '01890a5d-ac96-7000-8000-000000000001',
    memory_id: memoryId,
    version: 2,
    tx: 2,
    content,
    user_id: 'intruder',
    agent_id: null,
    app_id: null,
    run_id: null,
    space,
    repo: null,
    dir: null,
    category: 'note',
    metadata: {},
    source: { kind: 'import' },
    valid_from: now,
    valid_to: null,
    recorded_at: now,
    created_at: now,
    deleted: false,
    block: null,
  });
}

before(async () => {
  s = await startTestServer({ config: { webhookAllowPrivate: true } });
  t = await buildTeam(s);
  r = await startReceiver();
  const alice = s.as(t.alice.key);
  A.M = ok(await alice('POST', '/v1/memories', { user_id: 'ua', agent_id: 'agent-a', content: 'PROJECT-A-SECRET alpha decision' }), 201).memory_id;
  A.P = ok(await alice('POST', '/v1/memories', { user_id: 'alice-personal-user', content: 'ALICE-PERSONAL-SECRET my shoe size', space: 'personal' }), 201).memory_id;
  A.E = await exportDone(s.as(s.key));
  A.EA = await exportDone(alice);
  A.J = ok(await alice('POST', '/v1/memories', { user_id: 'ua', infer: true, async: true, messages: [{ role: 'user', content: 'PROJECT-A-SECRET: never deploy on Fridays, a hard rule.' }] }), 202).job_id;
  const w = ok(await s.req('POST', '/v1/webhooks', { url: r.url, events: ['*'] }), 201);
  A.W = w.webhook_id;
  r.secret = w.secret;
  const events = ok(await alice('GET', '/v1/events')).results;
  A.EV = events.find((e: any) => e.memory_id === A.M).event_id;
  A.EVP = events.find((e: any) => e.memory_id === A.P).event_id;
  A.aliceKey = ok(await s.req('GET', `/v1/orgs/${t.orgId}/projects/${t.projectA}/keys?member_id=${t.alice.member}`)).results[0].key_id;
  ok(await alice('POST', '/v1/telemetry', { events: [{ event: 'a.secret_event', plugin_version: '1.2.0', runtime: { node: 'v20.1.0', os: 'linux', arch: 'x64' }, install_id: crypto.randomUUID() }] }), 202);
});
after(async () => {
  await s.close();
  await r.close();
});

/**
 * Everything an outsider must never see in a response. Error bodies may name the id the caller
 * itself asked for ("memory … was not found"), so ids count only where no id was asked for.
 */
function leaks(text: string, ids = true): string[] {
  const marks = ['PROJECT-A-SECRET', 'ALICE-PERSONAL-SECRET', 'a.secret_event', ...(ids ? ['"ua"', 'agent-a', A.M!, A.P!, A.E!, A.EA!, A.W!, A.EV!, A.EVP!, A.J!] : [])];
  return marks.filter((m) => text.includes(m));
}

/** Project A as its owner sees it (for "nothing changed" checks). */
async function stateOfA(): Promise<string> {
  const alice = s.as(t.alice.key);
  return JSON.stringify([
    (await alice('GET', `/v1/memories/${A.M}/history`)).json,
    (await alice('GET', `/v1/memories/${A.P}/history`)).json,
    (await s.req('GET', `/v1/webhooks/${A.W}`)).json,
    (await s.req('GET', `/v1/exports/${A.E}`)).json,
    (await s.req('GET', `/v1/orgs/${t.orgId}`)).json,
    (await s.req('GET', `/v1/orgs/${t.orgId}/projects`)).json,
    (await s.req('GET', `/v1/orgs/${t.orgId}/members`)).json,
    (await s.req('GET', `/v1/orgs/${t.orgId}/projects/${t.projectA}/keys`)).json.results.map((k: any) => [k.key_id, k.revoked_at]),
  ]);
}

interface Probe {
  route: string;
  run(as: As): Promise<Reply>;
  /** `refused`: must be 403/404. `own`: answers from the caller's own project; must not leak. */
  expect: 'refused' | 'own';
  /** Org routes: an org admin of project B legitimately manages the whole org; a same-org key sees its own org. */
  sameOrg?: 'skip' | 'refused';
}

const org = (): string => `/v1/orgs/${t.orgId}`;
const keys = (): string => `${org()}/projects/${t.projectA}/keys`;

function probes(): Probe[] {
  const NDJSON = { 'Content-Type': 'application/x-ndjson' };
  return [
    { route: 'post /memories', expect: 'own', run: (as) => as('POST', '/v1/memories', { user_id: 'x', content: 'outsider note' }) },
    { route: 'post /memories/search', expect: 'own', run: (as) => as('POST', '/v1/memories/search', { query: 'PROJECT-A-SECRET alpha decision shoe size', top_k: 50 }) },
    { route: 'get /memories', expect: 'own', run: (as) => as('GET', '/v1/memories?limit=1000') },
    { route: 'delete /memories', expect: 'own', run: (as) => as('DELETE', '/v1/memories?user_id=ua') },
    { route: 'get /memories/:id', expect: 'refused', run: (as) => as('GET', `/v1/memories/${A.M}`) },
    { route: 'patch /memories/:id', expect: 'refused', run: (as) => as('PATCH', `/v1/memories/${A.M}`, { content: 'pwned' }) },
    { route: 'delete /memories/:id', expect: 'refused', run: (as) => as('DELETE', `/v1/memories/${A.M}`) },
    { route: 'delete /memories/:id', expect: 'refused', run: (as) => as('DELETE', `/v1/memories/${A.M}?purge=true`) },
    { route: 'get /memories/:id/history', expect: 'refused', run: (as) => as('GET', `/v1/memories/${A.M}/history`) },
    { route: 'get /jobs/:id', expect: 'refused', run: (as) => as('GET', `/v1/jobs/${A.J}`) },
    { route: 'post /sync/push', expect: 'own', run: (as) => as('POST', '/v1/sync/push', { versions: [{ ...JSON.parse(versionLine(crypto.randomUUID(), 'outsider push')), version_id: crypto.randomUUID() }] }) },
    { route: 'post /exports', expect: 'own', run: (as) => as('POST', '/v1/exports', {}) },
    { route: 'get /exports/:id', expect: 'refused', run: (as) => as('GET', `/v1/exports/${A.E}`) },
    { route: 'get /exports/:id/download', expect: 'refused', run: (as) => as('GET', `/v1/exports/${A.E}/download`) },
    { route: 'post /imports', expect: 'own', run: (as) => as('POST', '/v1/imports', versionLine(crypto.randomUUID(), 'outsider import'), NDJSON) },
    { route: 'get /events', expect: 'own', run: (as) => as('GET', '/v1/events?limit=1000') },
    { route: 'get /events/:id', expect: 'refused', run: (as) => as('GET', `/v1/events/${A.EV}`) },
    { route: 'get /entities', expect: 'own', run: (as) => as('GET', '/v1/entities') },
    { route: 'get /entities/:type/:id', expect: 'refused', run: (as) => as('GET', '/v1/entities/user/ua') },
    { route: 'delete /entities/:type/:id', expect: 'refused', run: (as) => as('DELETE', '/v1/entities/agent/agent-a?purge=true') },
    { route: 'post /webhooks', expect: 'own', run: (as) => as('POST', '/v1/webhooks', { url: r.url, events: ['*'] }) },
    { route: 'get /webhooks', expect: 'own', run: (as) => as('GET', '/v1/webhooks') },
    { route: 'get /webhooks/:id', expect: 'refused', run: (as) => as('GET', `/v1/webhooks/${A.W}`) },
    { route: 'patch /webhooks/:id', expect: 'refused', run: (as) => as('PATCH', `/v1/webhooks/${A.W}`, { active: false }) },
    { route: 'delete /webhooks/:id', expect: 'refused', run: (as) => as('DELETE', `/v1/webhooks/${A.W}`) },
    { route: 'post /webhooks/:id/test', expect: 'refused', run: (as) => as('POST', `/v1/webhooks/${A.W}/test`) },
    { route: 'get /webhooks/:id/deliveries', expect: 'refused', run: (as) => as('GET', `/v1/webhooks/${A.W}/deliveries`) },
    { route: 'post /telemetry', expect: 'own', run: (as) => as('POST', '/v1/telemetry', { events: [{ event: 'outsider.event', plugin_version: '1.2.0', runtime: { node: 'v20.1.0', os: 'linux', arch: 'x64' }, install_id: crypto.randomUUID() }] }) },
    { route: 'get /telemetry/summary', expect: 'own', run: (as) => as('GET', '/v1/telemetry/summary') },
    { route: 'get /orgs', expect: 'own', sameOrg: 'skip', run: (as) => as('GET', '/v1/orgs') },
    { route: 'post /orgs', expect: 'refused', run: (as) => as('POST', '/v1/orgs', { name: 'stolen', owner: { name: 'x' } }) },
    { route: 'get /orgs/:org', expect: 'refused', sameOrg: 'skip', run: (as) => as('GET', org()) },
    { route: 'patch /orgs/:org', expect: 'refused', sameOrg: 'refused', run: (as) => as('PATCH', org(), { name: 'pwned' }) },
    { route: 'get /orgs/:org/projects', expect: 'refused', sameOrg: 'refused', run: (as) => as('GET', `${org()}/projects`) },
    { route: 'post /orgs/:org/projects', expect: 'refused', sameOrg: 'refused', run: (as) => as('POST', `${org()}/projects`, { name: 'pwned' }) },
    { route: 'get /orgs/:org/projects/:project', expect: 'refused', sameOrg: 'refused', run: (as) => as('GET', `${org()}/projects/${t.projectA}`) },
    { route: 'patch /orgs/:org/projects/:project', expect: 'refused', sameOrg: 'refused', run: (as) => as('PATCH', `${org()}/projects/${t.projectA}`, { name: 'pwned' }) },
    { route: 'get /orgs/:org/members', expect: 'refused', sameOrg: 'refused', run: (as) => as('GET', `${org()}/members`) },
    { route: 'post /orgs/:org/members', expect: 'refused', sameOrg: 'refused', run: (as) => as('POST', `${org()}/members`, { name: 'mole', role: 'admin' }) },
    { route: 'get /orgs/:org/members/:member', expect: 'refused', sameOrg: 'refused', run: (as) => as('GET', `${org()}/members/${t.alice.member}`) },
    { route: 'patch /orgs/:org/members/:member', expect: 'refused', sameOrg: 'refused', run: (as) => as('PATCH', `${org()}/members/${t.alice.member}`, { role: 'reader' }) },
    { route: 'delete /orgs/:org/members/:member', expect: 'refused', sameOrg: 'refused', run: (as) => as('DELETE', `${org()}/members/${t.alice.member}`) },
    { route: 'get /orgs/:org/projects/:project/keys', expect: 'refused', sameOrg: 'refused', run: (as) => as('GET', keys()) },
    { route: 'post /orgs/:org/projects/:project/keys', expect: 'refused', sameOrg: 'refused', run: (as) => as('POST', keys(), { member_id: t.alice.member }) },
    { route: 'get /orgs/:org/projects/:project/keys/:key', expect: 'refused', sameOrg: 'refused', run: (as) => as('GET', `${keys()}/${A.aliceKey}`) },
    { route: 'delete /orgs/:org/projects/:project/keys/:key', expect: 'refused', sameOrg: 'refused', run: (as) => as('DELETE', `${keys()}/${A.aliceKey}`) },
  ];
}

describe('cross-tenant isolation', () => {
  it('has a probe for every route the server serves', () => {
    const probed = new Set(probes().map((p) => p.route));
    const missing = [...appRoutes(s.server)].filter((x) => !probed.has(x) && x !== 'get /health' && x !== 'get /api/v1/verify');
    assert.deepEqual(missing, [], 'routes without an isolation probe');
  });

  for (const who of ['a member key of another project in the same org', 'an org admin key of another project', 'an owner key of another org'] as const) {
    it(`refuses ${who} everything of project A`, async () => {
      const key = who.startsWith('a member') ? t.bMember.key : who.startsWith('an org admin') ? t.bAdmin.key : t.other.key;
      const sameOrg = key !== t.other.key;
      const as = s.as(key);
      const before = await stateOfA();
      for (const p of probes()) {
        if (sameOrg && p.sameOrg === 'skip') continue;
        if (key === t.bAdmin.key && p.sameOrg === 'refused') continue; // managing the org is what an org admin does
        const res = await p.run(as);
        const where = `${p.route} → ${res.status} ${res.text.slice(0, 200)}`;
        if (p.expect === 'refused') {
          assert.ok(res.status === 403 || res.status === 404, where);
          assertError(res, res.status);
        } else {
          assert.ok(res.status < 500, where);
          if (p.route === 'post /exports' && res.status === 202) {
            await eventually(async () => (await as('GET', `/v1/exports/${res.json.export_id}`)).json.status === 'SUCCEEDED', 5000, 'own export');
            const file = await as('GET', `/v1/exports/${res.json.export_id}/download`);
            assert.deepEqual(leaks(file.text), [], `${p.route}: own export download`);
          }
        }
        assert.deepEqual(leaks(res.text, p.expect === 'own'), [], where);
      }
      assert.equal(ok(await as('GET', '/api/v1/verify')).project_id !== t.projectA, true);
      assert.equal(await stateOfA(), before, 'project A is unchanged');
      // Nothing of project A reaches the outsider's webhooks either.
      const seen = r.received.length;
      await s.as(t.alice.key)('POST', '/v1/memories', { user_id: 'ua', content: 'PROJECT-A-SECRET written after the probes' });
      await eventually(async () => r.received.length > seen, 5000, 'A’s own webhook delivery');
      await new Promise((x) => setTimeout(x, 150));
      const outsiderDeliveries = r.received.slice(seen).filter((x) => x.valid === false);
      assert.ok(outsiderDeliveries.every((x) => leaks(x.body).length === 0), 'outsider webhooks received nothing of project A');
    });
  }
});

describe('personal memories inside one project', () => {
  it('hides Alice’s personal memory from Bob’s and the owner’s keys on every memory route', async () => {
    const before = await stateOfA();
    for (const key of [t.bob.key, s.key]) {
      const as = s.as(key);
      for (const [method, path] of [
        ['GET', `/v1/memories/${A.P}`],
        ['GET', `/v1/memories/${A.P}/history`],
        ['DELETE', `/v1/memories/${A.P}`],
        ['DELETE', `/v1/memories/${A.P}?purge=true`],
        ['GET', `/v1/events/${A.EVP}`],
        ['GET', `/v1/exports/${A.EA}`],
        ['GET', '/v1/entities/user/alice-personal-user'],
        ['DELETE', '/v1/entities/user/alice-personal-user?purge=true'],
      ] as const) {
        assertError(await as(method, path), 404, 'NOT_FOUND');
      }
      assertError(await as('PATCH', `/v1/memories/${A.P}`, { content: 'changed by someone else' }), 404, 'NOT_FOUND');
      assertError(await as('PATCH', `/v1/memories/${A.P}`, { space: 'project' }), 404, 'NOT_FOUND');
      assertError(await as('POST', '/v1/imports', versionLine(A.P!, 'overwritten by import', 'project'), { 'Content-Type': 'application/x-ndjson' }), 409, 'CONFLICT');
      const pushed = ok(await as('POST', '/v1/sync/push', { versions: [{ ...JSON.parse(versionLine(A.P!, 'overwritten by sync push', 'project')), version_id: crypto.randomUUID() }] }));
      assert.deepEqual([pushed.results[0].status, pushed.results[0].error?.code], ['rejected', 'CONFLICT']);
      assert.equal(ok(await as('DELETE', '/v1/memories?user_id=alice-personal-user')).deleted, 0);
      const texts = [
        (await as('GET', '/v1/memories?limit=1000')).text,
        (await as('POST', '/v1/memories/search', { query: 'ALICE-PERSONAL-SECRET shoe size', top_k: 50 })).text,
        (await as('POST', '/v1/memories/search', { query: 'shoe size', scope: 'user', user_id: 'alice-personal-user' })).text,
        (await as('GET', '/v1/events?limit=1000')).text,
        (await as('GET', '/v1/entities')).text,
      ];
      for (const text of texts) {
        assert.ok(!text.includes('ALICE-PERSONAL-SECRET') && !text.includes(A.P!) && !text.includes('alice-personal-user'), text.slice(0, 300));
      }
      const exp = await exportDone(as);
      assert.ok(!(await as('GET', `/v1/exports/${exp}/download`)).text.includes('ALICE-PERSONAL-SECRET'));
    }
    assert.equal(await stateOfA(), before, 'Alice’s personal memory is unchanged');
    // Alice herself still sees and owns it.
    const alice = s.as(t.alice.key);
    assert.equal(ok(await alice('GET', `/v1/memories/${A.P}`)).content, 'ALICE-PERSONAL-SECRET my shoe size');
    assert.ok((await alice('GET', '/v1/entities')).text.includes('alice-personal-user'));
    assert.ok((await alice('GET', '/v1/events?limit=1000')).text.includes(A.P!));
  });
});
