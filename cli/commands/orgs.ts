/**
 * `service orgs create|list`: organizations on a server's data dir (or its database when
 * SERVICE_DATABASE_URL is set), for operators with shell access. `create` makes a team's org with an owner, a first project and the owner's admin key
 * (printed once); the team then sets itself up over the API (README, "Setting up a team").
 */
import { keyJson } from '../../server/index.js';
import { parse } from '../args.js';
import { UsageError, type Command } from '../command.js';
import { openTenancy } from './keys.js';

export const orgsCreateCommand: Command = {
  path: ['orgs', 'create'],
  summary: 'create an organization with an owner, a project and the owner’s admin key (printed once)',
  usage: 'service orgs create <name> --owner NAME [--email ADDRESS] [--project NAME] [--data DIR]',
  async run(args, ctx) {
    const { values, positionals } = parse(args, { data: { type: 'string' }, owner: { type: 'string' }, email: { type: 'string' }, project: { type: 'string' } }, this.usage);
    const name = positionals[0]?.trim();
    const owner = (values.owner as string | undefined)?.trim();
    if (positionals.length !== 1 || !name || !owner) throw new UsageError(`usage: ${this.usage}`);
    const t = await openTenancy(values, ctx);
    const team = t.createTeam(name, { name: owner, email: (values.email as string | undefined) ?? null }, (values.project as string | undefined) ?? 'default');
    // Durable before the key is shown (with SERVICE_DATABASE_URL: committed to the database).
    await t.commit();
    await t.close();
    if (values.json) ctx.json({ org: team.org, project: team.project, member: team.member, key: { key: team.secret, ...keyJson(team.key) } });
    else {
      ctx.out(team.secret);
      ctx.err(`org ${team.org.org_id} "${team.org.name}", project ${team.project.project_id} "${team.project.name}", owner ${team.member.member_id} "${team.member.name}"`);
      ctx.err('the key above is the owner’s admin key; shown once, stored only as a hash');
    }
    return 0;
  },
};

export const orgsListCommand: Command = {
  path: ['orgs', 'list'],
  summary: 'list organizations with their projects and members',
  usage: 'service orgs list [--data DIR]',
  async run(args, ctx) {
    const { values } = parse(args, { data: { type: 'string' } }, this.usage);
    const t = await openTenancy(values, ctx, true);
    const orgs = t.orgs().map((o) => ({ ...o, projects: t.projects(o.org_id), members: t.members(o.org_id) }));
    await t.close();
    if (values.json) ctx.json({ orgs });
    else {
      for (const o of orgs) {
        ctx.out(`${o.org_id}  ${o.name}${o.operator ? '  (operator)' : ''}`);
        for (const p of o.projects) ctx.out(`  project ${p.project_id}  ${p.name}`);
        for (const m of o.members) ctx.out(`  member  ${m.member_id}  ${m.role.padEnd(6)}  ${m.name}${m.email ? ` <${m.email}>` : ''}`);
      }
    }
    return 0;
  },
};
