/**
 * Tenancy records of the server: organizations, projects, members and API keys, kept in one JSON
 * document written atomically (temp file, fsync, rename). Keys are stored as SHA-256 hashes only;
 * the secret is shown once, when created.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { uuidv7 } from '../engine/index.js';
import { readJson, withFileLock, writeAtomic } from './atomic-file.js';
import { hashKey, KEY_PREFIX, SHOWN_PREFIX, type ApiKeyRecord, type KeyPermission, type Member, type Org, type Project, type Role, type TenancyDoc as Doc } from './tenancy-records.js';

/**
 * Several processes may share a data dir (the server and `service keys` from a shell), so every
 * read first picks up a newer file on disk, and every change is applied to the latest document.
 * Last-use times live in their own file so that recording them never overwrites a change.
 */
export class TenancyStore {
  protected doc: Doc = { version: 1, orgs: [], projects: [], members: [], keys: [] };
  private readonly file: string;
  private readonly usageFile: string;
  private readonly byHash = new Map<string, ApiKeyRecord>();
  protected readonly usage = new Map<string, string>();
  /** Identity of the file last read: every save renames a new inode into place. */
  private stamp = '';
  protected dirtyUsage = false;

  constructor(dir: string) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = path.join(dir, 'tenancy.json');
    this.usageFile = path.join(dir, 'key-usage.json');
    try {
      for (const [k, v] of Object.entries(readJson<Record<string, string>>(this.usageFile, {}))) this.usage.set(k, v);
    } catch {
      // a torn usage file only loses last-use times
    }
    this.refresh();
  }

  /**
   * Reload the document when another process changed it (`service keys revoke` while the server
   * runs). Cheap: one stat. Saves rename a new file into place, so the inode tells changes apart
   * even within one mtime tick.
   */
  protected refresh(): void {
    let st: fs.Stats;
    try {
      st = fs.statSync(this.file);
    } catch {
      return;
    }
    const stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
    if (stamp === this.stamp) return;
    this.adopt(JSON.parse(fs.readFileSync(this.file, 'utf8')) as Doc);
    this.stamp = stamp;
  }

  /** Make `doc` the current document (read from disk, or from the database). */
  protected adopt(doc: Doc): void {
    this.doc = doc;
    if (this.doc.orgs.length > 0 && !this.doc.orgs.some((o) => o.operator)) this.doc.orgs[0]!.operator = true;
    this.byHash.clear();
    for (const k of this.doc.keys) {
      k.last_used_at = this.usage.get(k.key_id) ?? k.last_used_at;
      this.byHash.set(k.hash, k);
    }
  }

  get empty(): boolean {
    this.refresh();
    return this.doc.orgs.length === 0;
  }

  protected save(): void {
    writeAtomic(this.file, JSON.stringify(this.doc, null, 1));
    const st = fs.statSync(this.file);
    this.stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
  }

  /** Apply a change to the latest document and persist it, holding the cross-process lock. */
  protected change<T>(fn: () => T): T {
    return withFileLock(this.file, () => {
      this.refresh();
      const out = fn();
      this.save();
      return out;
    });
  }

  /** Make the changes made so far durable (the file store writes each change at once). */
  async commit(): Promise<void> {}

  /** Release what the store holds open (nothing for the file store). */
  async close(): Promise<void> {}

  /** Persist last-use times if any changed (called periodically, not per request). */
  flushUsage(): void {
    if (!this.dirtyUsage) return;
    writeAtomic(this.usageFile, JSON.stringify(Object.fromEntries(this.usage)));
    this.dirtyUsage = false;
  }

  createOrg(name: string): Org {
    const base = { org_id: uuidv7(), name, created_at: new Date().toISOString() };
    return this.change(() => {
      const org: Org = { ...base, ...(this.doc.orgs.length === 0 ? { operator: true } : {}) };
      this.doc.orgs.push(org);
      return org;
    });
  }

  /** Whether the org is the operator organization (created on first start). */
  isOperator(orgId: string): boolean {
    return this.org(orgId)?.operator === true;
  }

  /**
   * A new team in one change: the org, its first project, an owner member and an admin key for
   * that owner (the secret is returned once).
   */
  createTeam(orgName: string, owner: { name: string; email: string | null }, projectName: string): { org: Org; project: Project; member: Member; secret: string; key: ApiKeyRecord } {
    const org = this.createOrg(orgName);
    const project = this.createProject(org.org_id, projectName);
    const member = this.addMember(org.org_id, owner.name, 'owner', owner.email);
    const { secret, record } = this.createKey(project.project_id, member.member_id, ['read', 'write', 'admin'], `${owner.name} (owner)`);
    return { org, project, member, secret, key: record };
  }

  createProject(orgId: string, name: string): Project {
    const p: Project = { project_id: uuidv7(), org_id: orgId, name, created_at: new Date().toISOString() };
    return this.change(() => {
      this.doc.projects.push(p);
      return p;
    });
  }

  addMember(orgId: string, name: string, role: Role, email: string | null = null): Member {
    const m: Member = { member_id: uuidv7(), org_id: orgId, name, email, role, created_at: new Date().toISOString() };
    return this.change(() => {
      this.doc.members.push(m);
      return m;
    });
  }

  /** Create a key; returns the secret (shown once) and the stored record. */
  createKey(projectId: string, memberId: string, permissions: KeyPermission[], name: string): { secret: string; record: ApiKeyRecord } {
    const secret = KEY_PREFIX + randomBytes(32).toString('base64url');
    const record: ApiKeyRecord = {
      key_id: uuidv7(),
      project_id: projectId,
      member_id: memberId,
      name,
      prefix: secret.slice(0, SHOWN_PREFIX),
      hash: hashKey(secret),
      permissions: [...new Set(permissions)],
      created_at: new Date().toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
    this.change(() => {
      this.doc.keys.push(record);
      this.byHash.set(record.hash, record);
    });
    return { secret, record };
  }

  /**
   * The live key for a secret, or null (unknown or revoked). Records its use. Lookup is by the
   * secret's SHA-256, so timing reveals nothing about stored secrets.
   */
  authenticate(secret: string): ApiKeyRecord | null {
    if (!secret.startsWith(KEY_PREFIX) || secret.length > 200) return null;
    this.refresh();
    const rec = this.byHash.get(hashKey(secret));
    if (!rec || rec.revoked_at !== null) return null;
    rec.last_used_at = new Date().toISOString();
    this.usage.set(rec.key_id, rec.last_used_at);
    this.dirtyUsage = true;
    return rec;
  }

  /** Change a member's name, email or role. Returns the updated member, or null when unknown. */
  updateMember(memberId: string, patch: { name?: string | undefined; email?: string | null | undefined; role?: Role | undefined }): Member | null {
    return this.change(() => {
      const m = this.doc.members.find((x) => x.member_id === memberId);
      if (!m) return null;
      if (patch.name !== undefined) m.name = patch.name;
      if (patch.email !== undefined) m.email = patch.email;
      if (patch.role !== undefined) m.role = patch.role;
      return { ...m };
    });
  }

  /** Remove a member and revoke every key they hold. Returns the keys revoked, or null when unknown. */
  removeMember(memberId: string): ApiKeyRecord[] | null {
    return this.change(() => {
      const i = this.doc.members.findIndex((x) => x.member_id === memberId);
      if (i < 0) return null;
      this.doc.members.splice(i, 1);
      const now = new Date().toISOString();
      const revoked = this.doc.keys.filter((k) => k.member_id === memberId && k.revoked_at === null);
      for (const k of revoked) k.revoked_at = now;
      return revoked.map((k) => ({ ...k }));
    });
  }

  revokeKey(keyId: string): ApiKeyRecord | null {
    return this.change(() => {
      const rec = this.doc.keys.find((k) => k.key_id === keyId);
      if (rec && rec.revoked_at === null) rec.revoked_at = new Date().toISOString();
      return rec ?? null;
    });
  }

  org(id: string): Org | undefined {
    this.refresh();
    return this.doc.orgs.find((o) => o.org_id === id);
  }
  project(id: string): Project | undefined {
    this.refresh();
    return this.doc.projects.find((p) => p.project_id === id);
  }
  member(id: string): Member | undefined {
    this.refresh();
    return this.doc.members.find((m) => m.member_id === id);
  }
  key(id: string): ApiKeyRecord | undefined {
    this.refresh();
    return this.doc.keys.find((k) => k.key_id === id);
  }
  orgs(): Org[] {
    this.refresh();
    return [...this.doc.orgs];
  }
  projects(orgId?: string): Project[] {
    this.refresh();
    return this.doc.projects.filter((p) => orgId === undefined || p.org_id === orgId);
  }
  members(orgId: string): Member[] {
    this.refresh();
    return this.doc.members.filter((m) => m.org_id === orgId);
  }
  keys(projectId?: string): ApiKeyRecord[] {
    this.refresh();
    return this.doc.keys.filter((k) => projectId === undefined || k.project_id === projectId);
  }

  /** Mutate a record and persist (orgs/projects/members renames, role changes). */
  update(fn: (doc: Doc) => void): void {
    this.change(() => fn(this.doc));
  }

  /**
   * First start on an empty data dir: a default org and project, an owner member, and an admin key
   * (read, write, admin). Returns the secret to print once, or null when already set up.
   */
  bootstrap(): { secret: string; key: ApiKeyRecord; org: Org; project: Project; member: Member } | null {
    if (!this.empty) return null;
    const org = this.createOrg('default');
    const project = this.createProject(org.org_id, 'default');
    const member = this.addMember(org.org_id, 'admin', 'owner');
    const { secret, record } = this.createKey(project.project_id, member.member_id, ['read', 'write', 'admin'], 'bootstrap admin key');
    return { secret, key: record, org, project, member };
  }
}
