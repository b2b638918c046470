/**
 * /v1/orgs/:org/projects/:project/keys: org managers list (prefix and last use only); keys are
 * created (the secret is in the response, once) and revoked under the rules of access.ts: members
 * make and revoke their own, managers onboard others and revoke keys of members they do not
 * outrank. A key's permissions may not exceed its member's role (a reader gets read-only keys).
 */
import { Router } from 'express';
import { z } from 'zod';
import { parseBody } from '../api/index.js';
import { keyPermissionsFor, requireKeyIssue, requireKeyRevoke, requireManager, requireOwnOrg } from './access.js';
import { callerOfRes } from './auth.js';
import { pageOf, pageParams, parseQuery } from './paging.js';
import type { TenancyStore } from './tenancy.js';
import { KEY_PERMISSIONS, keyJson, type KeyPermission } from './tenancy-records.js';
import { keyIn, memberIn, NAME_MAX, projectIn } from './tenancy-lookup.js';

const permission = z.enum(KEY_PERMISSIONS as [KeyPermission, ...KeyPermission[]]);
const createSchema = z
  .object({
    member_id: z.string().min(1).max(100),
    name: z.string().trim().min(1).max(NAME_MAX).optional(),
    permissions: z.array(permission).min(1, 'give at least one permission').max(3).optional(),
  })
  .strict();
const listQuery = z.object({ ...pageParams, member_id: z.string().max(100).optional() }).strict();
const noQuery = z.object({}).strict();

export function keyRoutes(tenancy: TenancyStore, pageSizeMax: number): Router {
  const r = Router();

  r.get('/orgs/:org/projects/:project/keys', (req, res) => {
    const caller = callerOfRes(res);
    requireManager(caller, String(req.params.org));
    const p = projectIn(tenancy, caller.org_id, String(req.params.project));
    const q = parseQuery(listQuery, req.query);
    const keys = tenancy.keys(p.project_id).filter((k) => q.member_id === undefined || k.member_id === q.member_id);
    res.json(pageOf(keys.map(keyJson), q, pageSizeMax));
  });

  r.post('/orgs/:org/projects/:project/keys', (req, res) => {
    const caller = callerOfRes(res);
    requireOwnOrg(caller, String(req.params.org));
    const p = projectIn(tenancy, caller.org_id, String(req.params.project));
    const b = parseBody(createSchema, req.body);
    const member = memberIn(tenancy, caller.org_id, b.member_id);
    requireKeyIssue(caller, member, p.project_id, tenancy.keys(p.project_id).filter((k) => k.member_id === member.member_id).length);
    const permissions = keyPermissionsFor(member.role, b.permissions, member.member_id === caller.member.member_id ? caller.permissions : undefined);
    const { secret, record } = tenancy.createKey(p.project_id, member.member_id, permissions, b.name ?? `${member.name} key`);
    res.status(201).json({ key: secret, ...keyJson(record) });
  });

  r.get('/orgs/:org/projects/:project/keys/:key', (req, res) => {
    const caller = callerOfRes(res);
    requireManager(caller, String(req.params.org));
    parseQuery(noQuery, req.query);
    const p = projectIn(tenancy, caller.org_id, String(req.params.project));
    res.json(keyJson(keyIn(tenancy, p.project_id, String(req.params.key))));
  });

  r.delete('/orgs/:org/projects/:project/keys/:key', (req, res) => {
    const caller = callerOfRes(res);
    requireOwnOrg(caller, String(req.params.org));
    parseQuery(noQuery, req.query);
    const p = projectIn(tenancy, caller.org_id, String(req.params.project));
    const k = keyIn(tenancy, p.project_id, String(req.params.key));
    requireKeyRevoke(caller, tenancy.member(k.member_id));
    res.json(keyJson(tenancy.revokeKey(k.key_id)!));
  });

  return r;
}
