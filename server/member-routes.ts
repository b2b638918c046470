/**
 * /v1/orgs/:org/members: org managers list, add, change and remove members. Only owners grant,
 * change or remove the owner role, and the last owner can be neither demoted nor removed.
 * Removing a member revokes every key they hold.
 */
import { Router } from 'express';
import { z } from 'zod';
import { httpError, parseBody } from '../api/index.js';
import { requireManager, requireNotOutranked, requireOwnerFor, requireOwnOrg } from './access.js';
import { callerOfRes } from './auth.js';
import { pageOf, pageParams, parseQuery } from './paging.js';
import type { TenancyStore } from './tenancy.js';
import { ROLES, type Member, type Role } from './tenancy-records.js';
import { memberIn, NAME_MAX } from './tenancy-lookup.js';

const role = z.enum(ROLES as [Role, ...Role[]]);
const name = z.string().trim().min(1, 'must not be empty').max(NAME_MAX);
const email = z.string().trim().email().max(320).nullable();
const createSchema = z.object({ name, email: email.optional(), role: role.optional() }).strict();
const patchSchema = z
  .object({ name: name.optional(), email: email.optional(), role: role.optional() })
  .strict()
  .refine((p) => Object.keys(p).length > 0, 'send at least one field to change');
const listQuery = z.object({ ...pageParams, role: role.optional() }).strict();
const noQuery = z.object({}).strict();

function lastOwner(tenancy: TenancyStore, m: Member): boolean {
  return m.role === 'owner' && tenancy.members(m.org_id).filter((x) => x.role === 'owner').length === 1;
}

export function memberRoutes(tenancy: TenancyStore, pageSizeMax: number): Router {
  const r = Router();

  r.get('/orgs/:org/members', (req, res) => {
    const caller = callerOfRes(res);
    requireManager(caller, String(req.params.org));
    const q = parseQuery(listQuery, req.query);
    res.json(pageOf(tenancy.members(caller.org_id).filter((m) => q.role === undefined || m.role === q.role), q, pageSizeMax));
  });

  r.post('/orgs/:org/members', (req, res) => {
    const caller = callerOfRes(res);
    requireManager(caller, String(req.params.org));
    const b = parseBody(createSchema, req.body);
    requireOwnerFor(caller, [b.role]);
    res.status(201).json(tenancy.addMember(caller.org_id, b.name, b.role ?? 'member', b.email ?? null));
  });

  r.get('/orgs/:org/members/:member', (req, res) => {
    const caller = callerOfRes(res);
    parseQuery(noQuery, req.query);
    requireOwnOrg(caller, String(req.params.org));
    const m = memberIn(tenancy, caller.org_id, String(req.params.member));
    if (m.member_id !== caller.member.member_id) requireManager(caller, caller.org_id);
    res.json(m);
  });

  r.patch('/orgs/:org/members/:member', (req, res) => {
    const caller = callerOfRes(res);
    requireManager(caller, String(req.params.org));
    const m = memberIn(tenancy, caller.org_id, String(req.params.member));
    const b = parseBody(patchSchema, req.body);
    requireNotOutranked(caller, m, 'changing the member record');
    if (b.role !== undefined && b.role !== m.role) requireOwnerFor(caller, [m.role, b.role]);
    if (b.role !== undefined && b.role !== 'owner' && lastOwner(tenancy, m)) {
      throw httpError('CONFLICT', 'this is the organization’s last owner; make someone else owner first', { member_id: m.member_id });
    }
    res.json(tenancy.updateMember(m.member_id, b));
  });

  r.delete('/orgs/:org/members/:member', (req, res) => {
    const caller = callerOfRes(res);
    requireManager(caller, String(req.params.org));
    parseQuery(noQuery, req.query);
    const m = memberIn(tenancy, caller.org_id, String(req.params.member));
    requireNotOutranked(caller, m, 'removing the member');
    requireOwnerFor(caller, [m.role]);
    if (lastOwner(tenancy, m)) throw httpError('CONFLICT', 'this is the organization’s last owner; make someone else owner first', { member_id: m.member_id });
    const revoked = tenancy.removeMember(m.member_id) ?? [];
    res.json({ member_id: m.member_id, removed: true, keys_revoked: revoked.length });
  });

  return r;
}
