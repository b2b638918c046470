/**
 * The authorization table of docs/api.md, walked: every route the server serves × every role
 * (owner, admin, member, reader) × every target (the caller's own resource, another member's, one
 * of another project of the org, one of another org). Each request's status must match the table
 * (2xx where allowed, 403/404/409 where not), no answer may carry another member's personal
 * memory, another project's or another org's content, and no refused request may change
 * anything. Then the concrete escalations and leaks from issue #17, one by one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, eventually } from '../helpers/errors.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { appRoutes, startTestServer, type Reply, type TestServer } from '../helpers/server.js';
import { ok } from '../helpers/team.js';

type As = ReturnType<TestServer['as']>;
type Role = 'owner' | 'admin' | 'member' | 'reader';
type Target = 'own' | 'other member' | 'other project' | 'other org';
const ROLES: Role[] = ['owner', 'admin', 'member', 'reader'];
const TARGETS: Target[] = ['own', 'other member', 'other project', 'other org'];

interface Person {
  name: string;
  member: string;
  key: string;
  role: Role;
  /** Marker inside their personal memory (nobody else may ever read it). */
  marker: string;
}

let s: TestServer;
let rcv: Receiver;
let orgId = '';
let projectA = '';
let projectB = '';
let org2 = '';
let org2Project = '';
const P: Record<string, Person> = {};
let bea: Person;
let olga: Person;
const CALLER: Record<Role, string> = { owner: 'Owen', admin: 'Ada', member: 'Bob', reader: 'Rita' };
/** Whose resources "other member" means, per caller: a peer, and for the admin the owner. */
const OTHER: Record<Role, string> = { owner: 'Bob', admin: 'Owen', member: 'Mia', reader: 'Bob' };
const SECRET_B = 'PROJECT-B-SECRET-bravo';
const SECRET_ORG2 = 'ORG2-SECRET-oscar';
let n = 0;
const uniq = (): string => `${Date.now().toString(36)}${(n++).toString(36)}`;

const org = (id = orgId): string => `/v1/orgs/${id}`;
const keysOf = (o: string, p: string): string => `/v1/orgs/${o}/projects/${p}/keys`;

function telemetryEvent(): unknown {
  return { events: [{ event: 'walk.probe', plugin_version: '1.0.0', runtime: { node: 'v20.1.0', os: 'linux', arch: 'x64' }, install_id: crypto.randomUUID() }] };
}

async function personalMemory(p: Person, text = p.marker): Promise<{ id: string; user: string }> {
  const user = `u-${p.name.toLowerCase()}-${uniq()}`;
  const id = ok(await s.as(p.key)('POST', '/v1/memories', { user_id: user, content: `${text} ${uniq()}`, space: 'personal' }), 201).memory_id;
  return { id, user };
}

async function addPerson(name: string, role: Role, projectId = projectA): Promise<Person> {
  const m = ok(await s.req('POST', `${org()}/members`, { name, role }), 201).member_id;
  const key = ok(await s.req('POST', keysOf(orgId, projectId), { member_id: m }), 201).key;
  return { name, member: m, key, role, marker: `PERSONAL-SECRET-${name.toUpperCase()}` };
}

before(async () => {
  s = await startTestServer({ config: { webhookAllowPrivate: true } });
  rcv = await startReceiver();
  const v = ok(await s.req('GET', '/api/v1/verify'));
  orgId = v.org_id;
  projectA = v.project_id;
  P.Owen = { name: 'Owen', member: v.member_id, key: s.key, role: 'owner', marker: 'PERSONAL-SECRET-OWEN' };
  P.Ada = await addPerson('Ada', 'admin');
  P.Bob = await addPerson('Bob', 'member');
  P.Mia = await addPerson('Mia', 'member');
  P.Rita = await addPerson('Rita', 'reader');
  projectB = ok(await s.req('POST', `${org()}/projects`, { name: 'walk-b' }), 201).project_id;
  bea = await addPerson('Bea', 'member', projectB);
  const o2 = ok(await s.req('POST', '/v1/orgs', { name: 'org-two', owner: { name: 'Olga' } }), 201);
  org2 = o2.org.org_id;
  org2Project = o2.project.project_id;
  olga = { name: 'Olga', member: o2.member.member_id, key: o2.key.key, role: 'owner', marker: SECRET_ORG2 };
  ok(await s.as(bea.key)('POST', '/v1/memories', { user_id: 'u-bea', content: SECRET_B }), 201);
  ok(await s.as(olga.key)('POST', '/v1/memories', { user_id: 'u-olga', content: SECRET_ORG2 }), 201);
  for (const name of ['Owen', 'Ada', 'Bob', 'Mia']) await personalMemory(P[name]!);
  ok(await s.req('POST', '/v1/memories', { user_id: 'u-team', content: 'team note: we deploy on Tuesdays' }), 201);
});
after(async () => {
  await s.close();
  await rcv.close();
});

