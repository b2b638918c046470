/** The records of the tenancy document (orgs, projects, members, API keys) and their public views. */
import { createHash } from 'node:crypto';

export type Role = 'owner' | 'admin' | 'member' | 'reader';
export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'reader'];
export type KeyPermission = 'read' | 'write' | 'admin';
export const KEY_PERMISSIONS: readonly KeyPermission[] = ['read', 'write', 'admin'];

export interface Org {
  org_id: string;
  name: string;
  created_at: string;
  /** The organization created on first start: its owners operate the server (may create orgs). */
  operator?: boolean;
}

export interface Project {
  project_id: string;
  org_id: string;
  name: string;
  created_at: string;
}

export interface Member {
  member_id: string;
  org_id: string;
  name: string;
  email: string | null;
  role: Role;
  created_at: string;
}

export interface ApiKeyRecord {
  key_id: string;
  project_id: string;
  member_id: string;
  name: string;
  /** First characters of the secret, for recognizing a key in lists. */
  prefix: string;
  hash: string;
  permissions: KeyPermission[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface TenancyDoc {
  version: 1;
  orgs: Org[];
  projects: Project[];
  members: Member[];
  keys: ApiKeyRecord[];
}

/** Key secrets look like `msk_<43 base64url chars>`; the prefix shown in lists is the first 12. */
export const KEY_PREFIX = 'msk_';
export const SHOWN_PREFIX = 12;

export function hashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The public view of a key (never the hash). */
export function keyJson(k: ApiKeyRecord): Omit<ApiKeyRecord, 'hash'> {
  const { hash: _hash, ...rest } = k;
  return rest;
}
