/**
 * The authorization model over the org, project, member and key routes: who manages what, how a
 * member's role caps their keys, the owner rules, and that refused requests change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/errors.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { buildTeam, ok, type Team } from '../helpers/team.js';

let s: TestServer;
let t: Team;
before(async () => {
  s = await startTestServer();
  t = await buildTeam(s);
});
after(async () => {
  await s.close();
});

const orgPath = (): string => `/v1/orgs/${t.orgId}`;
const keysA = (): string => `${orgPath()}/projects/${t.projectA}/keys`;

describe('roles cap key permissions', () => {
  it('gives each member keys their role allows by default, and refuses more', async () => {
    assert.deepEqual(ok(await s.as(t.reader.key)('GET', '/api/v1/verify')).scopes, ['read']);
    assert.deepEqual(ok(await s.as(t.bob.key)('GET', '/api/v1/verify')).scopes, ['read', 'write']);
    assert.deepEqual(ok(await s.as(t.bAdmin.key)('GET', '/api/v1/verify')).scopes, ['read', 'write', 'admin']);
    const before = ok(await s.req('GET', keysA())).results.length;
    const r = await s.as(t.reader.key)('POST', keysA(), { member_id: t.reader.member, permissions: ['read', 'write'] });
    assertError(r, 422, 'VALIDATION_FAILED');
    assert.deepEqual(r.json.error.details.allowed, ['read']);
    assertError(await s.as(t.bob.key)('POST', keysA(), { member_id: t.bob.member, permissions: ['admin'] }), 422, 'VALIDATION_FAILED');
    assertError(await s.as(t.bob.key)('POST', keysA(), { member_id: t.bob.member, permissions: ['root'] }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', keysA(), { member_id: t.other.member }), 404, 'NOT_FOUND');
    assert.equal(ok(await s.req('GET', keysA())).results.length, before, 'nothing was created');
    const readOnly = ok(await s.as(t.bob.key)('POST', keysA(), { member_id: t.bob.member, permissions: ['read'], name: 'ci reader' }), 201);
    assert.deepEqual(readOnly.permissions, ['read']);
    assertError(await s.as(readOnly.key)('POST', '/v1/memories', { user_id: 'b', content: 'x' }), 403, 'FORBIDDEN');
    assertError(await s.as(t.reader.key)('POST', '/v1/memories', { user_id: 'r', content: 'x' }), 403, 'FORBIDDEN');
  });

  it('lists keys with prefix and last use only, never the hash or the secret', async () => {
    const k = ok(await s.as(t.alice.key)('POST', keysA(), { member_id: t.alice.member, name: 'laptop' }), 201);
    assert.match(k.key, /^msk_/);
    await s.as(k.key)('GET', '/v1/memories?limit=1');
    const listed = ok(await s.req('GET', `${keysA()}?member_id=${t.alice.member}`)).results;
    const mine = listed.find((x: any) => x.key_id === k.key_id);
    assert.equal(mine.prefix, k.key.slice(0, 12));
    assert.notEqual(mine.last_used_at, null);
    const text = JSON.stringify(listed);
    assert.ok(!text.includes(k.key) && !text.includes('"hash"'));
    assert.equal(ok(await s.req('GET', `${keysA()}/${k.key_id}`)).key_id, k.key_id);
  });
});

describe('who manages the org', () => {
  it('refuses management to members and readers with 403', async () => {
    for (const key of [t.alice.key, t.reader.key, t.bMember.key]) {
      const as = s.as(key);
      assertError(await as('GET', `${orgPath()}/members`), 403, 'FORBIDDEN');
      assertError(await as('POST', `${orgPath()}/members`, { name: 'Eve', role: 'admin' }), 403, 'FORBIDDEN');
      assertError(await as('POST', `${orgPath()}/projects`, { name: 'sneaky' }), 403, 'FORBIDDEN');
      assertError(await as('POST', keysA(), { member_id: t.bAdmin.member }), 403, 'FORBIDDEN');
      assertError(await as('PATCH', orgPath(), { name: 'renamed' }), 403, 'FORBIDDEN');
      assertError(await as('POST', '/v1/orgs', { name: 'x', owner: { name: 'y' } }), 403, 'FORBIDDEN');
    }
    assert.equal(ok(await s.req('GET', orgPath())).name, 'default');
    assert.ok(!ok(await s.req('GET', `${orgPath()}/projects`)).results.some((p: any) => p.name === 'sneaky'));
    // Every member sees their own org, their own project and their own member record.
    assert.equal(ok(await s.as(t.alice.key)('GET', '/v1/orgs')).results[0].org_id, t.orgId);
    assert.equal(ok(await s.as(t.alice.key)('GET', `${orgPath()}/projects/${t.projectA}`)).project_id, t.projectA);
    assert.equal(ok(await s.as(t.alice.key)('GET', `${orgPath()}/members/${t.alice.member}`)).name, 'Alice');
  });

  it('lets an org admin manage members and keys of any project in the org, but not the owner role', async () => {
    const admin = s.as(t.bAdmin.key);
    const eve = ok(await admin('POST', `${orgPath()}/members`, { name: 'Eve', email: 'eve@example.com' }), 201);
    assert.equal(eve.role, 'member');
    const key = ok(await admin('POST', keysA(), { member_id: eve.member_id }), 201);
    assert.equal(ok(await s.as(key.key)('GET', '/api/v1/verify')).project_id, t.projectA);
    assertError(await admin('POST', `${orgPath()}/members`, { name: 'Oscar', role: 'owner' }), 403, 'FORBIDDEN');
    assertError(await admin('PATCH', `${orgPath()}/members/${eve.member_id}`, { role: 'owner' }), 403, 'FORBIDDEN');
    const owners = ok(await s.req('GET', `${orgPath()}/members?role=owner`)).results;
    assert.equal(owners.length, 1);
    assertError(await admin('DELETE', `${orgPath()}/members/${owners[0].member_id}`), 403, 'FORBIDDEN');
    assert.equal(ok(await admin('PATCH', `${orgPath()}/members/${eve.member_id}`, { role: 'reader' })).role, 'reader');
    assert.deepEqual(ok(await s.as(key.key)('GET', '/api/v1/verify')).scopes, ['read'], 'a demotion narrows existing keys at once');
  });

  it('keeps at least one owner and revokes a removed member’s keys at once', async () => {
    const owners = ok(await s.req('GET', `${orgPath()}/members?role=owner`)).results;
    assertError(await s.req('PATCH', `${orgPath()}/members/${owners[0].member_id}`, { role: 'admin' }), 409, 'CONFLICT');
    assertError(await s.req('DELETE', `${orgPath()}/members/${owners[0].member_id}`), 409, 'CONFLICT');
    const gone = ok(await s.req('POST', `${orgPath()}/members`, { name: 'Temp', role: 'member' }), 201);
    const k = ok(await s.req('POST', keysA(), { member_id: gone.member_id }), 201);
    assert.equal((await s.as(k.key)('GET', '/v1/memories?limit=1')).status, 200);
    const removed = ok(await s.req('DELETE', `${orgPath()}/members/${gone.member_id}`));
    assert.deepEqual(removed, { member_id: gone.member_id, removed: true, keys_revoked: 1 });
    assertError(await s.as(k.key)('GET', '/v1/memories?limit=1'), 401, 'UNAUTHORIZED');
    assertError(await s.req('GET', `${orgPath()}/members/${gone.member_id}`), 404, 'NOT_FOUND');
  });

  it('lets a member revoke their own key, and only managers revoke others', async () => {
    const k = ok(await s.as(t.alice.key)('POST', keysA(), { member_id: t.alice.member, name: 'old laptop' }), 201);
    assertError(await s.as(t.bob.key)('DELETE', `${keysA()}/${k.key_id}`), 403, 'FORBIDDEN');
    const revoked = ok(await s.as(k.key)('DELETE', `${keysA()}/${k.key_id}`));
    assert.notEqual(revoked.revoked_at, null);
    assertError(await s.as(k.key)('GET', '/api/v1/verify'), 401, 'UNAUTHORIZED');
  });

  it('validates bodies and names', async () => {
    assertError(await s.req('POST', `${orgPath()}/members`, { name: 'X', role: 'god' }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', `${orgPath()}/members`, { name: '  ' }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', `${orgPath()}/members`, { name: 'X', email: 'not-an-email' }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', `${orgPath()}/projects`, { name: 'project-b' }), 409, 'CONFLICT');
    assertError(await s.req('PATCH', orgPath(), { name: '' }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('PATCH', `${orgPath()}/members/${t.alice.member}`, {}), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', '/v1/orgs', { name: 'x' }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('GET', `${orgPath()}/members?limit=abc`), 400, 'INVALID_REQUEST');
    assertError(await s.req('GET', `${orgPath()}/projects/${t.projectA}/keys/nope`), 404, 'NOT_FOUND');
    assert.equal(ok(await s.req('PATCH', `${orgPath()}/projects/${t.projectB}`, { name: 'project-bee' })).name, 'project-bee');
  });

  it('lets only owners of the operator org create orgs; other org owners cannot', async () => {
    assertError(await s.as(t.other.key)('POST', '/v1/orgs', { name: 'nested', owner: { name: 'N' } }), 403, 'FORBIDDEN');
    assertError(await s.as(t.bAdmin.key)('POST', '/v1/orgs', { name: 'nested', owner: { name: 'N' } }), 403, 'FORBIDDEN');
    const other = ok(await s.as(t.other.key)('GET', '/v1/orgs')).results;
    assert.deepEqual(
      other.map((o: any) => o.org_id),
      [t.otherOrg],
    );
  });
});