/** A resource of `target` for `caller` (fresh where the probe may change it). */
interface Fixture {
  as: As;
  caller: Person;
  /** The person owning the target resource (caller, other member, Bea in project B, Olga in org 2). */
  holder: Person;
  orgId: string;
  projectId: string;
}

function fixture(role: Role, target: Target): Fixture {
  const caller = P[CALLER[role]]!;
  const holder = target === 'own' ? caller : target === 'other member' ? P[OTHER[role]]! : target === 'other project' ? bea : olga;
  return {
    as: s.as(caller.key),
    caller,
    holder,
    orgId: target === 'other org' ? org2 : orgId,
    projectId: target === 'other org' ? org2Project : target === 'other project' ? projectB : projectA,
  };
}

/** A memory the holder may see: their personal one (a project one for a reader, who cannot write). */
async function memoryOf(f: Fixture): Promise<{ id: string; user: string }> {
  if (f.holder.role === 'reader') {
    const user = `u-team-${uniq()}`;
    return { id: ok(await s.req('POST', '/v1/memories', { user_id: user, content: `team memory ${uniq()}` }), 201).memory_id, user };
  }
  return personalMemory(f.holder);
}

async function exportOf(f: Fixture): Promise<string> {
  const job = ok(await s.as(f.holder.key)('POST', '/v1/exports', {}), 202);
  await eventually(async () => (await s.as(f.holder.key)('GET', `/v1/exports/${job.export_id}`)).json.status === 'SUCCEEDED', 5000, 'export');
  return job.export_id;
}

async function webhookOf(f: Fixture): Promise<string> {
  // Only managers create webhooks; a non-manager's "own" webhook is the owner's in their project.
  // Another member's webhook, for a caller whose "other member" cannot make one: another manager's.
  const creator = f.holder.role === 'owner' || f.holder.role === 'admin' ? f.holder : f.holder === bea ? null : f.caller === P.Owen ? P.Ada! : P.Owen!;
  if (!creator) {
    // Project B has no manager key of its own: the owner makes one for themselves there.
    const k = ok(await s.req('POST', keysOf(orgId, projectB), { member_id: P.Owen!.member }), 201).key;
    return ok(await s.as(k)('POST', '/v1/webhooks', { url: rcv.url, events: ['*'] }), 201).webhook_id;
  }
  return ok(await s.as(creator.key)('POST', '/v1/webhooks', { url: rcv.url, events: ['*'] }), 201).webhook_id;
}

async function keyOf(f: Fixture): Promise<string> {
  // The holder makes a spare key for themselves (self-service).
  return ok(await s.as(f.holder.key)('POST', keysOf(f.orgId, f.projectId), { member_id: f.holder.member, name: `spare ${uniq()}` }), 201).key_id;
}

async function memberOf(f: Fixture, destructive = false): Promise<string> {
  // Destructive member routes act on a fresh member of the holder's role ("own": a peer of the caller's rank).
  if (f.holder === olga) return olga.member;
  if (f.holder === f.caller && !destructive) return f.caller.member;
  return ok(await s.req('POST', `${org()}/members`, { name: `fresh ${uniq()}`, role: f.holder.role }), 201).member_id;
}

const isManager = (r: Role): boolean => r === 'owner' || r === 'admin';
const canWrite = (r: Role): boolean => r !== 'reader';
const RANK: Record<Role, number> = { owner: 3, admin: 2, member: 1, reader: 0 };

interface Probe {
  route: string;
  run(f: Fixture): Promise<Reply>;
  /** Whether the table allows it for this role and target. */
  allowed(role: Role, target: Target, f: Fixture): boolean;
}

