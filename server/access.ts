/**
 * The authorization model of the server (docs/api.md, "Authorization"):
 *
 * - A key belongs to one member and one project. Its effective permissions are the permissions it
 *   was created with, capped by its member's current role: owner and admin allow read, write and
 *   admin; member allows read and write; reader allows read. Demoting a member narrows every key
 *   they hold at once.
 * - An org manager is a key with effective `admin`: it manages the org's projects, members, keys,
 *   and its own project's webhooks and telemetry summary. Only owners grant, change or remove the
 *   owner role, and an org always keeps at least one owner.
 * - Every route under /v1/orgs/:org answers 404 for any org but the key's own, so nothing reveals
 *   that another org exists.
 */
import { httpError } from '../api/index.js';
import type { TenancyStore } from './tenancy.js';
import type { ApiKeyRecord, KeyPermission, Member, Role } from './tenancy-records.js';

/** What each role allows a key to do. */
export const ROLE_CAP: Record<Role, readonly KeyPermission[]> = {
  owner: ['read', 'write', 'admin'],
  admin: ['read', 'write', 'admin'],
  member: ['read', 'write'],
  reader: ['read'],
};

/** The authenticated caller of one request. */
export interface Caller {
  key: ApiKeyRecord;
  member: Member;
  org_id: string;
  project_id: string;
  /** The key's permissions capped by the member's role, in read, write, admin order. */
  permissions: KeyPermission[];
}

export function effectivePermissions(key: ApiKeyRecord, role: Role): KeyPermission[] {
  return ROLE_CAP[role].filter((p) => key.permissions.includes(p));
}

/** Resolve a live key into a caller, or null when its member or project is gone. */
export function callerOf(tenancy: TenancyStore, key: ApiKeyRecord): Caller | null {
  const member = tenancy.member(key.member_id);
  const project = tenancy.project(key.project_id);
  if (!member || !project || member.org_id !== project.org_id) return null;
  return { key, member, org_id: project.org_id, project_id: project.project_id, permissions: effectivePermissions(key, member.role) };
}

export function isManager(caller: Caller): boolean {
  return caller.permissions.includes('admin');
}

/** 404 unless `orgId` is the caller's org (other orgs are never revealed). */
export function requireOwnOrg(caller: Caller, orgId: string): void {
  if (orgId !== caller.org_id) throw httpError('NOT_FOUND', `organization ${orgId.slice(0, 80)} was not found`, { id: orgId.slice(0, 80) });
}

/** The caller's own org, and they must manage it (403 otherwise). */
export function requireManager(caller: Caller, orgId: string): void {
  requireOwnOrg(caller, orgId);
  if (!isManager(caller)) {
    throw httpError('FORBIDDEN', 'managing this organization needs a key with the admin permission held by an owner or admin of the org', { required: 'admin' });
  }
}

/** Only owners may hand out, change or take away the owner role. */
export function requireOwnerFor(caller: Caller, roles: (Role | undefined)[]): void {
  if (roles.includes('owner') && caller.member.role !== 'owner') {
    throw httpError('FORBIDDEN', 'only an owner of the organization may grant, change or remove the owner role', { required_role: 'owner' });
  }
}

/** Permissions for a new key: the requested ones (all must fit the role), or the role's cap. */
export function keyPermissionsFor(role: Role, requested: KeyPermission[] | undefined): KeyPermission[] {
  const cap = ROLE_CAP[role];
  if (requested === undefined) return [...cap];
  const excess = requested.filter((p) => !cap.includes(p));
  if (excess.length > 0) {
    throw httpError('VALIDATION_FAILED', `permissions: a ${role} may hold at most ${cap.join(', ')}; ${excess.join(', ')} is not allowed`, {
      issues: [{ path: 'permissions', message: `not allowed for role ${role}` }],
      allowed: cap,
    });
  }
  return KEY_ORDER.filter((p) => requested.includes(p));
}

const KEY_ORDER: readonly KeyPermission[] = ['read', 'write', 'admin'];
