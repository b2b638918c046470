/** Builds tenants over the API: members and keys in the bootstrap project, another project, another org. */
import assert from 'node:assert/strict';
import type { Reply, TestServer } from './server.js';

export interface Team {
  orgId: string;
  projectA: string;
  /** Members of the bootstrap org with keys in project A. */
  alice: { member: string; key: string };
  bob: { member: string; key: string };
  reader: { member: string; key: string };
  /** Project B of the same org: a member's key and an org admin's key. */
  projectB: string;
  bMember: { member: string; key: string };
  bAdmin: { member: string; key: string };
  /** Another org created by the operator: its owner's admin key. */
  otherOrg: string;
  otherProject: string;
  other: { member: string; key: string };
}

export function ok(r: Reply, status = 200): any {
  assert.equal(r.status, status, r.text);
  return r.json;
}

export async function buildTeam(s: TestServer): Promise<Team> {
  const verify = ok(await s.req('GET', '/api/v1/verify'));
  const orgId: string = verify.org_id;
  const projectA: string = verify.project_id;
  const member = async (name: string, role: string): Promise<string> => ok(await s.req('POST', `/v1/orgs/${orgId}/members`, { name, role }), 201).member_id;
  const key = async (project: string, memberId: string): Promise<string> => ok(await s.req('POST', `/v1/orgs/${orgId}/projects/${project}/keys`, { member_id: memberId }), 201).key;
  const alice = await member('Alice', 'member');
  const bob = await member('Bob', 'member');
  const reader = await member('Rita', 'reader');
  const projectB = ok(await s.req('POST', `/v1/orgs/${orgId}/projects`, { name: 'project-b' }), 201).project_id;
  const bMember = await member('Bea', 'member');
  const bAdmin = await member('Ben', 'admin');
  const other = ok(await s.req('POST', '/v1/orgs', { name: 'other-co', owner: { name: 'Olga' }, project: { name: 'their-app' } }), 201);
  return {
    orgId,
    projectA,
    alice: { member: alice, key: await key(projectA, alice) },
    bob: { member: bob, key: await key(projectA, bob) },
    reader: { member: reader, key: await key(projectA, reader) },
    projectB,
    bMember: { member: bMember, key: await key(projectB, bMember) },
    bAdmin: { member: bAdmin, key: await key(projectB, bAdmin) },
    otherOrg: other.org.org_id,
    otherProject: other.project.project_id,
    other: { member: other.member.member_id, key: other.key.key },
  };
}