/** Data routes act on the caller's own project only; `own` = a memory the caller may see. */
const ownData = (need: (r: Role) => boolean) => (role: Role, target: Target) => target === 'own' && need(role);
const anyRead = (): boolean => true;
const NDJSON = { 'Content-Type': 'application/x-ndjson' };

function versionLine(memoryId: string, content: string): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    kind: 'version', version_id: crypto.randomUUID(), memory_id: memoryId, version: 9, tx: 9, content, user_id: 'walker', agent_id: null, app_id: null, run_id: null,
    space: 'project', repo: null, dir: null, category: 'note', metadata: {}, source: { kind: 'import' }, valid_from: now, valid_to: null, recorded_at: now, created_at: now, deleted: false, block: null,
  };
}

function probes(): Probe[] {
  return [
    { route: 'post /memories', allowed: (r) => canWrite(r), run: (f) => f.as('POST', '/v1/memories', { user_id: 'walker', content: `walk note ${uniq()}` }) },
    { route: 'post /memories/search', allowed: anyRead, run: (f) => f.as('POST', '/v1/memories/search', { query: `${f.holder.marker} secret deploy`, top_k: 100 }) },
    { route: 'get /memories', allowed: anyRead, run: (f) => f.as('GET', '/v1/memories?limit=1000') },
    { route: 'delete /memories', allowed: (r) => canWrite(r), run: async (f) => f.as('DELETE', `/v1/memories?user_id=${(await memoryOf(f)).user}`) },
    { route: 'get /memories/:id', allowed: ownData(anyRead), run: async (f) => f.as('GET', `/v1/memories/${(await memoryOf(f)).id}`) },
    { route: 'patch /memories/:id', allowed: ownData(canWrite), run: async (f) => f.as('PATCH', `/v1/memories/${(await memoryOf(f)).id}`, { content: `patched ${uniq()}` }) },
    { route: 'delete /memories/:id', allowed: ownData(canWrite), run: async (f) => f.as('DELETE', `/v1/memories/${(await memoryOf(f)).id}?purge=${n % 2 === 0}`) },
    { route: 'get /memories/:id/history', allowed: ownData(anyRead), run: async (f) => f.as('GET', `/v1/memories/${(await memoryOf(f)).id}/history`) },
    {
      route: 'get /jobs/:id',
      allowed: ownData(canWrite),
      run: async (f) => {
        if (!canWrite(f.holder.role)) return f.as('GET', `/v1/jobs/${crypto.randomUUID()}`);
        // A project memory (the job's): it carries no personal marker, which every member may then read.
        const job = ok(await s.as(f.holder.key)('POST', '/v1/memories', { user_id: 'walker', infer: true, async: true, messages: [{ role: 'user', content: `job ${uniq()}: we always use pnpm` }] }), 202);
        return f.as('GET', `/v1/jobs/${job.job_id}`);
      },
    },
    {
      route: 'post /sync/push',
      // Pushing a version of a memory the caller does not hold is refused (per version: 200 with rejected).
      allowed: (r) => canWrite(r),
      run: async (f) => f.as('POST', '/v1/sync/push', { versions: [versionLine(f.holder.role === 'reader' ? crypto.randomUUID() : (await memoryOf(f)).id, `pushed ${uniq()}`)] }),
    },
    { route: 'post /exports', allowed: anyRead, run: (f) => f.as('POST', '/v1/exports', {}) },
    { route: 'get /exports/:id', allowed: ownData(anyRead), run: async (f) => f.as('GET', `/v1/exports/${await exportOf(f)}`) },
    { route: 'get /exports/:id/download', allowed: ownData(anyRead), run: async (f) => f.as('GET', `/v1/exports/${await exportOf(f)}/download`) },
    {
      route: 'post /imports',
      // An import of a line for the holder's memory: the caller's own is fine; another member's is a
      // 409. Another project's or org's id is unknown here, so the line makes a new memory in the
      // caller's project (theirs stays untouched: ids are per project).
      allowed: (r, t) => canWrite(r) && t !== 'other member',
      run: async (f) => f.as('POST', '/v1/imports', JSON.stringify(versionLine(f.holder.role === 'reader' ? crypto.randomUUID() : (await memoryOf(f)).id, `imported ${uniq()}`)), NDJSON),
    },
    { route: 'get /events', allowed: anyRead, run: (f) => f.as('GET', '/v1/events?limit=1000') },
    {
      route: 'get /events/:id',
      allowed: ownData(anyRead),
      run: async (f) => {
        const m = await memoryOf(f);
        const holderEvents = ok(await s.as(f.holder.key)('GET', '/v1/events?limit=1000')).results;
        return f.as('GET', `/v1/events/${holderEvents.find((e: any) => e.memory_id === m.id).event_id}`);
      },
    },
    { route: 'get /entities', allowed: anyRead, run: (f) => f.as('GET', '/v1/entities?limit=1000') },
    { route: 'get /entities/:type/:id', allowed: ownData(anyRead), run: async (f) => f.as('GET', `/v1/entities/user/${(await memoryOf(f)).user}`) },
    { route: 'delete /entities/:type/:id', allowed: ownData(canWrite), run: async (f) => f.as('DELETE', `/v1/entities/user/${(await memoryOf(f)).user}?purge=true`) },
    { route: 'post /webhooks', allowed: (r) => isManager(r), run: (f) => f.as('POST', '/v1/webhooks', { url: rcv.url, events: ['memory.*'] }) },
    { route: 'get /webhooks', allowed: (r) => isManager(r), run: (f) => f.as('GET', '/v1/webhooks') },
    { route: 'get /webhooks/:id', allowed: (r, t) => isManager(r) && (t === 'own' || t === 'other member'), run: async (f) => f.as('GET', `/v1/webhooks/${await webhookOf(f)}`) },
    // Repointing a webhook is its creator's alone (it carries what their keys may see).
    { route: 'patch /webhooks/:id', allowed: (r, t) => isManager(r) && t === 'own', run: async (f) => f.as('PATCH', `/v1/webhooks/${await webhookOf(f)}`, { url: `${rcv.url}/moved`, events: ['*'] }) },
    { route: 'delete /webhooks/:id', allowed: (r, t) => isManager(r) && (t === 'own' || t === 'other member'), run: async (f) => f.as('DELETE', `/v1/webhooks/${await webhookOf(f)}`) },
    { route: 'post /webhooks/:id/test', allowed: (r, t) => isManager(r) && (t === 'own' || t === 'other member'), run: async (f) => f.as('POST', `/v1/webhooks/${await webhookOf(f)}/test`) },
    { route: 'get /webhooks/:id/deliveries', allowed: (r, t) => isManager(r) && (t === 'own' || t === 'other member'), run: async (f) => f.as('GET', `/v1/webhooks/${await webhookOf(f)}/deliveries`) },
    { route: 'post /telemetry', allowed: anyRead, run: (f) => f.as('POST', '/v1/telemetry', telemetryEvent()) },
    { route: 'get /telemetry/summary', allowed: (r) => isManager(r), run: (f) => f.as('GET', '/v1/telemetry/summary') },
    { route: 'get /orgs', allowed: anyRead, run: (f) => f.as('GET', '/v1/orgs') },
    { route: 'post /orgs', allowed: (r) => r === 'owner', run: (f) => f.as('POST', '/v1/orgs', { name: `walk-org-${uniq()}`, owner: { name: 'W' } }) },
    { route: 'get /orgs/:org', allowed: (_r, t) => t !== 'other org', run: (f) => f.as('GET', org(f.orgId)) },
    { route: 'patch /orgs/:org', allowed: (r, t) => isManager(r) && t !== 'other org', run: (f) => f.as('PATCH', org(f.orgId), { name: f.orgId === orgId ? 'default' : 'pwned' }) },
    { route: 'get /orgs/:org/projects', allowed: (r, t) => isManager(r) && t !== 'other org', run: (f) => f.as('GET', `${org(f.orgId)}/projects`) },
    { route: 'post /orgs/:org/projects', allowed: (r, t) => isManager(r) && t !== 'other org', run: (f) => f.as('POST', `${org(f.orgId)}/projects`, { name: `walk-${uniq()}` }) },
    { route: 'get /orgs/:org/projects/:project', allowed: (r, t) => t === 'own' || t === 'other member' || (isManager(r) && t === 'other project'), run: (f) => f.as('GET', `${org(f.orgId)}/projects/${f.projectId}`) },
    { route: 'patch /orgs/:org/projects/:project', allowed: (r, t) => isManager(r) && t !== 'other org', run: (f) => f.as('PATCH', `${org(f.orgId)}/projects/${f.projectId}`, { name: f.projectId === projectA ? 'default' : f.projectId === projectB ? 'walk-b' : 'pwned' }) },
    { route: 'get /orgs/:org/members', allowed: (r, t) => isManager(r) && t !== 'other org', run: (f) => f.as('GET', `${org(f.orgId)}/members`) },
    {
      route: 'post /orgs/:org/members',
      // Granting the owner role is the owners' alone.
      allowed: (r, t) => r === 'owner' && t !== 'other org',
      run: (f) => f.as('POST', `${org(f.orgId)}/members`, { name: `walk ${uniq()}`, role: 'owner' }),
    },
    { route: 'get /orgs/:org/members/:member', allowed: (r, t) => t === 'own' || (isManager(r) && t !== 'other org'), run: async (f) => f.as('GET', `${org(f.orgId)}/members/${await memberOf(f)}`) },
    {
      route: 'patch /orgs/:org/members/:member',
      // Making someone (or oneself) owner: only owners.
      allowed: (r, t) => r === 'owner' && t !== 'other org',
      run: async (f) => f.as('PATCH', `${org(f.orgId)}/members/${await memberOf(f)}`, { role: 'owner' }),
    },
    {
      route: 'delete /orgs/:org/members/:member',
      // A member of the caller's own rank, another member's, another project's: only when not outranked.
      allowed: (r, t, f) => isManager(r) && t !== 'other org' && RANK[f.holder.role] <= RANK[r],
      run: async (f) => f.as('DELETE', `${org(f.orgId)}/members/${await memberOf(f, true)}`),
    },
    { route: 'get /orgs/:org/projects/:project/keys', allowed: (r, t) => isManager(r) && t !== 'other org', run: (f) => f.as('GET', keysOf(f.orgId, f.projectId)) },
    {
      route: 'post /orgs/:org/projects/:project/keys',
      // A key for oneself: always (own project). For a member who already holds keys: never.
      allowed: (_r, t) => t === 'own',
      run: (f) => f.as('POST', keysOf(f.orgId, f.projectId), { member_id: f.holder.member }),
    },
    { route: 'get /orgs/:org/projects/:project/keys/:key', allowed: (r, t) => isManager(r) && t !== 'other org', run: async (f) => f.as('GET', `${keysOf(f.orgId, f.projectId)}/${await keyOf(f)}`) },
    {
      route: 'delete /orgs/:org/projects/:project/keys/:key',
      allowed: (r, t, f) => t === 'own' || (isManager(r) && t !== 'other org' && RANK[f.holder.role] <= RANK[r]),
      run: async (f) => f.as('DELETE', `${keysOf(f.orgId, f.projectId)}/${await keyOf(f)}`),
    },
  ];
}

