/** Finding tenancy records for a route: 404 for anything outside the org being addressed. */
import { httpError } from '../api/index.js';
import type { TenancyStore } from './tenancy.js';
import type { ApiKeyRecord, Member, Project } from './tenancy-records.js';

export function projectIn(tenancy: TenancyStore, orgId: string, projectId: string): Project {
  const p = tenancy.project(projectId);
  if (!p || p.org_id !== orgId) throw httpError('NOT_FOUND', `project ${projectId.slice(0, 80)} was not found`, { id: projectId.slice(0, 80) });
  return p;
}

export function memberIn(tenancy: TenancyStore, orgId: string, memberId: string): Member {
  const m = tenancy.member(memberId);
  if (!m || m.org_id !== orgId) throw httpError('NOT_FOUND', `member ${memberId.slice(0, 80)} was not found`, { id: memberId.slice(0, 80) });
  return m;
}

export function keyIn(tenancy: TenancyStore, projectId: string, keyId: string): ApiKeyRecord {
  const k = tenancy.key(keyId);
  if (!k || k.project_id !== projectId) throw httpError('NOT_FOUND', `key ${keyId.slice(0, 80)} was not found`, { id: keyId.slice(0, 80) });
  return k;
}

/** Names are free text, trimmed, 1–200 characters. */
export const NAME_MAX = 200;
