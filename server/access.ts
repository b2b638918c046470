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
 * - Roles are ranked owner > admin > member > reader. A manager acts only on members whose role
 *   does not outrank their own (an admin never issues, revokes or changes an owner's keys or role).
 * - A key is its member's identity, personal memories included. So a manager may issue a key for
 *   another member only as that member's first key in the project (onboarding: no personal memory
 *   of theirs can exist there yet); after that, members create their own keys. A key never mints
 *   a key with more permissions than it has itself.
 * - Every route under /v1/orgs/:org answers 404 for any org but the key's own, so nothing reveals
 *   that another org exists.
 *
 * Storage-free on purpose: the routes look records up and ask these functions; the rules do not
 * depend on where tenancy lives.
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

/** Higher outranks lower. */
export const ROLE_RANK: Record<Role, number> = { owner: 3, admin: 2, member: 1, reader: 0 };

/** A manager acts on another member only when that member's role does not outrank the caller's. */
export function requireNotOutranked(caller: Caller, target: Member, what: string): void {
  if (ROLE_RANK[target.role] > ROLE_RANK[caller.member.role]) {
    throw httpError('FORBIDDEN', `${what} of an ${target.role} needs an ${target.role} of the organization`, { required_role: target.role });
  }
}

/**
 * May `caller` issue a key for `target` in `projectId`? `keysEverHeld` counts the target's keys in
 * that project, revoked ones included. Throws 403 with what to do instead.
 */
export function requireKeyIssue(caller: Caller, target: Member, projectId: string, keysEverHeld: number): void {
  if (target.member_id === caller.member.member_id) {
    // Self-service: any key in its own project; a manager in any project of the org.
    if (projectId !== caller.project_id && !isManager(caller)) {
      throw httpError('FORBIDDEN', 'a key for another project needs an org manager (a key with the admin permission)', { required: 'admin' });
    }
    return;
  }
  requireManager(caller, caller.org_id);
  requireNotOutranked(caller, target, 'issuing keys');
  if (keysEverHeld > 0) {
    throw httpError(
      'FORBIDDEN',
      'this member already holds (or held) a key in this project: a key would read their personal memories, so only they may create further keys (POST …/keys with their own key and their member_id)',
      { required: 'the member themselves', member_id: target.member_id },
    );
  }
}

/** A member revokes their own keys; a manager revokes keys of members not outranking them. */
export function requireKeyRevoke(caller: Caller, target: Member | undefined): void {
  if (target && target.member_id === caller.member.member_id) return;
  requireManager(caller, caller.org_id);
  if (target) requireNotOutranked(caller, target, 'revoking keys');
}

/**
 * A webhook carries the events its creator's keys may see (their personal memories included), so
 * only its creator may point it elsewhere or widen what it receives; other managers may pause,
 * test or delete it.
 */
export function requireWebhookRetarget(caller: Caller, creatorMemberId: string): void {
  if (caller.member.member_id !== creatorMemberId) {
    throw httpError('FORBIDDEN', 'only the member who created this webhook may change its url or events (it delivers what their keys may see); create your own webhook instead', {
      required: 'the webhook creator',
    });
  }
}

/** Permissions for a new key: the requested ones (all must fit the role and the calling key), or that cap. */
export function keyPermissionsFor(role: Role, requested: KeyPermission[] | undefined, callerPermissions?: readonly KeyPermission[]): KeyPermission[] {
  const cap = ROLE_CAP[role].filter((p) => callerPermissions === undefined || callerPermissions.includes(p));
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