/** Markers the caller must never receive: others' personal memories, project B, org 2. */
function forbiddenMarkers(caller: Person): string[] {
  return [...Object.values(P).filter((p) => p !== caller).map((p) => p.marker), SECRET_B, SECRET_ORG2];
}

/** Roles and live keys of everyone: what an escalation would change. */
async function authState(): Promise<string> {
  const members = ok(await s.req('GET', `${org()}/members?limit=1000`)).results.map((m: any) => `${m.member_id}:${m.role}`);
  const verify = await Promise.all([...Object.values(P), bea].map(async (p) => (await s.as(p.key)('GET', '/api/v1/verify')).json?.role ?? 'revoked'));
  return JSON.stringify({ members: members.filter((m: string) => Object.values(P).some((p) => m.startsWith(p.member))), verify });
}

describe('the authorization table, walked', () => {
  it('has a probe for every route the server serves', () => {
    const probed = new Set(probes().map((p) => p.route));
    const missing = [...appRoutes(s.server)].filter((x) => !probed.has(x) && x !== 'get /health' && x !== 'get /api/v1/verify');
    assert.deepEqual(missing, [], 'routes without a probe');
  });

  for (const role of ROLES) {
    it(`walks every route × target as the ${role}: statuses follow the table, nothing leaks, nothing escalates`, async (t) => {
      const before = await authState();
      const wrong: string[] = [];
      let calls = 0;
      for (const target of TARGETS) {
        for (const p of probes()) {
          const f = fixture(role, target);
          const res = await p.run(f);
          calls++;
          const allowed = p.allowed(role, target, f);
          const where = `${role} × ${target} × ${p.route} → ${res.status} ${res.text.slice(0, 160)}`;
          if (res.status >= 500) wrong.push(`5xx: ${where}`);
          else if (allowed && res.status >= 300) wrong.push(`refused but allowed: ${where}`);
          else if (!allowed && ![403, 404, 409].includes(res.status) && !(p.route === 'post /sync/push')) wrong.push(`allowed but refused by the table: ${where}`);
          if (p.route === 'post /sync/push' && res.status === 200 && target === 'other member') {
            if (res.json.results[0].status === 'accepted' && f.holder.role !== 'reader') wrong.push(`push onto another's memory accepted: ${where}`);
          }
          for (const m of forbiddenMarkers(f.caller)) if (res.text.includes(m)) wrong.push(`leak of ${m}: ${where}`);
        }
      }
      t.diagnostic(`${role}: ${calls} calls, ${wrong.filter((w) => w.startsWith('leak')).length} leaks, ${wrong.filter((w) => w.startsWith('5xx')).length} 5xx, ${wrong.length} off the table`);
      assert.deepEqual(wrong, []);
      assert.equal(await authState(), before, 'no role or key changed');
      // Nothing of what others may not see reached the caller through an export either.
      const exp = ok(await s.as(P[CALLER[role]]!.key)('POST', '/v1/exports', {}), 202);
      await eventually(async () => (await s.as(P[CALLER[role]]!.key)('GET', `/v1/exports/${exp.export_id}`)).json.status === 'SUCCEEDED', 5000, 'export');
      const file = (await s.as(P[CALLER[role]]!.key)('GET', `/v1/exports/${exp.export_id}/download`)).text;
      for (const m of forbiddenMarkers(P[CALLER[role]]!)) assert.ok(!file.includes(m), `export of the ${role} holds ${m}`);
    });
  }
});

