/**
 * /v1/orgs and /v1/orgs/:org/projects. A key sees only its own org; org managers (effective
 * `admin`) list and create projects; owners of the operator org may create new orgs, each with
 * an owner, a first project and that owner's admin key (shown once).
 */
import { Router } from 'express';
import { z } from 'zod';
import { httpError, parseBody } from '../api/index.js';
import { isManager, requireManager, requireOwnOrg } from './access.js';
import { callerOfRes } from './auth.js';
import { pageOf, pageParams, parseQuery } from './paging.js';
import type { TenancyStore } from './tenancy.js';
import { keyJson } from './tenancy-records.js';
import { NAME_MAX, projectIn } from './tenancy-lookup.js';

const name = z.string().trim().min(1, 'must not be empty').max(NAME_MAX);
const email = z.string().trim().email().max(320).nullable();
const createOrgSchema = z
  .object({
    name,
    owner: z.object({ name, email: email.optional() }).strict(),
    project: z.object({ name }).strict().optional(),
  })
  .strict();
const renameSchema = z.object({ name }).strict();
const listQuery = z.object(pageParams).strict();
const noQuery = z.object({}).strict();

export function orgRoutes(tenancy: TenancyStore, pageSizeMax: number): Router {
  const r = Router();

  r.get('/orgs', (req, res) => {
    const caller = callerOfRes(res);
    const q = parseQuery(listQuery, req.query);
    res.json(pageOf([tenancy.org(caller.org_id)!], q, pageSizeMax));
  });

  r.post('/orgs', (req, res) => {
    const caller = callerOfRes(res);
    if (!isManager(caller) || caller.member.role !== 'owner' || !tenancy.isOperator(caller.org_id)) {
      throw httpError('FORBIDDEN', 'only an owner of the operator organization (the one created on first start), with an admin key, may create organizations', { required: 'operator owner' });
    }
    const b = parseBody(createOrgSchema, req.body);
    const team = tenancy.createTeam(b.name, { name: b.owner.name, email: b.owner.email ?? null }, b.project?.name ?? 'default');
    res.status(201).json({ org: team.org, project: team.project, member: team.member, key: { key: team.secret, ...keyJson(team.key) } });
  });

  r.get('/orgs/:org', (req, res) => {
    const caller = callerOfRes(res);
    parseQuery(noQuery, req.query);
    requireOwnOrg(caller, String(req.params.org));
    res.json(tenancy.org(caller.org_id));
  });

  r.patch('/orgs/:org', (req, res) => {
    const caller = callerOfRes(res);
    requireManager(caller, String(req.params.org));
    const b = parseBody(renameSchema, req.body);
    tenancy.update((doc) => {
      doc.orgs.find((o) => o.org_id === caller.org_id)!.name = b.name;
    });
    res.json(tenancy.org(caller.org_id));
  });

  r.get('/orgs/:org/projects', (req, res) => {
    const caller = callerOfRes(res);
    requireManager(caller, String(req.params.org));
    const q = parseQuery(listQuery, req.query);
    res.json(pageOf(tenancy.projects(caller.org_id), q, pageSizeMax));
  });

  r.post('/orgs/:org/projects', (req, res) => {
    const caller = callerOfRes(res);
    requireManager(caller, String(req.params.org));
    const b = parseBody(renameSchema, req.body);
    if (tenancy.projects(caller.org_id).some((p) => p.name === b.name)) throw httpError('CONFLICT', `the organization already has a project named "${b.name}"`, { name: b.name });
    res.status(201).json(tenancy.createProject(caller.org_id, b.name));
  });

  r.get('/orgs/:org/projects/:project', (req, res) => {
    const caller = callerOfRes(res);
    parseQuery(noQuery, req.query);
    requireOwnOrg(caller, String(req.params.org));
    const p = projectIn(tenancy, caller.org_id, String(req.params.project));
    if (p.project_id !== caller.project_id) requireManager(caller, caller.org_id);
    res.json(p);
  });

  r.patch('/orgs/:org/projects/:project', (req, res) => {
    const caller = callerOfRes(res);
    requireManager(caller, String(req.params.org));
    const p = projectIn(tenancy, caller.org_id, String(req.params.project));
    const b = parseBody(renameSchema, req.body);
    if (tenancy.projects(caller.org_id).some((x) => x.name === b.name && x.project_id !== p.project_id)) throw httpError('CONFLICT', `the organization already has a project named "${b.name}"`, { name: b.name });
    tenancy.update((doc) => {
      doc.projects.find((x) => x.project_id === p.project_id)!.name = b.name;
    });
    res.json(tenancy.project(p.project_id));
  });

  return r;
}