describe('the escalations and leaks of issue #17', () => {
  it('refuses an admin a key for the owner, so she cannot make herself owner with it', async () => {
    const admin = s.as(P.Ada!.key);
    assertError(await admin('POST', keysOf(orgId, projectA), { member_id: P.Owen!.member }), 403, 'FORBIDDEN');
    assertError(await admin('PATCH', `${org()}/members/${P.Ada!.member}`, { role: 'owner' }), 403, 'FORBIDDEN');
    // A brand-new owner's first key is not hers to issue either (she would hold the owner's identity).
    const newOwner = ok(await s.req('POST', `${org()}/members`, { name: 'Nora', role: 'owner' }), 201);
    assertError(await admin('POST', keysOf(orgId, projectA), { member_id: newOwner.member_id }), 403, 'FORBIDDEN');
    assertError(await admin('DELETE', `${keysOf(orgId, projectA)}/${(await s.req('GET', '/api/v1/verify')).json.key_id}`), 403, 'FORBIDDEN');
    assert.equal(ok(await s.req('GET', '/api/v1/verify')).role, 'owner');
    assert.equal(ok(await admin('GET', '/api/v1/verify')).role, 'admin');
  });

  it('refuses any manager a key for a member who already holds one (it would read their personal memories)', async () => {
    for (const manager of [P.Owen!, P.Ada!]) {
      assertError(await s.as(manager.key)('POST', keysOf(orgId, projectA), { member_id: P.Bob!.member }), 403, 'FORBIDDEN');
    }
    // After revoking Bob's keys, a new one is still not theirs to issue.
    const spare = ok(await s.as(P.Mia!.key)('POST', keysOf(orgId, projectA), { member_id: P.Mia!.member }), 201);
    ok(await s.req('DELETE', `${keysOf(orgId, projectA)}/${spare.key_id}`));
    assertError(await s.req('POST', keysOf(orgId, projectA), { member_id: P.Mia!.member }), 403, 'FORBIDDEN');
    // Onboarding a new member, and a member minting their own narrower key, still work.
    const newbie = ok(await s.as(P.Ada!.key)('POST', `${org()}/members`, { name: 'Nico' }), 201);
    const k = ok(await s.as(P.Ada!.key)('POST', keysOf(orgId, projectA), { member_id: newbie.member_id }), 201);
    const narrow = ok(await s.as(k.key)('POST', keysOf(orgId, projectA), { member_id: newbie.member_id, permissions: ['read'] }), 201);
    assert.deepEqual(narrow.permissions, ['read']);
    // A read-only key cannot mint a write key, even for its own member.
    assertError(await s.as(narrow.key)('POST', keysOf(orgId, projectA), { member_id: newbie.member_id, permissions: ['read', 'write'] }), 422, 'VALIDATION_FAILED');
  });

  it('shows history only to whoever may see the memory now, without other members’ private drafts', async () => {
    const bob = s.as(P.Bob!.key);
    const rita = s.as(P.Rita!.key);
    const moved = ok(await bob('POST', '/v1/memories', { user_id: 'ub', content: 'shared: staging runs on port 8080' }), 201).memory_id;
    ok(await bob('PATCH', `/v1/memories/${moved}`, { content: 'BOB-PRIVATE-NOTE staging password hint', space: 'personal' }));
    assertError(await rita('GET', `/v1/memories/${moved}`), 404, 'NOT_FOUND');
    assertError(await rita('GET', `/v1/memories/${moved}/history`), 404, 'NOT_FOUND');
    assertError(await s.as(P.Mia!.key)('DELETE', `/v1/memories/${moved}?purge=true`), 404, 'NOT_FOUND');
    assert.equal(ok(await bob('GET', `/v1/memories/${moved}/history`)).versions.length, 2);

    const draft = ok(await bob('POST', '/v1/memories', { user_id: 'ub', content: 'BOB-PRIVATE-DRAFT rough idea', space: 'personal' }), 201).memory_id;
    ok(await bob('PATCH', `/v1/memories/${draft}`, { content: 'published: use pnpm everywhere', space: 'project' }));
    const h = ok(await rita('GET', `/v1/memories/${draft}/history`));
    assert.equal(h.versions.length, 1);
    assert.ok(!JSON.stringify(h).includes('BOB-PRIVATE-DRAFT'));
  });

  it('moves a memory into the personal space of whoever moves it, never into its writer’s', async () => {
    const bob = s.as(P.Bob!.key);
    const mia = s.as(P.Mia!.key);
    const id = ok(await bob('POST', '/v1/memories', { user_id: 'ub', content: 'team fact: CI uses node 20' }), 201).memory_id;
    ok(await mia('PATCH', `/v1/memories/${id}`, { space: 'personal' }));
    assert.equal(ok(await mia('GET', `/v1/memories/${id}`)).space, 'personal');
    assertError(await bob('GET', `/v1/memories/${id}`), 404, 'NOT_FOUND');
  });

  it('does not replay an Idempotency-Key across projects', async () => {
    const keyB = ok(await s.req('POST', keysOf(orgId, projectB), { member_id: P.Owen!.member }), 201).key;
    const body = { user_id: 'u-idem', content: 'idempotent across projects' };
    const a = ok(await s.req('POST', '/v1/memories', body, { 'Idempotency-Key': 'same-key' }), 201);
    const b = await s.as(keyB)('POST', '/v1/memories', body, { 'Idempotency-Key': 'same-key' });
    assert.equal(b.status, 201);
    assert.equal(b.headers.get('Idempotent-Replayed'), null);
    assert.notEqual(b.json.memory_id, a.memory_id);
    assertError(await s.as(keyB)('GET', `/v1/memories/${a.memory_id}`), 404, 'NOT_FOUND');
  });

  it('lets only a webhook’s creator repoint it', async () => {
    const hook = ok(await s.req('POST', '/v1/webhooks', { url: rcv.url, events: ['*'] }), 201);
    assertError(await s.as(P.Ada!.key)('PATCH', `/v1/webhooks/${hook.webhook_id}`, { url: `${rcv.url}/ada` }), 403, 'FORBIDDEN');
    assertError(await s.as(P.Ada!.key)('PATCH', `/v1/webhooks/${hook.webhook_id}`, { events: ['memory.*'] }), 403, 'FORBIDDEN');
    assert.equal(ok(await s.as(P.Ada!.key)('PATCH', `/v1/webhooks/${hook.webhook_id}`, { active: false })).active, false);
    assert.equal(ok(await s.req('GET', `/v1/webhooks/${hook.webhook_id}`)).url, rcv.url);
  });
});
